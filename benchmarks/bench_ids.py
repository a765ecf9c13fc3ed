"""Event ids on the hot path: monologue's own ULID maker next to python-ulid's.

Issue 25 asks for the maintained library unless it is slower on the hot path. Every event
gets an id on the agent's thread, so the cost per id counts; python-ulid also draws its
randomness with ``os.urandom`` (a system call, which on a busy GIL can wait behind the
narrator) unless given another source, so both of its forms are timed.
"""

from __future__ import annotations

import os
import random
import timeit

from monologue.events._ids import new_id

from .harness import Context, Figure


def _per_call_us(make: object, count: int) -> float:
    return min(timeit.repeat(make, number=count, repeat=5)) / count * 1e6  # type: ignore[arg-type]


def run(ctx: Context) -> list[Figure]:
    from ulid import ULID, ULIDGenerator

    count = 20_000 if ctx.quick else 200_000
    ours = _per_call_us(new_id, count)
    library = _per_call_us(lambda: str(ULID()), count)
    prng = random.Random(os.urandom(16))
    seeded = ULIDGenerator(randomness=lambda _ts: prng.randbytes(10))
    library_prng = _per_call_us(lambda: str(seeded.generate()), count)
    return [
        Figure(
            group="ids",
            name="new event id (monologue.events._ids)",
            value=ours,
            unit="µs",
            note=f"best of 5 x {count:,}",
        ),
        Figure(
            group="ids",
            name="python-ulid str(ULID())",
            value=library,
            unit="µs",
            note=f"{library / ours:.1f}x monologue's; os.urandom per id",
        ),
        Figure(
            group="ids",
            name="python-ulid, generator with a seeded PRNG",
            value=library_prng,
            unit="µs",
            note=f"{library_prng / ours:.1f}x monologue's",
        ),
    ]
