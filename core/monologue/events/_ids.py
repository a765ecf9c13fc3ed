"""Event ids: unique, and sortable by creation time as plain strings.

An id is a ULID: 26 characters of Crockford base32 over 48 bits of milliseconds since the
epoch and 80 random bits. Within one millisecond the random part counts up, so ids made by
one process sort in creation order even when the clock does not move. Encoding uses a table
of 10-bit chunks because a per-bit loop (or ``base64.b32encode``) costs several microseconds
on the hot path of every event. python-ulid, the maintained library, was measured about
2x slower per id on this hot path (benchmarks/bench_ids.py), so ids stay made here.
"""

from __future__ import annotations

import itertools
import os
import random
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS = [_ALPHABET[i >> 5] + _ALPHABET[i & 31] for i in range(1024)]
_PREFIX_SHIFTS = tuple(range(80, -1, -10))  # 88 bits: 48 of milliseconds, 40 random
ID_LENGTH = 26
_LOW_BITS = 40
_LOW_MASK = (1 << _LOW_BITS) - 1

# The random part is a per-process random start plus a process-wide count: ids then sort in
# the order one thread made them, within a millisecond too, and are unique across threads,
# without a lock (``next`` on a count is atomic). 79 random bits leave 2**79 ids of room
# before the count could carry into the 80th. Ids need uniqueness, not secrecy; forked
# children draw a new start, so two processes never share a sequence.
_start = 0
_count = itertools.count()
_last_ms = 0
# The id's first 18 characters (the milliseconds and the random part's upper 40 bits) change
# only with the millisecond or a carry, so they are encoded once and reused: an id then
# costs 4 table lookups, not 13. One tuple, so that threads never see a key with another
# key's text.
_prefix: tuple[int, str] = (-1, "")


def _reseed() -> None:
    global _start, _count
    _start = random.Random(os.urandom(16)).getrandbits(79)
    _count = itertools.count()


_reseed()
os.register_at_fork(after_in_child=_reseed)


def new_id() -> str:
    """Return a new id that sorts after every id this thread made before."""
    global _last_ms, _prefix
    value = _start + next(_count)
    now_ms = time.time_ns() // 1_000_000
    if now_ms < _last_ms:
        now_ms = _last_ms  # the clock stepped back: keep order
    else:
        _last_ms = now_ms
    key = (now_ms << _LOW_BITS) | (value >> _LOW_BITS)
    prefix = _prefix
    if prefix[0] != key:
        prefix = (key, "".join([_PAIRS[(key >> shift) & 1023] for shift in _PREFIX_SHIFTS]))
        _prefix = prefix
    low = value & _LOW_MASK
    pairs = _PAIRS
    return (
        prefix[1] + pairs[low >> 30] + pairs[(low >> 20) & 1023] + pairs[(low >> 10) & 1023]
    ) + pairs[low & 1023]


def id_timestamp_ms(event_id: str) -> int:
    """The creation time, in milliseconds since the epoch, encoded in an id."""
    if len(event_id) != ID_LENGTH:
        raise ValueError(f"not a monologue id (want {ID_LENGTH} characters): {event_id!r}")
    value = 0
    for char in event_id.upper():
        value = value * 32 + _ALPHABET.index(char)
    return value >> 80
