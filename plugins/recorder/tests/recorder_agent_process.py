"""A recording agent in its own process, for the crash and concurrency tests.

    python recorder_agent_process.py RECORD_DIR COUNT [--session-id ID] [--tag TAG]
        [--then exit|idle|loop] [--durability POLICY]

Records COUNT ``text`` events numbered from 0 (``--then loop`` keeps counting forever),
prints ``ready <session id>`` once they are emitted, then exits, idles or goes on.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from monologue.plugins import MonologuePluginManager, use_plugin_manager


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("record_dir")
    parser.add_argument("count", type=int)
    parser.add_argument("--session-id")
    parser.add_argument("--tag", default="agent")
    parser.add_argument("--then", choices=["exit", "idle", "loop"], default="exit")
    parser.add_argument("--durability", default="batch")
    args = parser.parse_args()

    import monologue_recorder

    from monologue import Session

    manager = MonologuePluginManager()
    manager.register(monologue_recorder, "recorder")
    with use_plugin_manager(manager):
        s = Session(
            args.tag,
            session_id=args.session_id,
            narrator="none",
            record_dir=args.record_dir,
            durability=args.durability,
        ).start()
        numbers = itertools.count() if args.then == "loop" else range(args.count)
        for number in numbers:
            s.emit("text", {"text": f"{args.tag} {number}", "seq": number})
            if number == args.count - 1:
                print(f"ready {s.id}", flush=True)
        if args.then == "idle":
            time.sleep(600)
        s.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
