"""monologue-skills: a 10-action plan of in-process skills, and an external tool's overhead.

The plan has ten ``status`` actions (three independent chains joined by a last action), run
by ``run_plan`` with concurrency 4 against a state file: validation, scheduling, one
all-or-nothing JSON Patch per action, each an fsynced atomic replace. The tool figure runs a
``/bin/sh`` tool through ``execute_skill`` (discovery, limits, new session, scrubbed env,
stdout reader, JSON parsing) next to a bare ``subprocess.run`` of the same tool, same run.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .harness import Context, Figure, median, percentile

_TOOL = """#!/bin/sh
if [ "$1" = "--describe" ]; then echo '{"name": "ping"}'; exit 0; fi
cat > /dev/null
echo '{"success": true, "output": "pong"}'
"""


@contextmanager
def _settings(tools_dir: Path) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("MONOLOGUE_TOOLS_DIR", "MONOLOGUE_NO_CONFIG_FILE")}
    os.environ["MONOLOGUE_TOOLS_DIR"] = str(tools_dir)
    os.environ["MONOLOGUE_NO_CONFIG_FILE"] = "1"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _plan() -> Any:
    from monologue_skills.models import Plan

    actions: list[dict[str, Any]] = []
    for chain in range(3):
        for step in range(3):
            deps = [f"c{chain}s{step - 1}"] if step else []
            params = {"task": f"chain {chain}", "files_touched": [f"f{chain}{step}.py"]}
            actions.append(
                {
                    "id": f"c{chain}s{step}",
                    "skill": "status",
                    "parameters": params,
                    "depends_on": deps,
                }
            )
    actions.append(
        {
            "id": "join",
            "skill": "status",
            "parameters": {"test_outcome": "passed"},
            "depends_on": ["c0s2", "c1s2", "c2s2"],
        }
    )
    return Plan.model_validate({"actions": actions})


def run(ctx: Context) -> list[Figure]:
    import monologue_skills
    import monologue_status
    from monologue_skills.executor import run_plan
    from monologue_skills.state import StateStore

    from monologue import SkillCall
    from monologue.plugins import MonologuePluginManager

    pm = MonologuePluginManager()
    pm.register(monologue_skills, "skills")
    pm.register(monologue_status, "status")  # the skill the plan uses
    plan = _plan()
    runs = 10 if ctx.quick else 60
    calls = 10 if ctx.quick else 60
    with tempfile.TemporaryDirectory(prefix="bench-skills-") as folder, _settings(Path(folder)):
        tool = Path(folder) / "ping"
        tool.write_text(_TOOL)
        tool.chmod(0o755)
        plan_s = []
        for i in range(runs):
            store = StateStore(Path(folder) / f"state-{i}.json")
            started = time.perf_counter()
            report = run_plan(plan, pm=pm, store=store, concurrency=4)
            plan_s.append(time.perf_counter() - started)
            assert report.ok, report
        payload = json.dumps({"actionId": "a", "skill": "ping", "parameters": {}}).encode()
        bare, routed = [], []
        pm.hooks.execute_skill(None, SkillCall(name="ping", id="warm"))  # describes once
        for _ in range(calls):
            started = time.perf_counter()
            subprocess.run([str(tool)], input=payload, capture_output=True, check=True)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = pm.hooks.execute_skill(None, SkillCall(name="ping", id="a"))
            routed.append(time.perf_counter() - started)
            assert result.ok, result.error
    group = "skills"
    return [
        Figure(
            group=group,
            name="10-action plan of in-process skills, p90",
            value=percentile(plan_s, 90) * 1000,
            unit="ms",
            target=3000,
            compare="max",
            note=f"{runs} runs, concurrency 4, state file fsynced per action; "
            f"median {median(plan_s) * 1000:.1f} ms",
        ),
        Figure(
            group=group,
            name="external tool call through execute_skill, median",
            value=median(routed) * 1000,
            unit="ms",
            note=f"{calls} calls of a /bin/sh tool",
        ),
        Figure(
            group=group,
            name="bare subprocess.run of the same tool, median",
            value=median(bare) * 1000,
            unit="ms",
            note="same run, side by side",
        ),
        Figure(
            group=group,
            name="external tool overhead over bare subprocess.run",
            value=(median(routed) - median(bare)) * 1000,
            unit="ms",
            note="process group, scrubbed env, capped stdout reader, JSON validation, routing",
        ),
    ]
