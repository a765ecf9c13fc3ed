"""One event's size budget in a recording: its line never exceeds the budget, and says what was
cut (``data["_truncated"]``, see docs/formats.md).

Cutting every long string to a fixed length is not enough: 200 strings of 60 KB each stay
under any per-string limit and still make a 12 MB line that readers refuse. So the cut is
shared out: the longest strings are cut first, all to the same length, just enough to fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from monologue.events import Event

__all__ = ["TRUNCATED_KEY", "fit_line"]

TRUNCATED_KEY: Final = "_truncated"
_NOTE_ROOM: Final = 512
"""Bytes kept free for the ``_truncated`` note."""
_CUT_NOTE: Final = 32
"""About what each cut string's ``…[N chars cut]…`` costs."""
_MIN_CAP: Final = 64
_SCALAR_CHARS: Final = 200


def _size(line: str) -> int:
    return len(line) if line.isascii() else len(line.encode())


def fit_line(event: Event, line: str, max_bytes: int) -> str:
    """``line`` (``event`` as JSON) if it fits in ``max_bytes`` (UTF-8, newline excluded), else
    the event with its longest strings cut evenly (or, when strings are not what makes it big,
    with only its short top-level fields kept), marked with ``data["_truncated"]``."""
    if len(line) <= max_bytes // 4:  # a character is at most 4 bytes
        return line
    size = _size(line)
    if size <= max_bytes:
        return line
    lengths = sorted(_string_lengths(event.data), reverse=True)
    # In characters: multi-byte text gives back more bytes per character cut.
    excess = (size - max_bytes + _NOTE_ROOM + _CUT_NOTE * len(lengths)) * len(line) // size + 1
    cap = _even_cap(lengths, excess)
    while cap >= _MIN_CAP:
        data, cut = _cut_strings(event.data, cap)
        candidate = _with_note(event, data, size, max_bytes, strings_cut=cut)
        if _size(candidate) <= max_bytes:
            return candidate
        cap //= 2  # escapes and multi-byte characters made it bigger than counted
    kept, dropped = _skeleton(event.data)
    candidate = _with_note(event, kept, size, max_bytes, dropped=dropped)
    if _size(candidate) <= max_bytes:
        return candidate
    return _with_note(event, {}, size, max_bytes, dropped=sorted(map(str, event.data)))


def _with_note(
    event: Event, data: dict[str, Any], size: int, max_bytes: int, **what: int | list[str]
) -> str:
    note = {"original_bytes": size, "max_bytes": max_bytes, **what}
    return event.model_copy(update={"data": {**data, TRUNCATED_KEY: note}}).model_dump_json()


def _string_lengths(value: Any) -> list[int]:
    found: list[int] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(len(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _even_cap(lengths: list[int], excess: int) -> int:
    """The largest length ``cap`` such that cutting every longer string to ``cap`` removes at
    least ``excess`` characters (``0`` when even removing every string is not enough)."""
    low, high = 0, lengths[0] if lengths else 0
    if sum(lengths) < excess:
        return 0
    while low < high:
        middle = (low + high + 1) // 2
        if sum(length - middle for length in lengths if length > middle) >= excess:
            low = middle
        else:
            high = middle - 1
    return low


def _cut_strings(value: Any, cap: int) -> tuple[Any, int]:
    """``value`` with every string longer than ``cap`` cut, and how many were."""
    from monologue.digest import truncate

    if isinstance(value, str):
        return (truncate(value, cap), 1) if len(value) > cap else (value, 0)
    if isinstance(value, dict):
        total = 0
        result: dict[str, Any] = {}
        for key, item in value.items():
            result[key], cut = _cut_strings(item, cap)
            total += cut
        return result, total
    if isinstance(value, list):
        pairs = [_cut_strings(item, cap) for item in value]
        return [item for item, _ in pairs], sum(cut for _, cut in pairs)
    return value, 0


def _skeleton(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The short top-level fields of ``data`` (strings cut short), and the keys dropped."""
    from monologue.digest import truncate

    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in data.items():
        if isinstance(value, str):
            kept[key] = truncate(value, _SCALAR_CHARS)
        elif value is None or isinstance(value, bool | int | float):
            kept[key] = value
        else:
            dropped.append(key)
    return kept, dropped
