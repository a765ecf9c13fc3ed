"""A real decorated agent in its own process, recorded by the real recorder and narrated by
the template narrator under the buffer policy: the live session the browser tests watch.

    python web_agent_process.py STEPS [--pause SECONDS] [--go FILE] [--fail]

Prints ``started <session id>`` once its session exists, then waits for FILE to appear (when
given), then runs STEPS tool steps (a Read and its result each, the last one failing with
--fail), pausing between them so that narratives arrive one by one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from monologue import current, emit, monologue


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("steps", type=int)
    parser.add_argument("--pause", type=float, default=0.3)
    parser.add_argument("--go")
    parser.add_argument("--fail", action="store_true")
    args = parser.parse_args()

    @monologue("web-tester", narrator="template", durability="always", max_buffer_size=2)
    def agent() -> None:
        session = current()
        assert session is not None
        print(f"started {session.id}", flush=True)
        while args.go and not Path(args.go).exists():
            time.sleep(0.05)
        emit.text("I'll read the configuration files one by one.")
        for step in range(args.steps):
            call = emit.tool_call("Read", {"file_path": f"src/config_{step}.py"})
            failed = args.fail and step == args.steps - 1
            output = "PermissionError: denied" if failed else f"MAX_RETRIES = {step}\n" * 3
            if call is not None:
                emit.tool_result(call.data["tool_use_id"], output, is_error=failed)
            time.sleep(args.pause)

    agent()
    sys.exit(0)


if __name__ == "__main__":
    main()
