"""Run every ``benchmarks/bench_*.py``, print a markdown table, write ``results.json``.

python -m benchmarks [--quick] [--only NAME ...] [--json PATH] [--in-process]

Each module runs in a fresh interpreter of its own, as pyperf runs each benchmark: what one
module leaves behind (the imports, objects and threads of the harness, the web server, the
Anthropic SDK) would otherwise move the next one's figures. The garbage collector's full
passes, for one, take longer the more objects the process holds: the same dispatch measured
104k events/s in a fresh process and 71k after the modules before it. The figures a ratio
compares are still measured side by side, in one module's run. ``bench_pipeline`` measures
dispatch with a large heap too, as a row of its own. ``--in-process`` runs every module in
this interpreter, one after the other.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
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
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run every module in this interpreter (by default each runs in a fresh one)",
    )
    args = parser.parse_args(argv)
    ctx = Context(quick=args.quick)
    figures: list[Figure] = []
    failed: list[str] = []
    for name in discover():
        short = name.removeprefix("bench_")
        if args.only and short not in args.only and name not in args.only:
            continue
        if not args.in_process:
            ran = _run_apart(short, args.quick)  # which prints its progress itself
            if ran is None:
                failed.append(short)
            else:
                figures += ran
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


def _run_apart(short: str, quick: bool) -> list[Figure] | None:
    """One module's figures, measured in a fresh interpreter; ``None`` if it failed (its
    traceback is on standard error)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        command = [sys.executable, "-m", "benchmarks", "--in-process", "--only", short]
        command += ["--json", str(out), *(["--quick"] if quick else [])]
        # Its table goes nowhere: this process prints the whole one.
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        if not out.is_file():
            return None
        payload = json.loads(out.read_text())
    if done.returncode != 0 or payload["failed"]:
        return None
    return [Figure.model_validate(figure) for figure in payload["figures"]]


if __name__ == "__main__":
    raise SystemExit(main())
