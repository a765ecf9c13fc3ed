"""Every narrative the template narrator tells of the shared traces, in every mode, passes
the claim checker: `monologue check` finds nothing false, beyond the narratives listed in
``fixtures/check_known_false.json`` (a ratchet: each trace and mode may have at most that
many false narratives; empty since the last known faults of the narration-truth issue were
fixed, and it only ever shrinks). Each trace is replayed in-process
through the real readers, buffer, gate and recorder, with the live check off (so that what
the template says is what is audited, not a safe replacement), then the recording is
audited as `monologue check` does. ``pytest -s`` prints the totals per trace and mode.

The examples always run; the ../shared traces are skipped when absent."""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from pytest_monologue import PluginSandbox

ROOT = Path(__file__).resolve().parents[2]
KNOWN_FALSE: dict[str, int] = json.loads(
    (Path(__file__).parent / "fixtures" / "check_known_false.json").read_text()
)
SHARED = ROOT.parent / "shared" / "traces"
PLUGINS = ("buffer", "template", "gate", "recorder", "claude", "sweagent", "openhands", "otel",
           "anthropic")  # fmt: skip
MODES: dict[str, dict[str, str]] = {
    "default": {},
    "terse": {"preset": "terse"},
    "strict": {"gate": "strict"},
    "terse-strict": {"preset": "terse", "gate": "strict"},
}

pytestmark = pytest.mark.skipif(
    not {*PLUGINS, "check"}.issubset(ep.name for ep in entry_points(group="monologue")),
    reason="needs the default set, the readers and monologue-check installed",
)


def traces() -> list[Any]:
    found = [pytest.param(p, id=f"examples/{p.name}")
             for p in sorted((ROOT / "examples" / "sessions").glob("*.jsonl"))]  # fmt: skip
    if SHARED.is_dir():
        found += [
            pytest.param(p, id=str(p.relative_to(SHARED)))
            for p in sorted(SHARED.rglob("*"))
            if p.is_file()
            and p.suffix in {".jsonl", ".json", ".traj", ".txt"}
            and p.name not in {"README.md", "SOURCES.md"}
        ]
    return found


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("trace", traces())
def test_no_narrative_of_a_trace_is_false(
    trace: Path, mode: str, monologue_plugins: PluginSandbox, tmp_path: Path
) -> None:
    from monologue_check.audit import audit_path

    from monologue.recording import open_session

    monologue_plugins.load(*PLUGINS)
    try:  # monologue's own recordings too, which the core reads, not a plugin
        open_session(trace, monologue_plugins.hooks)
    except Exception as exc:  # a file no reader claims is the replay tests' concern
        pytest.skip(f"no reader: {exc}")
    replayed = monologue_plugins.replay(
        trace, record_dir=str(tmp_path), narrator="template", **MODES[mode]
    )
    (recording,) = tmp_path.glob("*.jsonl")
    audit = audit_path(recording)
    print(f"\n{trace.name} [{mode}]: {audit.narratives} narratives, {audit.failed} false; "
          f"claims {audit.claims}")  # fmt: skip
    assert replayed.narratives, "nothing was narrated"
    known = KNOWN_FALSE.get(f"{trace.name} [{mode}]", 0)
    assert audit.failed <= known, "\n".join(
        f"{f.text}\n    " + "\n    ".join(v.why for v in f.violations) for f in audit.findings
    )
