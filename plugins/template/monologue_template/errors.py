"""The line of a failing output that says what went wrong.

Tools say it in a handful of shapes, and the extractor looks for them by strength: a
SWE-agent ``ERRORS:`` block, a bundler's ``✘ [ERROR]``, a compiler's ``file:line:col:
error: message``, git's ``fatal:``, an Elixir ``** (KeyError) ...``, a Go ``panic:``, the
last exception line of a Python or JS traceback, then ``error:`` lines, test runners'
failure summaries, and lines that name a failure ("No such file or directory"). What
surrounds the error is never quoted for it: advice ("DO NOT re-run ..."), separators,
stack frames, code listings and data dumps (``errors: [Getter/Setter],``), nor Claude
Code's ``Exit code 1`` header when the output says more. ``<tool_use_error>`` tags are
dropped, keeping their content.
"""

from __future__ import annotations

import functools
import re

from monologue.redact import redact_text

from .wording import clip, split_sentences

__all__ = ["error_excerpt", "has_crash"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TAGS = re.compile(r"</?tool_use_error>")
_SWE_ERRORS = re.compile(r"^ERRORS:\s*$")

# Lines that never say what went wrong.
_NOISE = re.compile(
    r"^(?:[-=_*~#+.─━│┃╭╰╮╯|\\/<> ]{3,}$"  # separators, rules, box drawing
    r"|\s*at\s+\S.*(?:\)|:\d+)$"  # JS and Java stack frames
    r"|\s*File \".*\", line \d+"  # Python frames
    r"|\s+\(?[\w.]+\s*\d*\.?\d*\)? [\w/.-]+\.exs?:\d+"  # Elixir frames
    r"|\s*goroutine \d+ \[|\s*[\w/.-]+\.go:\d+ \+0x"  # Go frames
    r"|\d+:\s"  # numbered code listings ("12:    x = 1")
    r"|\s*[\w$]+: \[(?:Getter|Setter|Object|Array|Function)"  # JS object dumps
    r"|\s*[{}\[\]()]+,?$"  # brackets of a dump
    r"|\s*:?\w+\s*$"  # a lone word or atom (":error", "FAIL")
    r"|\s*\^+~*\s*$"  # carets under a code line
    r"|\s*\d+ \|"  # rustc, tsc and Elixir code excerpts ("12 | let x")
    r"|\s*\|\s*[\^~-]"  # their carets
    r"|Traceback \(most recent call last\)"
    r"|During handling of the above exception|The above exception was the direct cause"
    r")",
)
# Advice to the agent, hook chatter and tool boilerplate: not the error itself.
_ADVICE = re.compile(
    r"^\s*(?:DO NOT|Please\b|You (?:either|should|can|may|must)|Your changes have NOT|"
    r"This is (?:how|the original)|Try\b|To (?:replace|fix|see|resolve|get)\b|"
    r"For more information|Run with|Use `?-|Rerun|Re-run|Consider|If you|Make sure|"
    r"Did you mean|note:|help:|Read the output file|See\b|Learn more|npm ERR! A complete log|"
    r"\(Use `node --trace|Node\.js v\d|Note:|- hook id:|- exit code:|"
    r"Exit code -?\d+\s*$|\[?File: .* lines? total\]?$|\(\d+ more lines? (?:above|below)\)$)",
    re.IGNORECASE,
)

# What each shape scores; the strongest wins. Exceptions keep the last such line (the one
# a chain of tracebacks ends with); every other shape its first.
_FAILURE_WORDS = (
    r"No such file|not found|does not exist|doesn't exist|denied|not permitted|"
    r"cannot|can't|could not|couldn't|unable to|refused|timed out|invalid|"
    r"not allowed|is ignored|are ignored|was blocked|failed|failure|"
    r"unexpected|missing|undefined|conflict|rejected|aborting|error"
)
_SHAPES: list[tuple[int, bool, re.Pattern[str]]] = [
    (90, False, re.compile(r"^\s*(?:✘\s*)?\[ERROR\]\s*(.+)$")),
    (90, False, re.compile(r"^\s*✘\s+(.+)$")),
    (90, False, re.compile(r"^\s*(\S+:\d+(?::\d+)?:?\s*(?:fatal )?error\b.*)$", re.IGNORECASE)),
    (90, False, re.compile(r"^\s*(error\[E\d+\]:.+)$")),
    (90, False, re.compile(r"^\s*fatal:\s*(.+)$", re.IGNORECASE)),
    (90, False, re.compile(r"^\s*\*\* \((\w[\w.]*)\) (.+)$")),
    (90, False, re.compile(r"^\s*(panic: .+)$")),
    (90, False, re.compile(r"^\s*(E\d{3,4} .+)$")),  # flake8 codes in SWE-agent's block
    (88, False, re.compile(r"^\s*E {2,}(\S.+)$")),  # pytest's exception lines
    (
        86,
        True,
        re.compile(
            r"^\s*((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)"
            r"(?:\[\w+\])?(?::\s.*|:?\s*$))"
        ),
    ),
    (84, False, re.compile(r"^\s*(?:error|ERROR|Error)\s*:\s*(.+)$")),
    (84, False, re.compile(r"^\s*(ERR_\w+.*|npm ERR! (?!code|errno|A complete).+)$")),
    (80, False, re.compile(r"^\s*(FAILED \S+.*|--- FAIL: .+|\d+\) test .+)$")),
    (80, False, re.compile(r"^\s*● (.+)$")),  # jest's failed test
    (80, False, re.compile(r"^\s*┃?\s*\[[A-Z]\] \S (.+)$")),  # credo's issues
    (78, False, re.compile(r"^\s*(\S+\.\w+:\d+(?::\d+)?:\w*)$")),  # message on the next line
    (78, False, re.compile(r"^\s*(\S+\.\w+:\d+:\d+:\s*\S.*)$")),  # file:line:col: message
    (60, False, re.compile(rf"(.*(?:{_FAILURE_WORDS}).*)", re.IGNORECASE)),
    (20, False, re.compile(r"^\s*hint:\s*(.+)$")),
]
_MENTION = len(_SHAPES) - 2
"""The shape of a line that only mentions a failure: the whole line (up to a line break,
which ``.`` stops at) when it has one of the words. Found with a search for the words
rather than ``match``, whose ``.*`` tries every word at every position of a line that has
none: most of an excerpt's cost."""
_MENTIONS_FAILURE = re.compile(_FAILURE_WORDS, re.IGNORECASE)
_FAILURE_LOWER = tuple(word.lower() for word in _FAILURE_WORDS.split("|"))
"""The words in lower case: in an ASCII line, case-insensitive is lower-case containment
(outside ASCII, ``re.IGNORECASE`` folds more, such as the Kelvin sign to ``k``)."""


def _alternative(pattern: re.Pattern[str]) -> str:
    flags = "(?i:" if pattern.flags & re.IGNORECASE else "(?:"
    return f"{flags}{pattern.pattern})"


# Every line is tried against the noise, the advice, then each shape in turn; one
# alternation does it up to the mention of a failure in one call, and its first
# alternative that matches is the one the calls in that order would have found (``match``
# tries alternatives in order).
_LINE = re.compile(
    "|".join(
        f"(?P<_{index}>{_alternative(pattern)})"
        for index, pattern in enumerate(
            [_NOISE, _ADVICE, *(shape for _, _, shape in _SHAPES[:_MENTION])]
        )
    )
)
_SKIPPED = 2
"""Alternatives of ``_LINE`` that mark a line never quoted (noise, advice)."""
_GROUPS = [
    (_LINE.groupindex[f"_{index + _SKIPPED}"], shape.groups)
    for index, (_, _, shape) in enumerate(_SHAPES[:_MENTION])
]
"""Where each shape's own groups start in ``_LINE``, and how many it has."""

_PREFIX = re.compile(r"^(?:✘\s*)?(?:\[ERROR\]\s*|(?:error|fatal|ERROR|Error)\s*:\s*)(?=\S)")
_STRONG = 84
_LOCATION = re.compile(r"^\S+\.\w+:\d+(?::\d+)?:\w*$")


def _lines(output: str) -> list[str]:
    text = _ANSI.sub("", output) if "\x1b[" in output else output  # most have no colour
    if "tool_use_error>" in text:
        text = _TAGS.sub("\n", text)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _scored(lines: list[str]) -> tuple[int, int, str] | None:
    """The strongest line: ``(score, index, text)``."""
    best: tuple[int, int, str] | None = None
    in_errors = False
    for index, line in enumerate(lines):
        if line.startswith("ERRORS:") and _SWE_ERRORS.match(line):
            in_errors = True
            continue
        if in_errors:
            if line.lstrip().startswith("- "):
                found = (100, index, line.lstrip()[2:])
                if best is None or best[0] < 100:
                    best = found
                continue
            in_errors = False
        shape = _shape_of(line)
        if shape is None:
            continue
        score, last, text = shape
        if best is None or score > best[0] or (score == best[0] and last):
            best = (score, index, text)
    return best


def _shape_of(line: str) -> tuple[int, bool, str] | None:
    """The first shape ``line`` has, as ``(score, last, text)``; ``None`` for noise, advice
    or no shape."""
    match = _LINE.match(line)
    if match is not None and match.lastgroup is not None:
        which = int(match.lastgroup[1:]) - _SKIPPED
        if which < 0:
            return None  # noise or advice
        score, last, shape = _SHAPES[which]
        start, count = _GROUPS[which]
        groups = match.groups()[start : start + count]
        if shape.pattern.startswith(r"^\s*\*\* \("):  # Elixir: "KeyError: key :a not found"
            return score, last, f"{groups[0]}: {groups[1]}"
        return score, last, " ".join(group for group in groups if group)
    head = line.partition("\n")[0]
    if _mentions_failure(head):
        score, last, _ = _SHAPES[_MENTION]
        return score, last, head
    for score, last, shape in _SHAPES[_MENTION + 1 :]:
        match = shape.match(line)
        if match is not None:
            return score, last, " ".join(group for group in match.groups() if group)
    return None


def _mentions_failure(text: str) -> bool:
    if text.isascii():  # a dozen substring searches beat one case-blind regex search
        lower = text.lower()
        return any(word in lower for word in _FAILURE_LOWER)
    return _MENTIONS_FAILURE.search(text) is not None


def _first_plain(lines: list[str]) -> str:
    for line in lines:
        if not (_NOISE.match(line) or _ADVICE.match(line)):
            return line
    return ""


@functools.lru_cache(maxsize=64)  # a failure is worded several times per narration
def error_excerpt(output: str, limit: int = 90) -> str:
    """The error ``output`` states, on one line (``""`` when it says nothing): ``Could not
    resolve "js/app.js"``, ``KeyError: 'retries'``, ``src/a.py:3:1: F401 'os' imported but
    unused``."""
    lines = _lines(output)
    if not lines:
        return ""
    best = _scored(lines)
    if best is not None:
        text = best[2]
        # A header that introduces a list ("The following paths are ignored ...:") is
        # told with the first item; a bare location ("lib/a.ex:42:no_return") with the
        # message under it.
        after = lines[best[1] + 1].strip() if best[1] + 1 < len(lines) else ""
        header = text.endswith(":") and _scored([after]) is None and len(after) < 60
        if after and (header or _LOCATION.match(text)):
            text = f"{text} {after}"
    else:
        text = _first_plain(lines) or lines[0]
    text = _PREFIX.sub("", " ".join(redact_text(text).split()))
    first = (split_sentences(text) or [text])[0]
    if len(first) < 12 and len(text) > len(first):  # "Error. Something else" keeps more
        first = text
    return clip(first, limit).rstrip(".")


def has_crash(output: str) -> bool:
    """Whether ``output`` shows an error of a strong shape (an exception, ``error:``...)."""
    best = _scored(_lines(output))
    return best is not None and best[0] >= _STRONG
