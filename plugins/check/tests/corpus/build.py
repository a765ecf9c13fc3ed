# ruff: noqa: E501, PLR0917  (a corpus: each case one long line of narrative and steps)
"""Writes claims.jsonl: one (narrative, events) case a line. Kept as code so that each case's
events read as the agent's steps; run it after editing (`python tests/corpus/build.py`)."""

import json
from pathlib import Path

CASES = []


def case(cid, truth, cls, narrative, events, before=(), agent="coder"):
    CASES.append(
        {
            "id": cid,
            "true": truth,
            "class": cls,
            "narrative": narrative,
            "events": events,
            "before": list(before),
            "agent": agent,
        }
    )


def call(tool, uid, **inp):
    return ["call", tool, uid, inp]


def res(uid, out, err=False):
    return ["result", uid, out, err]


def user(text, origin=None):
    return ["user", text, origin]


def done(ending="completed"):
    return ["done", ending]


BUNDLER = """> app@1.0.0 build
> esbuild src/index.js --bundle --outfile=dist/app.js

✘ [ERROR] Could not resolve "js/app.js"

    src/index.js:3:7:
      3 │ import "js/app.js";
        ╵        ~~~~~~~~~~~~

1 error
    at failureErrorWithLog (node_modules/esbuild/lib/main.js:1651:15)
  errors: [Getter/Setter],"""
MYPY = """check complexity.........................................................Passed
mypy.....................................................................Failed
- hook id: mypy
- exit code: 1

src/client.py:41: error: Argument 1 to "retry" has incompatible type "str"; expected "int"  [arg-type]
Found 1 error in 1 file (checked 12 source files)
:error"""
EDIT_MISS = "<tool_use_error>String to replace not found in file.\nString: MAX_RETRIES = 3\nend</tool_use_error>"
SWE_EDIT = """Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.

ERRORS:
- E999 IndentationError: unexpected indent

This is how your edit would have looked if applied
-------------------------------------------------
[File: /repo/numpy_handler.py (120 lines total)]
-------------------------------------------------
Your changes have NOT been applied. Please fix your edit command and try again.
DO NOT re-run the same failed edit command. Running it again will lead to the same error."""
GIT_IGNORED = 'The following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: "git config advice.addIgnoredFile false"\nExit code 1'
MIX_CRASH = """** (Mix) Could not start application spotter: Spotter.Application.start(:normal, []) returned an error: shutdown: failed to start child: SpotterWeb.Endpoint
    ** (EXIT) already started: #PID<0.512.0>"""
PYTEST_OK = (
    "............................................................ [100%]\n297 passed in 4.12s"
)
PYTEST_FAIL = "FAILED tests/test_client.py::test_retry_limit - AssertionError: assert 3 == 5\n12 failed, 115 passed in 9.80s"
GREP_CTX = """src/client.py-38-
src/client.py-39-class Client:
src/client.py:40:    MAX_RETRIES = 3
src/client.py-41-
src/client.py-42-    def __init__(self):
--
[Showing results with pagination = limit: 20]"""
CANCEL = "<tool_use_error>Sibling tool call errored</tool_use_error>"
COMPACT = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: ..."
NOTIFY = '<task-notification><task-id>bae407b</task-id><status>completed</status><summary>Background command "mix phx.server" completed</summary></task-notification>'

# --- quotes: the right error ----------------------------------------------------------
ev = [call("Bash", "b1", command="npm run build"), res("b1", BUNDLER, True)]
case(
    "quote-bundler-true",
    True,
    "quote",
    'I tried to build with `npm run build`, but it failed: ✘ [ERROR] Could not resolve "js/app.js".',
    ev,
)
case(
    "quote-bundler-false",
    False,
    "wrong error line",
    "I tried to build with `npm run build`, but it failed: errors: [Getter/Setter],.",
    ev,
)
ev = [
    call("Bash", "p1", command="git commit -m 'Make retries configurable'"),
    res("p1", MYPY, True),
]
case(
    "quote-precommit-true",
    True,
    "quote",
    'My commit failed: src/client.py:41: error: Argument 1 to "retry" has incompatible type "str".',
    ev,
)
case("quote-precommit-false", False, "wrong error line", "My commit failed: :error.", ev)
ev = [
    call(
        "Edit",
        "e1",
        file_path="/p/src/client.py",
        old_string="MAX_RETRIES = 3",
        new_string="MAX_RETRIES = cfg",
    ),
    res("e1", EDIT_MISS, True),
]
case(
    "quote-edit-miss-true",
    True,
    "quote",
    "I tried to edit src/client.py, but it failed: String to replace not found in file.",
    ev,
)
case(
    "quote-edit-miss-false",
    False,
    "wrong error line",
    "I tried to edit src/client.py, but it failed: end</tool_use_error>.",
    ev,
)
ev = [
    call("str_replace_editor", "s1", command="str_replace", path="/repo/numpy_handler.py"),
    res("s1", SWE_EDIT, True),
]
case(
    "quote-swe-true",
    True,
    "quote",
    "I tried to edit /repo/numpy_handler.py, but it failed: E999 IndentationError: unexpected indent.",
    ev,
)
case(
    "quote-swe-false",
    False,
    "wrong error line",
    "I tried to edit /repo/numpy_handler.py, but it failed: DO NOT re-run the same failed edit command.",
    ev,
)
ev = [call("Bash", "g1", command="git add dist"), res("g1", GIT_IGNORED, True)]
case(
    "quote-git-true",
    True,
    "quote",
    "I tried to run `git add dist`, but it failed: The following paths are ignored by one of your .gitignore files.",
    ev,
)
case(
    "quote-git-false",
    False,
    "wrong error line",
    "I tried to run `git add dist`, but it failed: Exit code 1.",
    ev,
)
ev = [
    call("Bash", "c1", command="cat config.toml"),
    res("c1", "cat: config.toml: No such file or directory", True),
]
case(
    "quote-invented-error",
    False,
    "invented error",
    "I tried to read the config with `cat config.toml`, but it failed: PermissionError: access denied.",
    ev,
)
case(
    "quote-elided-true",
    True,
    "quote",
    "I tried to run `cat config.toml`, but it failed: cat: config.toml: No such file…",
    ev,
)

# --- asks -----------------------------------------------------------------------------
ev = [user("make the retry limit configurable", "user")]
case("ask-real-true", True, "ask", 'You asked me: "make the retry limit configurable".', ev)
case("ask-quote-invented", False, "invented ask", 'You asked me: "rewrite the client in Rust".', ev)
ev = [user(COMPACT, "compaction")]
case(
    "ask-compaction-false",
    False,
    "injected as ask",
    'You asked me: "This session is being continued from a previous…".',
    ev,
)
case("ask-compaction-true", True, "ask", "(The conversation was compacted.)", ev)
ev = [user(NOTIFY)]
case("ask-notification-false", False, "injected as ask", "You asked me: <task-notification>.", ev)
ev = [user("check quota", "side_request")]
case("ask-side-request-false", False, "injected as ask", 'You asked me: "check quota".', ev)
ev = [user("check again", "user")]
case("ask-again-false", False, "again for a first ask", 'Again, you asked me: "check again".', ev)
case(
    "ask-again-true",
    True,
    "ask",
    'Again, you asked me: "check again".',
    ev,
    before=[user("check again", "user")],
)
ev = [
    user("tackle the new beads", "user"),
    call("Read", "r1", file_path="/p/beads.md"),
    res("r1", "# beads"),
]
case(
    "ask-then-read-true", True, "ask", 'You asked me: "tackle the new beads". I read beads.md.', ev
)

# --- outcomes -------------------------------------------------------------------------
ev = [call("Bash", "m1", command="mix test | tail -50"), res("m1", MIX_CRASH, False)]
case(
    "outcome-pass-after-crash",
    False,
    "pass for a crash",
    "I ran the test suite with `mix test | tail -50`; the tests passed.",
    ev,
)
case(
    "outcome-crash-true",
    True,
    "outcome",
    "The test run with `mix test | tail -50` crashed: ** (Mix) Could not start application spotter.",
    ev,
)
ev = [call("Bash", "t1", command="pytest -q"), res("t1", PYTEST_OK)]
case("outcome-pass-true", True, "outcome", "I ran `pytest -q`; all 297 passed.", ev)
case("outcome-fail-on-pass", False, "wrong outcome", "I ran `pytest -q`; it failed.", ev)
ev = [call("Bash", "t2", command="pytest -q"), res("t2", PYTEST_FAIL, True)]
case("outcome-fail-true", True, "outcome", "I ran `pytest -q`; 12 of 127 tests failed.", ev)
case("outcome-pass-on-fail", False, "wrong outcome", "I ran `pytest -q`; the tests passed.", ev)
ev = [call("Bash", "t3", command="pytest -q"), res("t3", "12 failed, 115 passed in 9.8s", True)]
case("outcome-fixed-false", False, "fixed without evidence", "I fixed the failing tests.", ev)
ev2 = [call("Bash", "t4", command="pytest -q"), res("t4", PYTEST_OK)]
case(
    "outcome-fixed-true",
    True,
    "outcome",
    "I ran `pytest -q` again and fixed the failures: all 297 passed.",
    ev2,
    before=[call("Bash", "t3", command="pytest -q"), res("t3", PYTEST_FAIL, True)],
)
ev = [
    call("Bash", "k1", command="mix credo --strict"),
    res(
        "k1",
        "Checking 42 source files ...\n  Refactoring opportunities\n┃ [F] ↗ Function is too complex (ABC size is 32, max is 30).\n1 refactoring opportunity",
        True,
    ),
]
case(
    "outcome-couldnt-run-false",
    False,
    "couldn't run for a run",
    "I couldn't run `mix credo --strict`.",
    ev,
)
case(
    "outcome-ran-true",
    True,
    "outcome",
    "I ran `mix credo --strict`; it reported 1 refactoring opportunity.",
    ev,
)
ev = [
    call("Bash", "x1", command="frobnicate --all"),
    res("x1", "bash: frobnicate: command not found", True),
]
case(
    "outcome-couldnt-run-true",
    True,
    "outcome",
    "I couldn't run `frobnicate --all`: command not found.",
    ev,
)
ev = [call("Read", "r2", file_path="/p/a.py"), res("r2", "x = 1"), done("interrupted")]
case("outcome-done-after-interrupt", False, "done after interruption", "I read a.py. I'm done.", ev)
case("outcome-interrupted-true", True, "outcome", "I read a.py. You interrupted me.", ev)
ev = [call("Read", "r3", file_path="/p/a.py"), done("cut_off")]
case("outcome-done-cut-off", False, "done after a cut-off", "I'm reading a.py. I'm done.", ev)
ev = [call("Read", "r4", file_path="/p/a.py"), res("r4", "x = 1"), done("completed")]
case("outcome-done-true", True, "outcome", "I read a.py. I'm done after 1 tool call.", ev)
ev = [call("Read", "r5", file_path="/p/a.py"), res("r5", "x = 1")]
case(
    "outcome-interrupted-false",
    False,
    "invented interruption",
    "I read a.py, but you interrupted me.",
    ev,
)

# --- counts ---------------------------------------------------------------------------
ev = [call("Bash", "b1", command="pytest"), res("b1", "2 failed", True)] + [
    x
    for i in range(2, 9)
    for x in (call("Read", f"b{i}", file_path=f"/p/f{i}.py"), res(f"b{i}", CANCEL, True))
]
case(
    "count-cancelled-false",
    False,
    "wrong count",
    "I ran `pytest`; 2 tests failed, and 1 parallel call was cancelled.",
    ev,
)
case(
    "count-cancelled-true",
    True,
    "count",
    "I ran `pytest`; 2 tests failed, and 7 parallel calls were cancelled.",
    ev,
)
ev = [
    call("BashOutput", "j1", bash_id="bash_1"),
    res("j1", "running"),
    call("BashOutput", "j2", bash_id="bash_1"),
    res("j2", "done"),
]
case("count-jobs-false", False, "wrong count", "I checked 2 background jobs.", ev)
case("count-jobs-true", True, "count", "I checked 1 background job twice.", ev)
ev = [call("Grep", "g1", pattern="MAX_RETRIES", path="/p/src", **{"-C": 2}), res("g1", GREP_CTX)]
case(
    "count-grep-context-false",
    False,
    "wrong count",
    "I searched for `MAX_RETRIES` in src and found 11 matches.",
    ev,
)
case("count-grep-true", True, "count", "I searched for `MAX_RETRIES` in src and found 1 match.", ev)
ev = [
    call("Read", "a1", file_path="/p/a.py"),
    res("a1", "a"),
    call("Read", "a2", file_path="/p/b.py"),
    res("a2", "b"),
    call("Edit", "a3", file_path="/p/a.py"),
    res("a3", "ok"),
]
case("count-files-true", True, "count", "I read 2 files and edited a.py.", ev)
case("count-files-false", False, "wrong count", "I read 3 files and edited a.py.", ev)
ev = (
    [call("Edit", f"e{i}", file_path=f"/p/m{i}.py") for i in range(1, 14)]
    + [res(f"e{i}", "ok") for i in range(1, 14)]
    + [
        call("Write", "w1", file_path="/p/new.py"),
        res("w1", "ok"),
        call("Bash", "c1", command="git commit -m x"),
        res("c1", "[main 1a2b3c4] x"),
    ]
)
case(
    "count-more-steps-false",
    False,
    "steps hidden",
    "I ran `git commit -m x` and took 2 more steps.",
    ev,
)
case("count-more-steps-true", True, "count", "I ran `git commit -m x` and took 14 more steps.", ev)
ev = [
    call("Read", "r1", file_path="/p/a.py"),
    res("r1", "a"),
    call("Bash", "r2", command="ls"),
    res("r2", "a.py", False),
    done(),
]
case("count-toolcalls-true", True, "count", "I ran `ls`. I'm done after 2 tool calls.", ev)
case("count-toolcalls-false", False, "wrong count", "I ran `ls`. I'm done after 5 tool calls.", ev)
case("count-hallucinated-tests", False, "wrong count", "I ran `ls`; 12 of 40 tests failed.", ev)

# --- subjects -------------------------------------------------------------------------
ev = [call("Read", "r1", file_path="/home/u/p/src/client.py"), res("r1", "MAX_RETRIES = 3")]
case("subject-true", True, "subject", "I read src/client.py and found the hard-coded limit.", ev)
case("subject-home-true", True, "subject", "I read ~/p/src/client.py.", ev)
case("subject-invented-file", False, "invented file", "I read src/client.py and src/config.py.", ev)
case(
    "subject-invented-url",
    False,
    "invented file",
    "I read src/client.py and fetched https://example.com/docs.",
    ev,
)
ev = [call("Bash", "l1", command="ls -F"), res("l1", "a/ b/")]
case("again-once-false", False, "again for a first run", "Again, I ran `ls -F`.", ev)
case(
    "again-true",
    True,
    "again",
    "Again, I ran `ls -F`.",
    ev,
    before=[call("Bash", "l0", command="ls -F"), res("l0", "a/")],
)
ev = [call("Edit", "e1", file_path="/p/a.py"), res("e1", "ok")]
case(
    "action-invented-work",
    False,
    "summary of work never done",
    "I edited a.py, ran the tests and committed the change.",
    ev,
)
case("action-true", True, "action", "I edited a.py.", ev)

# --- voice and plain words -------------------------------------------------------------
ev = [call("Bash", "u1", command="bd update B-12 --status in_progress"), res("u1", "Updated B-12")]
case(
    "voice-stale-intent",
    False,
    "stale intention",
    "I ran `bd update B-12 --status in_progress`. Let me mark this task as in progress.",
    ev,
)
case(
    "voice-past-true",
    True,
    "voice",
    "I ran `bd update B-12 --status in_progress` and marked the task in progress.",
    ev,
)
ev = [call("Write", "w1", file_path="/p/reproduce.py"), res("w1", "File created")]
case(
    "voice-lets-false",
    False,
    "agent voice",
    "I wrote reproduce.py. Now let's paste in the example code.",
    ev,
)
case("voice-progressive-false", False, "finished told as ongoing", "I'm writing reproduce.py.", ev)
case("voice-tag-false", False, "raw markup", "I wrote reproduce.py <tool_use_error>.", ev)
ev = [
    call(
        "Task",
        "t1",
        description="Find retry logic",
        subagent_type="Explore",
        prompt="find the retry loop",
    ),
    res("t1", "Now I have all the information I need. The retry loop is in client.py:40."),
]
case(
    "voice-filler-false",
    False,
    "filler as report",
    "I had a sub-agent look for the retry logic; it reported: Now I have all the information I need.",
    ev,
)
case(
    "voice-findings-true",
    True,
    "voice",
    'I had the explore sub-agent find the retry logic; it reported: "The retry loop is in client.py:40".',
    ev,
)
ev = [
    call("Bash", "p1", command='python3 -c "import a; print(a.x)"'),
    res("p1", "1"),
    call("Bash", "p2", command='python3 -c "import b; print(b.y)"'),
    res("p2", "2"),
]
case(
    "elision-twins-false",
    False,
    "commands elided alike",
    'I ran 2 commands: `python3 -c " …` and `python3 -c " …`.',
    ev,
)
case(
    "elision-distinct-true",
    True,
    "elision",
    'I ran 2 commands: `python3 -c "import a; …` and `python3 -c "import b; …`.',
    ev,
)
ev = [call("Read", "r1", file_path="/p/a.py"), res("r1", "x")]
case("internal-id-false", False, "internal id", 'The "a2898e3" sub-agent read a.py.', ev)

# --- true narratives in the shapes real traces take ------------------------------------
ev = [call("Bash", "q1", command="ls -la"), call("Bash", "q2", command="cat /nonexistent/file.txt")]
case(
    "parallel-results-true",
    True,
    "count",
    "I ran 2 commands: `ls -la` and `cat /nonexistent/file.txt`; 1 failed. When running `cat /nonexistent/file.txt`, I got: cat: /nonexistent/file.txt: No such file or directory.",
    [
        res("q1", "total 8"),
        res("q2", "cat: /nonexistent/file.txt: No such file or directory", True),
    ],
    before=ev,
)
ev = [
    call("Glob", "g1", pattern="**/*.ts"),
    res("g1", "a.ts\nb.ts\nc.ts"),
    call("Glob", "g2", pattern="**/*.tsx"),
    res("g2", "d.tsx\ne.tsx"),
    call("Glob", "g3", pattern="**/*.test.ts"),
    res("g3", "No files found"),
]
case(
    "found-sum-true",
    True,
    "count",
    "I looked for files matching **/*.ts, **/*.tsx and **/*.test.ts; found 5.",
    ev,
)
case(
    "subagent-count-true",
    True,
    "count",
    'The "Test file operations" sub-agent ran 2 commands: `ls -la` and `pwd`.',
    [
        call("Bash", "s1", command="ls -la"),
        res("s1", "total 1"),
        call("Bash", "s2", command="pwd"),
        res("s2", "/p"),
    ],
    agent="Test file operations",
)
ev = [
    call("Bash", "x1", command="python3 tests/missing_colon.py"),
    res(
        "x1",
        "  File \"tests/missing_colon.py\", line 4\n    def division(a: float, b: float) -> float\n                                             ^\nSyntaxError: expected ':'",
        True,
    ),
]
case(
    "syntax-error-true",
    True,
    "quote",
    "I tried to run `python3 tests/missing_colon.py`, but it failed: SyntaxError: expected ':'.",
    ev,
)
ev = [
    call("WebFetch", "w1", url="https://github.com/xtermjs/xterm.js/issues/1343", prompt="scroll"),
    res("w1", "Issue about scrolling"),
]
case("url-true", True, "subject", "I fetched https://github.com/xtermjs/xterm.js/issues/1343.", ev)
ev = [
    call("Bash", "d1", command="mix phx.server", run_in_background=True),
    res("d1", "Command running in background with ID: bae407b"),
]
case("background-true", True, "outcome", "I started `mix phx.server` in the background.", ev)
ev = [call("Bash", "r1", command="rm reproduce_bug.py"), res("r1", ""), done()]
case(
    "final-true",
    True,
    "outcome",
    "I ran `rm reproduce_bug.py`. I'm done after 9 tool calls; 4 failed.",
    ev,
    before=[
        x
        for i in range(8)
        for x in (
            call("Bash", f"o{i}", command=f"step {i}"),
            res(f"o{i}", "boom" if i < 4 else "ok", i < 4),
        )
    ],
)

out = Path(__file__).with_name("claims.jsonl")
out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
print(f"{len(CASES)} cases ({sum(c['true'] for c in CASES)} true) -> {out}")
