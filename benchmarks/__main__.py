"""Run every ``benchmarks/bench_*.py``, print a markdown table, write ``results.json``.

python -m benchmarks [--quick] [--only NAME ...] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

from .harness import ROOT, Context, Figure, machine

HERE = Path(__file__).resolve().parent


def discover() -> list[str]:
    return sorted(path.stem for path in HERE.glob("bench_*.py"))


def table(figures: list[Figure]) -> str:
    lines = [
        "| group | figure | value | target | met | note |",
        "|---|---|---|---|---|---|",
    ]
    for f in figures:
        target = ""
        if f.target is not None:
            target = f"{'≥' if f.compare == 'min' else '≤'} {f.target:g} {f.unit}"
        met = {True: "yes", False: "**no**", None: ""}[f.met]
        lines.append(
            f"| {f.group} | {f.name} | {f.value:,.4g} {f.unit} | {target} | {met} | {f.note} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", nargs="*", default=None, help="bench module names to run")
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    args = parser.parse_args(argv)
    ctx = Context(quick=args.quick)
    figures: list[Figure] = []
    failed: list[str] = []
    for name in discover():
        short = name.removeprefix("bench_")
        if args.only and short not in args.only and name not in args.only:
            continue
        print(f"running {short} ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        try:
            figures += importlib.import_module(f"benchmarks.{name}").run(ctx)
        except Exception:
            failed.append(short)
            traceback.print_exc()
        print(f"  {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    print(table(figures))
    payload = {
        "machine": machine(),
        "quick": args.quick,
        "figures": [f.model_dump() | {"met": f.met} for f in figures],
        "failed": failed,
    }
    args.json.write_text(json.dumps(payload, indent=2))
    print(f"\nwrote {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
