"""Event ids: unique, and sortable by creation time as plain strings.

An id is a ULID: 26 characters of Crockford base32 over 48 bits of milliseconds since the
epoch and 80 random bits. Within one millisecond the random part counts up, so ids made by
one process sort in creation order even when the clock does not move. Encoding uses a table
of 10-bit chunks because a per-bit loop (or ``base64.b32encode``) costs several microseconds
on the hot path of every event. python-ulid, the maintained library, was measured about
2x slower per id on this hot path (benchmarks/bench_ids.py), so ids stay made here.
"""

from __future__ import annotations

import os
import random
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS = [_ALPHABET[i >> 5] + _ALPHABET[i & 31] for i in range(1024)]
_PREFIX_SHIFTS = tuple(range(80, -1, -10))  # 88 bits: 48 of milliseconds, 40 random
_RANDOM_MAX = (1 << 80) - 1
ID_LENGTH = 26

_lock = threading.Lock()
_last_ms = -1
_last_random = 0
# The id's first 18 characters (the milliseconds and the random part's upper 40 bits) change
# only with the millisecond or a carry, so they are encoded once and reused: an id then
# costs 4 table lookups, not 13.
_prefix_key = -1
_prefix = ""
_LOW_BITS = 40
_LOW_MASK = (1 << _LOW_BITS) - 1
# Ids need uniqueness, not secrecy: a PRNG seeded from the OS costs a fraction of a
# getrandom() syscall per millisecond. Reseeded in forked children so that two processes
# never draw the same sequence.
_random = random.Random(os.urandom(16))
os.register_at_fork(after_in_child=lambda: _random.seed(os.urandom(16)))


def new_id() -> str:
    """Return a new id that sorts after every id this process made before."""
    global _last_ms, _last_random, _prefix_key, _prefix
    now_ms = time.time_ns() // 1_000_000
    with _lock:
        if now_ms <= _last_ms:
            # Same millisecond, or the clock stepped back: keep order by counting up.
            now_ms = _last_ms
            _last_random += 1
            if _last_random > _RANDOM_MAX:
                now_ms += 1
                _last_random = _random.getrandbits(79)
        else:
            # 79 bits leave room to count up within the millisecond.
            _last_random = _random.getrandbits(79)
        _last_ms = now_ms
        low = _last_random & _LOW_MASK
        key = (now_ms << _LOW_BITS) | (_last_random >> _LOW_BITS)
        if key != _prefix_key:
            _prefix_key = key
            _prefix = "".join([_PAIRS[(key >> shift) & 1023] for shift in _PREFIX_SHIFTS])
        prefix = _prefix
    pairs = _PAIRS
    return (
        prefix + pairs[low >> 30] + pairs[(low >> 20) & 1023] + pairs[(low >> 10) & 1023]
    ) + pairs[low & 1023]


def id_timestamp_ms(event_id: str) -> int:
    """The creation time, in milliseconds since the epoch, encoded in an id."""
    if len(event_id) != ID_LENGTH:
        raise ValueError(f"not a monologue id (want {ID_LENGTH} characters): {event_id!r}")
    value = 0
    for char in event_id.upper():
        value = value * 32 + _ALPHABET.index(char)
    return value >> 80
