"""The agent run behind ``examples/sessions/fix-retry-limit.monologue.jsonl``.

An agent finds a hard-coded retry limit in ``client.py``, moves it into the settings, breaks
a test, fixes it and runs the suite. Run this file to record it again, through the real
recorder and the narrator in effect, with a few seconds between steps like a real agent:

    python plugins/recorder/tests/recorder_example_session.py examples/sessions/

The tests replay the committed example, and run :func:`fix_retry_limit` without pauses to
check that the example still matches this script.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from monologue import Session

EXAMPLE_NAME = "fix-retry-limit.monologue.jsonl"
TASK = "The API client gives up after 3 retries; make the retry limit configurable."

CLIENT = """import time

import httpx

MAX_RETRIES = 3


class Client:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def get(self, path: str) -> httpx.Response:
        for attempt in range(MAX_RETRIES):
            response = httpx.get(self.base_url + path)
            if response.status_code < 500:
                return response
            time.sleep(2**attempt)
        return response
"""

CONFIG = """from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    base_url: str = "https://api.example.com"
    timeout_s: float = 10.0
"""

FAILED_RUN = (
    "F...........                                                    [100%]\n"
    "FAILED tests/test_client.py::test_gives_up_after_max_retries - ImportError: "
    "cannot import name 'MAX_RETRIES' from 'acme.client'\n"
    "1 failed, 11 passed in 0.91s"
)
PASSED_RUN = "............                   [100%]\n12 passed in 0.84s"


def fix_retry_limit(s: Session, pause: Callable[[float], None] = time.sleep) -> None:
    """The agent's steps, with the pauses a model would take between them."""

    def tool(name: str, tool_input: dict[str, object], output: str, error: bool = False) -> None:
        call = s.tool_call(name, tool_input)
        pause(0.4)
        s.tool_result(call.data["tool_use_id"], output, is_error=error)
        pause(1.2)

    s.user_message(TASK)
    pause(1.5)
    s.thinking("The limit is probably a constant in the client; search for it first.")
    pause(1.0)
    tool(
        "Grep",
        {"pattern": "MAX_RETRIES", "path": "src/"},
        "src/acme/client.py:5:MAX_RETRIES = 3\n"
        "src/acme/client.py:13:        for attempt in range(MAX_RETRIES):",
    )
    tool("Read", {"file_path": "src/acme/client.py"}, CLIENT)
    s.text("The retry limit is hard-coded as MAX_RETRIES = 3 in client.py.")
    pause(0.8)
    tool("Read", {"file_path": "src/acme/config.py"}, CONFIG)
    tool(
        "Edit",
        {
            "file_path": "src/acme/config.py",
            "old_string": "    timeout_s: float = 10.0\n",
            "new_string": "    timeout_s: float = 10.0\n    max_retries: int = 3\n",
        },
        "The file src/acme/config.py has been updated.",
    )
    tool(
        "Edit",
        {
            "file_path": "src/acme/client.py",
            "old_string": "        for attempt in range(MAX_RETRIES):",
            "new_string": "        for attempt in range(self.settings.max_retries):",
        },
        "The file src/acme/client.py has been updated.",
    )
    tool("Bash", {"command": "pytest -q tests/test_client.py"}, FAILED_RUN, error=True)
    s.thinking("One test still imports the old constant; it should use the setting.")
    pause(0.8)
    tool(
        "Edit",
        {
            "file_path": "tests/test_client.py",
            "old_string": "from acme.client import MAX_RETRIES, Client",
            "new_string": "from acme.client import Client\nfrom acme.config import Settings",
        },
        "The file tests/test_client.py has been updated.",
    )
    tool(
        "Bash",
        {"command": "pytest -q"},
        "............                   [100%]\n12 passed in 0.84s",
    )
    s.text(
        "The retry limit now comes from Settings.max_retries (default 3, or MAX_RETRIES in "
        "the environment); all 12 tests pass."
    )


def record(folder: Path) -> Path:
    """Record the session with the installed plugins; returns the example's path."""
    from monologue import session

    with tempfile.TemporaryDirectory() as scratch:
        with session("coder", record_dir=scratch, meta={"task": TASK}) as s:
            fix_retry_limit(s)
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / EXAMPLE_NAME
        shutil.copyfile(Path(scratch) / f"{s.id}.jsonl", target)
    return target


if __name__ == "__main__":
    print(record(Path(sys.argv[1])))
