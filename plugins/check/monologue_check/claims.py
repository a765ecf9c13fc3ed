"""The claims a reader would rely on, found in a narrative's text.

Each claim is one checkable statement: a quote, a subject (path or URL), a count, an
outcome, an ask ("You asked me"), or the voice and tense it is told in. Extraction reads
plain English as narrators write it; it does not need to understand a sentence, only to find
what a watcher would take as fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Claim", "ClaimKind", "extract", "number"]

ClaimKind = Literal["quote", "subject", "count", "outcome", "ask", "voice", "action"]


@dataclass(frozen=True)
class Claim:
    """``kind``; the words as written (``text``); what they claim (``value``); the sentence
    they stand in; and ``again`` when the sentence says the act was repeated."""

    kind: ClaimKind
    text: str
    value: str = ""
    sentence: str = ""
    again: bool = False
    excerpt: bool = False
    """A quote told as what a failing tool printed ("it failed: …")."""


_WORDS = {
    "no": 0, "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
    "twelve": 12, "both": 2,
}  # fmt: skip
_NUMBER = (
    r"(\d[\d,]*|no|zero|one|a|an|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both)"
)


def number(word: str) -> int:
    word = word.lower().replace(",", "")
    return int(word) if word.isdigit() else _WORDS[word]


_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z\"“`(])")
_BACKTICK = re.compile(r"`([^`]+)`")
# A quote cut short by elision may lose its closing mark: it then runs to the sentence's end.
_DOUBLE = re.compile(r"[\"“]([^\"“”]{2,}?)(?:[\"”]|(?<=…)\.?$)")
# An error or report quoted without quotation marks: "it failed: ModuleNotFoundError: …".
_EXCERPT = re.compile(
    r"\b(?P<how>failed|crashed|errored|error|said|reported|printed|answered|replied|"
    r"returned|complained|rejected|I got)(?: with)?:\s+(?P<quote>[^`\"“].+)$",
    re.IGNORECASE,
)
_FAILURE_WORDS = frozenset({"failed", "crashed", "errored", "error", "rejected", "complained"})
_URL = re.compile(r"https?://[^\s`\"”)>]+")
_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|md|rst|txt|toml|yaml|yml|ini|cfg|conf|sh|bash|"
    "rb|go|rs|java|kt|c|h|cc|cpp|hpp|cs|ex|exs|erl|php|swift|scala|sql|html|css|scss|vue|"
    "svelte|lock|xml|csv|log|env|ipynb|traj|output|dockerfile|gradle|proto|tf|lua|r|pl"
)
_PATH = re.compile(
    r"(?<![\w/.~@-])(?:~/|\.{1,3}/|…/|/)?(?:[\w.@+-]+/)+[\w.@+*-]+(?:\.\w+)?"
    rf"|(?<![\w/.~@-])[\w@+-][\w.@+-]*\.(?:{_EXTENSIONS})\b",
    re.IGNORECASE,
)
_NOT_PATHS = frozenset({"and/or", "either/or", "input/output", "read/write", "on/off", "yes/no"})

_COUNTS = [
    # "12 of 127 tests failed", "3 of 5 passed"
    re.compile(
        rf"\b{_NUMBER} of (\d[\d,]*) (?:\w+ )?(?:tests? )?(?P<verb>failed|passed|errored)\b", re.I
    ),
    # "all 297 passed", "all 12 tests passed"
    re.compile(r"\ball (\d[\d,]*) (?:\w+ )?(?:tests? )?(?P<verb>passed)\b", re.I),
    # "after 11 tool calls", "3 tool calls"
    re.compile(rf"\b{_NUMBER} (?P<noun>tool calls?)\b", re.I),
    # "I read 2 files", "ran 3 commands", "checked 2 background jobs", "edited 4 files"
    re.compile(
        rf"\b(?P<verb>read|edited|wrote|ran|searched|fetched|checked|opened|created|started)"
        rf" {_NUMBER} (?:more )?(?:\w+ )?(?P<noun>files?|commands?|jobs?|pages?|patterns?|"
        r"searches|sub-agents?|tasks?)\b",
        re.I,
    ),
    # "7 were cancelled", "1 parallel call was cancelled"
    re.compile(
        rf"\b{_NUMBER} (?:\w+ )*?(?:calls? |steps? )?(?:were|was) (?P<verb>cancell?ed)\b", re.I
    ),
    # "found 11 matches", "found 3 files", "found 2"
    re.compile(
        rf"\bfound {_NUMBER}(?: (?P<noun>matches|match|files?|results?|lines?|hits?))?\b", re.I
    ),
    # "took 2 more steps", "and 3 more steps"
    re.compile(rf"\b{_NUMBER} more (?P<noun>steps?|tool calls?|actions?)\b", re.I),
    # "; 4 failed", ", 4 of which failed" (of the tool calls just counted)
    re.compile(rf"(?:;|,) {_NUMBER} (?:of which )?(?P<verb>failed)\b", re.I),
]

_OUTCOMES = [
    ("crashed", re.compile(r"\bcrash(?:ed|es)?\b", re.I)),
    ("passed", re.compile(r"\b(?:passed|passes|passing|succeeded)\b", re.I)),
    ("not_run", re.compile(
        r"\b(?:couldn't|could not|was unable to|failed to) (?:run|start|execute)\b", re.I
    )),
    # "N of which failed" is a count, checked as one.
    ("failed", re.compile(
        r"(?<!of which )(?<!\d )\b(?:failed|failing|fails|errored|broke)\b", re.I
    )),
    ("fixed", re.compile(r"\bfixed\b", re.I)),
    ("done", re.compile(
        r"\b(?:I'm done|I am done|I finished|I'm finished|I completed"
        r"|the run (?:is )?(?:complete|finished))\b",
        re.I,
    )),
    ("interrupted", re.compile(r"\binterrupted\b", re.I)),
]  # fmt: skip
_ASK = re.compile(r"\b(?P<again>again,? )?you asked me\b(?P<rest>.*)$", re.I)
_AGAIN = re.compile(r"\b(?:again|once more|re-?ran|re-?read)\b", re.I)
_FUTURE = re.compile(r"\b(?:let me|I'll|I will|I'm going to|I am going to)\b", re.I)
_PROGRESSIVE = re.compile(r"\b(?:I'm|I am|is|are) (?!done\b|going\b)\w+ing\b", re.I)
_FILLER = re.compile(
    r"\breported:\s+(?:now |perfect|great|ok(?:ay)?\b|let me|I'll|I have all|I now have|done\b)",
    re.I,
)
_INTERNAL = re.compile(
    r"tool-results/|\btoolu_\w+|[\"“][0-9a-f]{6,}[\"”] sub-agent|\bsub-agent [0-9a-f]{7,}\b"
)
# First-person acts, each needing a covered call of its kind ("I edited" needs an edit).
_ACTIONS = re.compile(
    r"\bI (?:also |then |first |just )?(?P<verb>read|edited|updated|modified|changed|refactored|"
    r"rewrote|wrote|created|deleted|removed|ran|searched|fetched|committed|pushed|installed|"
    r"tested)\b",
    re.I,
)
_MORE_ACTIONS = re.compile(
    r"(?:,|\band\b)\s+(?:then\s+|also\s+)?(?P<verb>read|edited|updated|modified|changed|"
    r"refactored|rewrote|wrote|created|deleted|removed|ran|searched|fetched|committed|pushed|"
    r"installed|tested)\b",
    re.I,
)
_AGENT_VOICE = re.compile(r"\b(?:let's|we|we'll|we're|we've|we'd|our)\b", re.I)
_MARKUP = re.compile(r"</?[a-z][\w-]*>|^\s*\|.*\|\s*$|\{\s*\"\w+\"\s*:", re.I | re.M)


def _quoted_spans(sentence: str) -> list[tuple[int, int, str]]:
    spans = [(m.start(), m.end(), m.group(1)) for m in _BACKTICK.finditer(sentence)]
    # Double quotes inside a backticked command are the command's own, not a quote.
    outside = _blank(sentence, spans)
    spans += [(m.start(), m.end(), m.group(1)) for m in _DOUBLE.finditer(outside)]
    return spans


def _blank(sentence: str, spans: list[tuple[int, int, str]]) -> str:
    """The sentence with its quotes blanked out, so that words inside a quote (a prompt that
    says "passed") are not taken as the narrator's own claims."""
    chars = list(sentence)
    for start, end, _ in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


@dataclass(frozen=True)
class _Sentence:
    """One sentence, with its quotes found and blanked out of ``plain``."""

    text: str
    plain: str
    spans: list[tuple[int, int, str]]
    again: bool

    def claim(self, kind: ClaimKind, text: str, value: str, **extra: bool) -> Claim:
        return Claim(kind, text, value, self.text, extra.pop("again", self.again), **extra)


def _quotes_and_asks(s: _Sentence) -> Iterator[Claim]:
    ask = _ASK.search(s.plain)
    for _, _, quoted in s.spans:
        inside_ask = ask is not None and s.text.find(quoted) > ask.start()
        yield s.claim("ask" if inside_ask else "quote", quoted, quoted)
    excerpt = _EXCERPT.search(s.plain)
    if excerpt:
        # From the sentence itself: the excerpt may hold quotes of its own.
        quote = s.text[excerpt.start("quote") :].strip().rstrip(".")
        failure = excerpt.group("how").lower() in _FAILURE_WORDS
        yield s.claim("quote", quote, quote, excerpt=failure)
    if ask:
        yield s.claim("ask", ask.group(0).strip(), "", again=bool(ask.group("again")))


def _subjects(s: _Sentence, plain: str) -> Iterator[Claim]:
    for match in _URL.finditer(plain):
        url = match.group(0).rstrip(".,;:")
        yield s.claim("subject", url, url)
    for match in _PATH.finditer(_URL.sub(" ", plain)):
        path = match.group(0).rstrip(".,;:")
        if path.lower() not in _NOT_PATHS and re.search(r"[a-z]", path, re.I):
            yield s.claim("subject", path, path)


def _counts_and_outcomes(s: _Sentence, plain: str) -> Iterator[Claim]:
    for pattern in _COUNTS:
        for match in pattern.finditer(plain):
            yield s.claim("count", match.group(0), match.group(0))
    for outcome, pattern in _OUTCOMES:
        found = pattern.search(plain)
        if found:
            yield s.claim("outcome", found.group(0), outcome)


def _voices(s: _Sentence, plain: str) -> Iterator[Claim]:
    for pattern, value in (
        (_FUTURE, "future"),
        (_PROGRESSIVE, "progressive"),
        (_AGENT_VOICE, "agent"),
        (_MARKUP, "markup"),
    ):
        found = pattern.search(plain)
        if found:
            yield s.claim("voice", found.group(0), value)
    for pattern, value in ((_FILLER, "filler"), (_INTERNAL, "internal")):
        found = pattern.search(s.text)
        if found:
            yield s.claim("voice", found.group(0), value)
    # Two commands elided to the same text can't be told apart: "`python3 -c …`" twice.
    elided = [m.group(1) for m in _BACKTICK.finditer(s.text) if "…" in m.group(1)]
    twins = [command for command in elided if elided.count(command) > 1]
    if twins:
        yield s.claim("voice", twins[0], "twins")


def _actions(s: _Sentence, plain: str) -> Iterator[Claim]:
    first = _ACTIONS.search(plain)
    if first is None:
        return
    # "I edited a.py, ran the tests and committed": each verb of the list is an act.
    for match in (first, *_MORE_ACTIONS.finditer(plain, first.end())):
        yield s.claim("action", match.group(0).strip(" ,"), match.group("verb").lower())


def extract(text: str) -> list[Claim]:
    """Every claim in ``text``, in order."""
    claims: list[Claim] = []
    for sentence in _SENTENCE.split(text.strip()):
        spans = _quoted_spans(sentence)
        s = _Sentence(sentence, _blank(sentence, spans), spans, bool(_AGAIN.search(sentence)))
        claims.extend(_quotes_and_asks(s))
        excerpt = _EXCERPT.search(s.plain)
        # What follows "failed:" is the tool's text, not the narrator's own claims.
        plain = s.plain[: excerpt.start("quote")] if excerpt else s.plain
        claims.extend(_subjects(s, plain))
        # Words inside a path or URL ("…/home-assistant-green-button/…") claim nothing.
        bare = _PATH.sub(" ", _URL.sub(" ", plain))
        for finder in (_counts_and_outcomes, _voices, _actions):
            claims.extend(finder(s, bare))
    return claims
