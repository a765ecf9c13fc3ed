"""docs/architecture.md stays true to the core's layout: every core module it names exists,
it names every core module and every subpackage, and its drawing of the parts has the
order of ``tests/test_imports.py``'s layers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_imports import LAYERS

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "core" / "monologue"
DOC = REPO / "docs" / "architecture.md"
CORE_SECTIONS = ("## The core, in parts named for what they are", "## One event's journey")
MODULE = re.compile(r"(?<![\w/.-])((?:[a-z_]+/)*[a-z_]+\.py)\b")

pytestmark = pytest.mark.skipif(not DOC.is_file(), reason="needs the repository's docs")


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = text.find("\n## ", start + len(heading))
    return text[start : following if following != -1 else None]


def core_text() -> str:
    text = DOC.read_text(encoding="utf-8")
    return "\n".join(section(text, heading) for heading in CORE_SECTIONS)


def named_modules(text: str) -> set[str]:
    return set(MODULE.findall(text))


def missing_modules(text: str, core: Path, repo: Path) -> list[str]:
    """Modules the text names that are neither in the core nor a path in the repository."""
    return sorted(
        name
        for name in named_modules(text)
        if not (core / name).is_file() and not (repo / name).is_file()
    )


def diagram(text: str) -> str:
    body = section(text, CORE_SECTIONS[0])
    return body[body.index("```") : body.index("```", body.index("```") + 3)]


def test_every_module_named_exists() -> None:
    assert not missing_modules(core_text(), CORE, REPO)


def test_every_core_module_and_subpackage_is_named() -> None:
    named = named_modules(core_text())
    modules = {str(path.relative_to(CORE)) for path in CORE.rglob("*.py")}
    assert not modules - named, f"docs/architecture.md does not name {sorted(modules - named)}"
    drawn = diagram(DOC.read_text(encoding="utf-8"))
    packages = {path.parent.name for path in CORE.glob("*/__init__.py")}
    assert packages, "no subpackages found"
    undrawn = [name for name in sorted(packages) if f"{name}/" not in drawn]
    assert not undrawn, f"the drawing of the core lacks {undrawn}"


def test_the_drawing_puts_each_layer_below_the_ones_above_it() -> None:
    lines = diagram(DOC.read_text(encoding="utf-8")).splitlines()

    def row(part: str) -> int | None:
        pattern = re.compile(rf"(?<![\w.]){re.escape(part)}(/|\.py)")
        return next((i for i, line in enumerate(lines) if pattern.search(line)), None)

    placed = [(level, part, row(part)) for level, parts in enumerate(LAYERS) for part in parts]
    absent = [part for _, part, at in placed if at is None and part not in {"testing", "__main__"}]
    assert not absent, f"the drawing lacks {absent}"
    drawn = [(level, part, at) for level, part, at in placed if at is not None]
    # Lower layers are drawn lower down: a higher row number.
    wrong = [
        f"{low} (layer {a}) is drawn above {high} (layer {b})"
        for a, low, low_row in drawn
        for b, high, high_row in drawn
        if a < b and low_row < high_row
    ]
    assert not wrong, "\n".join(wrong)


def test_a_module_that_does_not_exist_is_reported(tmp_path: Path) -> None:
    (tmp_path / "pipeline").mkdir()
    (tmp_path / "pipeline" / "_queue.py").write_text("", encoding="utf-8")
    text = "`pipeline/_queue.py` and `pipeline/_gone.py`, and tests/test_docs.py"
    assert missing_modules(text, tmp_path, REPO) == ["pipeline/_gone.py"]
