"""Tools that work on files: read, write, edit, list."""

from __future__ import annotations

from .actions import Action
from .kind import Kind, Verbs, unique
from .tools import display_path, input_path
from .wording import join_list, plural

__all__ = ["Edit", "Files", "Listing", "Read", "Write"]


class Files(Kind):
    """Read and Write: a file or a list of files."""

    nouns = ("file", "files")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        return display_path(input_path(action.input) or "a file", cwd, short)

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        return self.files(unique([self.one(action, cwd, short) for action in actions]), short)

    @staticmethod
    def files(names: list[str], short: bool) -> str:
        """Several files named: "a.py and 2 other files", "3 files: a.py, b.py and c.py"."""
        if len(names) <= (1 if short else 2):
            return join_list(names)
        if short:
            return f"{names[0]} and {plural(len(names) - 1, 'other file')}"
        if len(names) > 4:
            return f"{len(names)} files, including {join_list(names[:3], limit=3)}"
        return f"{len(names)} files: {join_list(names, limit=4)}"


class Read(Files):
    verbs = ("read", "read", "reading")


class Write(Files):
    verbs = ("write", "wrote", "writing")

    def details(self, actions: list[Action], cwd: str | None) -> list[str]:
        contents = [a.input.get("content") for a in actions]
        if len(actions) != 1 or not isinstance(contents[0], str):
            return []
        lines = plural(contents[0].count("\n") + 1, "line")
        return [f"{self.one(actions[0], cwd, False)} is {lines} long."]


class Edit(Files):
    verbs = ("edit", "edited", "editing")

    @staticmethod
    def edits(action: Action) -> int:
        batch = action.input.get("edits")
        return len(batch) if isinstance(batch, list) and batch else 1

    def verbs_for(self, actions: list[Action]) -> Verbs:
        files = {input_path(action.input) for action in actions}
        if sum(map(self.edits, actions)) > len(files):
            return ("make", "made", "making")
        return self.verbs

    def many(self, actions: list[Action], cwd: str | None, short: bool) -> str:
        total = sum(map(self.edits, actions))
        names = unique([self.one(action, cwd, short) for action in actions])
        if total == len(names):
            return self.files(names, short)
        if len(names) == 1:
            return f"{total} edits to {names[0]}"
        if short:
            return f"{total} edits to {len(names)} files"
        return f"{total} edits across {len(names)} files: {join_list(names)}"


class Listing(Kind):
    verbs = ("list", "listed", "listing")

    def one(self, action: Action, cwd: str | None, short: bool) -> str:
        path = input_path(action.input)
        return f"the files in {display_path(path, cwd, short)}" if path else "the files here"
