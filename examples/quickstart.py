"""monologue in one file: a small offline agent, decorated with @monologue, that prints its
own narration.

    pip install monologue-core monologue-buffer monologue-template
    python examples/quickstart.py

The agent looks around this repository the way a coding agent would: it lists the examples,
reads two files, searches them, runs a real command, and hits a failing one. Each step is
reported with ``emit.tool_call`` / ``emit.tool_result``; monologue buffers the events, the
buffer plugin decides when to speak, and the template narrator says what happened, in the
first person, without an API key. Drop ``narrator="template"`` and install
monologue-anthropic with ANTHROPIC_API_KEY set to hear Claude Haiku instead.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monologue import emit, monologue

ROOT = Path(__file__).resolve().parent.parent


THINKING_S = 0.3
"""A model thinks for seconds between tool calls; this agent pauses briefly instead, so the
narrator speaks about the steps as they happen rather than all at once at the end."""


def use_tool(name: str, tool_input: dict[str, Any], run: Callable[[], str]) -> str:
    """Run one tool step and report its call and result to the current session."""
    time.sleep(THINKING_S)
    call = emit.tool_call(name, tool_input)
    try:
        output, failed = run(), False
    except Exception as exc:
        output, failed = f"{type(exc).__name__}: {exc}", True
    if call is not None:
        emit.tool_result(call.data["tool_use_id"], output, is_error=failed)
    return output


def shell(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr.strip() or f"exit code {done.returncode}")
    return done.stdout


@monologue("coder", narrator="template", on_narrative=lambda n: print(f"  » {n.text}"))
def explore(question: str) -> str:
    emit.text(f"I'll look through the examples to answer: {question}")
    found = use_tool(
        "Glob",
        {"pattern": "examples/**/*.*"},
        lambda: "\n".join(
            str(path.relative_to(ROOT)) for path in sorted(ROOT.glob("examples/**/*.*"))
        ),
    )
    sources = {}
    for name in found.splitlines()[:2]:
        sources[name] = use_tool("Read", {"file_path": name}, (ROOT / name).read_text)
    hits = [name for name, text in sources.items() if re.search(r"retr(y|ies)", text)]
    use_tool(
        "Grep",
        {"pattern": "retr(y|ies)", "path": "examples"},
        lambda: f"Found {len(hits)} files\n" + "\n".join(hits),
    )
    version = use_tool(
        "Bash",
        {"command": "python -c 'import platform; print(platform.python_version())'"},
        lambda: shell([sys.executable, "-c", "import platform; print(platform.python_version())"]),
    )
    use_tool(
        "Bash",
        {"command": "python -c 'import retry_helpers'"},
        lambda: shell([sys.executable, "-c", "import retry_helpers"]),
    )
    time.sleep(THINKING_S)
    answer = f"{len(hits)} of {len(sources)} example files talk about retries"
    answer += f" (checked with Python {version.strip()})."
    emit.text(f"Done looking: {answer}")
    return answer


if __name__ == "__main__":
    question = "which examples talk about retries?"
    print(f"question: {question}")
    print(f"answer: {explore(question)}")
