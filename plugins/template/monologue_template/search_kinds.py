"""Searches: in files (grep, glob) and on the web (search, fetch)."""

from __future__ import annotations

from urllib.parse import urlparse

from .actions import Action
from .kind import Kind, unique
from .outcomes import match_count
from .tools import display_path
from .wording import clip, clip_middle, join_list, plural, quoted

__all__ = ["Glob", "Grep", "WebFetch", "WebSearch"]


class Grep(Kind):
    verbs = ("search for", "searched for", "searching for")
    nouns = ("pattern", "patterns")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        pattern = quoted(
            str(action.input.get("pattern", action.input.get("query", ""))), 20 if short else 40
        )
        path = action.input.get("path") or action.input.get("glob")
        if short or not path:
            return pattern
        return f"{pattern} in {display_path(path, cwd)}"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        names = unique([self.one(action, cwd, short) for action in actions])
        return join_list(names) if not short or len(names) == 1 else f"{names[0]} and more"

    def outcome(self, actions: list[Action], short: bool) -> str:
        counts = [match_count(action.output or "") for action in actions if not action.is_error]
        found = [count for count in counts if count is not None]
        failed = super().outcome(actions, short)
        if not found:
            return failed
        total = sum(number for number, _ in found)
        also = failed.replace(";", ",")
        if not total:
            return "; nothing matched" + also
        if all(kind == "files" for _, kind in found):
            return f"; {plural(total, 'file')} matched" + also
        return f"; found {plural(total, 'match', 'matches')}" + also


class Glob(Kind):
    verbs = ("look for", "looked for", "looking for")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        pattern = clip(str(action.input.get("pattern", "")), 24 if short else 50)
        path = action.input.get("path")
        where = f" in {display_path(path, cwd)}" if path and not short else ""
        return f"files matching {pattern}{where}"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        patterns = unique([clip(str(a.input.get("pattern", "")), 40) for a in actions])
        if len(patterns) == 1:
            return self.one(actions[0], cwd, short)
        if short:
            return f"files matching {len(patterns)} patterns"
        return f"files matching {join_list(patterns)}"

    def outcome(self, actions: list[Action], short: bool) -> str:
        counts = [match_count(a.output or "") for a in actions if not a.is_error]
        total = sum(count[0] for count in counts if count is not None)
        return (f"; found {total}" if total else "; found none") + super().outcome(
            actions, short
        ).replace(";", ",")


class WebSearch(Kind):
    verbs = ("search the web for", "searched the web for", "searching the web for")
    nouns = ("query", "queries")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        return quoted(str(action.input.get("query", "")), 24 if short else 60)


class WebFetch(Kind):
    verbs = ("fetch", "fetched", "fetching")
    nouns = ("page", "pages")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        url = str(action.input.get("url", ""))
        if short:
            return urlparse(url).netloc or clip(url, 24)
        return clip_middle(url, 70) or "a page"

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        if len(actions) == 1:
            return self.one(actions[0], cwd, short)
        hosts = unique([self.one(action, cwd, True) for action in actions])
        return plural(len(actions), "page") + ("" if short else f" from {join_list(hosts)}")
