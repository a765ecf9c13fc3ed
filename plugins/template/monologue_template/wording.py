"""Small English helpers: lists, plurals, clipping, sentences, word counts."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

_MARKDOWN = re.compile(r"\*\*|`|^\s*(?:[-*+>]|\d+[.)])\s+|^#+\s*", re.MULTILINE)
_LISTED = re.compile(r"^\s*(?:[-*+>]\s|\d+[.)]\s|#)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(A-Z0-9])")
# Where ``_SENTENCE_END`` would split: starting with a character set, its search skips to
# the next stop, several times faster than the split's try at every position.
_SENTENCE_BREAK = re.compile(r"[.!?]\s+[\"'(A-Z0-9]")
_FIRST_PERSON = re.compile(
    r"^(?:I|I'm|I'll|I've|I'd|We|We'll|We're|Let's|My|Now,? I|Next,? I|First,? I|Then,? I)\b"
)


_ESCAPED_BREAK = re.compile(r"(?:\\r)?\\n")
_TAG = re.compile(r"</?[a-z][\w-]*>")
_FILLER = re.compile(
    r"^(?:(?:Now|Perfect|Great|Excellent|OK|Okay|Good|Alright)[,!.]?\s*)*"
    r"(?:I (?:now )?have (?:all )?(?:the |enough )?(?:information|context|everything|what)"
    r"|I(?:'ve| have) (?:gathered|collected) (?:all|enough)"
    r"|Based on (?:my|the|this) (?:analysis|investigation|review|research|exploration)"
    r"|(?:Let me|I'll|I will) (?:now )?(?:provide|give|write|compile|summarize) (?:you )?"
    r"(?:a |my |the )?(?:summary|report|comprehensive|final|detailed|overview))",
    re.IGNORECASE,
)
_ENUM = re.compile(r"^[a-z]+(?:_[a-z]+)+$")
# Each with the words one of which a text has when the pattern can match: a substring
# search is much cheaper than a regex that finds nothing.
_OWN_WORDS = [
    (re.compile(r"^(?:Now,? |OK,? |Okay,? |Alright,? )?[Ll]et me\b"), "I'm going to", ("et me",)),
    (re.compile(r"^(?:Now,? |OK,? |Okay,? |Alright,? )?[Ll]et'?s\b"), "I'll", ("ets", "et's")),
    (re.compile(r"\blet's\b"), "I'll", ("let's",)),
    (re.compile(r"\b[Ww]e're\b"), "I'm", ("e're",)),
    (re.compile(r"\b[Ww]e've\b"), "I've", ("e've",)),
    (re.compile(r"\b[Ww]e'll\b"), "I'll", ("e'll",)),
    (re.compile(r"\b[Ww]e\b"), "I", ("We", "we")),
    (re.compile(r"\bour\b"), "my", ("our",)),
    (re.compile(r"\bOur\b"), "My", ("Our",)),
]
_NAMES = re.compile(r"[`\"]|\w[./]\w|https?://|\btests?\b|\btest suite\b", re.IGNORECASE)
# A path or file name: up to its first separator without backtracking (``*+``), so that a
# word without one fails in one pass rather than trying every split.
_SKELETON_DROP = re.compile(r"`[^`]*`|\"[^\"]*\"|[^\s/.\\]*+[/.\\]\S*\w|\d+")
_PUNCTUATION = re.compile(r"[^\w\s]")
# The ASCII characters ``_PUNCTUATION`` matches: ASCII text is translated, several times
# faster than the regex.
_ASCII_PUNCTUATION = "".join(chr(code) for code in range(128) if _PUNCTUATION.match(chr(code)))
_DROP_PUNCTUATION = str.maketrans("", "", _ASCII_PUNCTUATION)
_SPACE_PUNCTUATION = str.maketrans(_ASCII_PUNCTUATION, " " * len(_ASCII_PUNCTUATION))


# Pure and called many times a narration on the same few strings (paths, commands,
# sentences of the history): cached.
@functools.lru_cache(maxsize=4096)
def squash(text: str) -> str:
    """``text`` on one line, whitespace collapsed (escaped line breaks too: ``\\n``)."""
    if "\\n" in text:  # the regex costs microseconds even when it finds nothing
        text = _ESCAPED_BREAK.sub(" ", text)
    # str.split() splits on exactly the whitespace ``\s`` matches, several times faster.
    return " ".join(text.split())


def names_subject(text: str) -> bool:
    """Whether ``text`` names something concrete: a command, a quoted name, a path or file,
    a URL, a test."""
    if "`" in text or '"' in text:  # a quote is the most common, and a regex is slow
        return True
    return bool(_NAMES.search(text))


@functools.lru_cache(maxsize=1024)
def skeleton(text: str) -> str:
    """``text`` without what makes it specific (commands, quotes, paths, numbers): two
    narratives with the same skeleton read alike."""
    return " ".join(without_punctuation(_SKELETON_DROP.sub(" ", text), " ").lower().split())


def without_punctuation(text: str, replacement: str = "") -> str:
    """``text`` with each character that is neither a word character nor whitespace
    replaced by ``replacement`` (``""`` or ``" "``)."""
    if text.isascii():
        return text.translate(_SPACE_PUNCTUATION if replacement else _DROP_PUNCTUATION)
    return _PUNCTUATION.sub(replacement, text)


def clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, marked with ``…``."""
    text = squash(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    for boundary in " /":  # a word's end, or else a path's part
        if boundary in cut[limit // 2 :]:
            cut = cut[: cut.rindex(boundary) + (boundary == "/")]
            break
    return cut.rstrip(" ,;:.-") + "…"


def clip_middle(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters in the middle, at word boundaries: the
    head (a program and its flags) and the tail (what tells two commands apart) are kept."""
    text = squash(text)
    if len(text) <= limit:
        return text
    head_room = max(limit // 2, 1)
    tail_room = max(limit - head_room - 3, 1)
    head = text[:head_room]
    if " " in head and text[head_room : head_room + 1] != " ":
        head = head[: head.rindex(" ")]
    tail = text[-tail_room:]
    if " " in tail and text[-tail_room - 1 : -tail_room] != " ":
        tail = tail[tail.index(" ") + 1 :]
    return f"{head.rstrip()} … {tail.lstrip()}"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``"1 file"``, ``"3 files"``."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def join_list(items: Sequence[str], limit: int = 3, noun: str = "more") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``; beyond ``limit`` items ``"a, b, c and 2 more"``."""
    items = list(items)
    if len(items) > limit:
        shown, rest = items[:limit], len(items) - limit
        return ", ".join(shown) + f" and {rest} {noun}"
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def quoted(text: str, limit: int = 40) -> str:
    return f'"{clip(text, limit)}"'


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, ending with a full stop."""
    text = text.strip()
    if not text:
        return ""
    return full_stop(capitalize(text))


def full_stop(text: str) -> str:
    """``text`` (neither empty nor ending with a space) ending as a sentence does."""
    return text if text[-1] in ".!?…" or text.endswith(".)") else text + "."


def split_sentences(text: str) -> list[str]:
    text = text.strip()
    if _SENTENCE_BREAK.search(text) is None:  # one sentence, most often
        return [text] if text else []
    return [part for part in _SENTENCE_END.split(text) if part]


def word_count(text: str) -> int:
    return len(text.split())


def clamp_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` words, marked with ``…`` when cut."""
    words = text.split()
    if len(words) <= limit:
        return text
    cut = " ".join(words[:limit]).rstrip(" ,;:.-…")
    # A command cut inside its backticks is closed, so it still reads (and is) a command.
    return cut + ("…`" if cut.count("`") % 2 else "…")


def first_sentence(text: str, limit: int = 120) -> str:
    """The first real sentence of free text: prose before bullets, headings, labels and
    table rows, past a bare "Great!" and filler ("Now I have all the information I
    need."), with raw tags left out."""
    prose = False
    rest: list[str] = []
    for raw in (_TAG.sub(" ", text) if "<" in text else text).splitlines():
        start = raw.lstrip()[:1]
        if start == "|":
            continue  # a markdown table
        markdown = _may_be_markdown(raw, start)  # (so is a list item: only then is it sought)
        line = squash(_MARKDOWN.sub("", raw) if markdown else raw)
        if not line:
            continue
        label = line.endswith(":") and len(line.split()) <= 6
        listed = markdown and _LISTED.match(raw) is not None
        if label or listed or len(line.split()) < 3:
            rest.append(line)
            continue
        # Prose first, in order: the rest of a long text is read only when it must be.
        prose = True
        chosen = _real_sentence(line)
        if chosen is not None:
            return clip(chosen, limit).rstrip(":")
    for line in () if prose else rest:
        chosen = _real_sentence(line)
        if chosen is not None:
            return clip(chosen, limit).rstrip(":")
    return ""


def _real_sentence(line: str) -> str | None:
    """A real sentence of ``line``, past a bare "Great!" ("Found main." is one) and filler."""
    pair = None
    for part in split_sentences(line):
        if _FILLER.match(part):
            continue
        words = len(part.split())
        if words >= 3:
            return part
        if words == 2 and pair is None:
            pair = part
    return pair


def _may_be_markdown(line: str, start: str) -> bool:
    """Whether ``_MARKDOWN`` may find something in ``line`` (whose first non-space
    character is ``start``): emphasis, code, or a list or heading marker."""
    return "**" in line or "`" in line or start in "-*+>#" or start.isdigit()


def own_words(text: str) -> str:
    """The agent's sentence in its own first person: "we" and "let's" become "I", "Let me
    check x" becomes "I'm going to check x"."""
    for pattern, replacement, needles in _OWN_WORDS:
        for needle in needles:  # (a loop: a generator per pattern cost more than the tests)
            if needle in text:
                text = pattern.sub(replacement, text)
                break
    return text


def humanize(token: str) -> str:
    """An enum state said in words: ``awaiting_user_input`` -> "awaiting user input"."""
    # (an enum has an underscore: most text is told apart without the regex)
    return token.replace("_", " ").lower() if "_" in token and _ENUM.match(token) else token


def is_first_person(text: str) -> bool:
    return bool(_FIRST_PERSON.match(text))
