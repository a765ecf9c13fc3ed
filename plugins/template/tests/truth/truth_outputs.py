"""Tool outputs and injected messages of the truth corpus, as real tools and agents write
them (issue 23's examples, the shared traces)."""

from __future__ import annotations

ESBUILD = (
    'Exit code 1\n✘ [ERROR] Could not resolve "js/app.js"\n\n1 error\n'
    "/app/assets/node_modules/esbuild/lib/main.js:1651\n  let error = new Error(text);\n"
    'Error: Build failed with 1 error:\nerror: Could not resolve "js/app.js"\n'
    "    at failureErrorWithLog (/app/assets/node_modules/esbuild/lib/main.js:1651:15)\n"
    "  errors: [Getter/Setter],\n  warnings: [Getter/Setter]\n}"
)
SWE_EDIT = (
    "Your proposed edit has introduced new syntax error(s). Please read this error message "
    "carefully and then retry editing the file.\n\nERRORS:\n- E999 IndentationError: "
    "unexpected indent\n\nThis is how your edit would have looked if applied\n"
    "-------------------------------------------------\n"
    "Your changes have NOT been applied. Please fix your edit command and try again.\n"
    "DO NOT re-run the same failed edit command. Running it again will lead to the same error."
)
GIT_IGNORED = (
    "Exit code 1\nThe following paths are ignored by one of your .gitignore files:\ndeps\n"
    "hint: Use -f if you really want to add them."
)
MIX_CRASH = (
    "** (Mix) Could not start application spotter: Spotter.Application.start(:normal, []) "
    "returned an error: shutdown: failed to start child: Spotter.Repo\n"
    "    ** (EXIT) an exception was raised:\n"
    "        ** (DBConnection.ConnectionError) connection refused"
)
COMPACTION = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis: the user asked for a parser."
)
NOTIFICATION = (
    "<task-notification>\n<task-id>bae407b</task-id>\n<status>completed</status>\n"
    '<summary>Background command "Start Phoenix server" completed (exit code 0)</summary>\n'
    "</task-notification>\nRead the output file to retrieve the result: "
    "/tmp/claude/tasks/bae407b.output"
)
CREDO = (
    "Exit code 2\nChecking 42 source files ...\n\n  Code Readability\n┃\n"
    "┃ [R] → Modules should have a @moduledoc tag.\n┃       lib/spotter/parser.ex:1:11\n\n"
    "123 mods/funs, found 1 code readability issue."
)
GREP_CONTEXT = "\n".join(
    ["lib/a.ex-10-  defp x do", "lib/a.ex:11:    retry(3)"]
    + [f"lib/a.ex-{n}-  line {n}" for n in range(12, 21)]
    + ["", "[Showing results with pagination = limit: 20, offset: 0]"]
)
CANCELLED = "<tool_use_error>Sibling tool call errored</tool_use_error>"
