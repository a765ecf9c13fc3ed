"""End to end, through the installed `monologue` command: every example session and every
Claude trace in ../shared replays, and the `--json` summary accounts for every tool call in
the file (counted here by walking the file's JSON, not with the readers). Every recording
under ../shared/traces replays, whatever its format, and is narrated. `monologue
watch` narrates a Claude Code transcript while it grows. Needs monologue-claude and
-template installed (tox env e2e), and the other readers for the traces in their formats;
the ../shared traces are skipped when absent."""

from __future__ import annotations

import functools
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from e2e_support import clean_environ, run_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "sessions"
SHARED = ROOT.parent / "shared" / "traces"
MONOLOGUE = Path(sys.executable).with_name("monologue")
NEEDED = {"claude", "template"}

pytestmark = pytest.mark.skipif(
    not NEEDED.issubset(ep.name for ep in entry_points(group="monologue")),
    reason=f"needs the {', '.join(sorted(NEEDED))} plugins installed",
)


def shared(folder: str) -> list[Any]:
    directory = SHARED / folder
    if not directory.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{directory} is absent"))]
    return [pytest.param(p, id=f"{folder}/{p.name}") for p in sorted(directory.iterdir())]


def every_trace() -> list[Any]:
    """Every recording under ../shared/traces (its notes, the Markdown files, are not)."""
    if not SHARED.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{SHARED} is absent"))]
    found = sorted(p for p in SHARED.rglob("*") if p.is_file() and p.suffix != ".md")
    return [pytest.param(p, id=str(p.relative_to(SHARED))) for p in found]


def examples() -> list[Any]:
    found = sorted(EXAMPLES.glob("*.jsonl"))
    assert {p.name for p in found} >= {
        "fix-retry-limit.claude.jsonl",
        "fix-retry-limit.monologue.jsonl",
    }
    return [pytest.param(p, id=f"examples/{p.name}") for p in found]


def messages(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, itself included, depth first."""
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from objects(item)


def tool_calls_in(path: Path) -> int:
    """Tool calls in a file: `tool_use` blocks (by id) in Claude files, `tool_call` events
    in monologue recordings."""
    found = list(objects(messages(path)))
    blocks = {o["id"] for o in found if o.get("type") in ("tool_use", "server_tool_use")}
    return len(blocks) + sum(1 for o in found if o.get("type") == "tool_call")


@pytest.fixture(scope="module")
def replay_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder every replay of this module runs with (none may write to it)."""
    return tmp_path_factory.mktemp("replay") / "data"


@pytest.fixture(scope="module")
def replayed(replay_data: Path) -> Callable[[Path], subprocess.CompletedProcess[str]]:
    """``monologue replay --json --narrator template PATH``, run once per file: the Claude
    traces are checked by both tests below, and replaying them twice proved nothing more."""
    env = clean_environ(MONOLOGUE_NO_CONFIG_FILE="1", MONOLOGUE_DATA_DIR=str(replay_data))

    @functools.cache
    def replay(path: Path) -> subprocess.CompletedProcess[str]:
        return run_command(
            [str(MONOLOGUE), "replay", "--json", "--narrator", "template", str(path)], env
        )

    return replay


@pytest.mark.parametrize(
    "path",
    [*examples(), *shared("claude-code-transcript"), *shared("claude-stream-json")],
)
def test_replay_accounts_for_every_tool_call(
    path: Path, replayed: Callable[[Path], subprocess.CompletedProcess[str]], replay_data: Path
) -> None:
    done = replayed(path)

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    assert summary["kind"] == "summary" and summary["problem"] is None
    assert summary["tool_calls"] == tool_calls_in(path) > 0
    assert summary["tool_results"] == summary["tool_calls"]
    narratives = lines[:-1]
    assert len(narratives) == summary["narratives"] > 0
    assert all(line["kind"] == "narrative" and line["text"] for line in narratives)
    # Nothing is recorded by a replay (nor by any other replay of this module).
    assert not (replay_data / "sessions").exists()


@pytest.mark.parametrize("path", every_trace())
def test_every_shared_trace_replays(
    path: Path, replayed: Callable[[Path], subprocess.CompletedProcess[str]]
) -> None:
    done = replayed(path)

    assert "unknown format" not in done.stderr
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["kind"] == "summary" and summary["problem"] is None
    assert summary["events"] > 0 and summary["narratives"] > 0


def test_watch_narrates_a_claude_code_transcript_as_it_grows(
    tmp_path: Path, env: dict[str, str]
) -> None:
    source = EXAMPLES / "fix-retry-limit.claude.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    live = tmp_path / "session.jsonl"
    live.write_bytes(b"".join(lines[:4]))

    watch = subprocess.Popen(
        [str(MONOLOGUE), "watch", "--json", "--idle-exit", "3", str(live)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    shown: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert watch.stdout is not None
        for line in watch.stdout:
            shown.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        first = json.loads(shown.get(timeout=60))
        assert first["kind"] == "narrative"
        with live.open("ab") as stream:
            for line in lines[4:]:
                stream.write(line)
                stream.flush()
        assert watch.wait(timeout=60) == 0
    finally:
        watch.kill()

    rest = []
    while not shown.empty():
        rest.append(json.loads(shown.get()))
    summary = rest[-1]
    assert summary["kind"] == "summary" and summary["problem"] is None
    assert summary["format"] == "claude"
    assert summary["tool_calls"] == tool_calls_in(source)
    # `rest` lacks the first narrative and holds the summary: as many lines as narratives.
    assert summary["narratives"] == len(rest) >= 3
