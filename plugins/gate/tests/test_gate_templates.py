"""prompts/controller.md and prompts/narrator.md: every section and every variable."""

from __future__ import annotations

import jinja2
import pytest

from monologue.prompts import render_prompt, shipped_prompts_dir

TEMPLATES = ["controller.md", "narrator.md"]
SECTIONS = ["System Instructions", "Global State Digest", "Event Focus", "Action Format"]
VARIABLES = ["SYSTEM_POLICY", "GLOBAL_STATE", "EVENT_FOCUS", "ACTION_GUIDE"]


@pytest.mark.parametrize("name", TEMPLATES)
def test_template_has_every_section_in_order_and_every_variable(name: str) -> None:
    source = (shipped_prompts_dir() / name).read_text(encoding="utf-8")
    positions = [source.index(f"## {section}\n") for section in SECTIONS]
    assert positions == sorted(positions)
    for variable in VARIABLES:
        assert f"{{{{ {variable} }}}}" in source


@pytest.mark.parametrize("name", TEMPLATES)
def test_each_variable_lands_in_its_own_section(name: str) -> None:
    values = {variable: f"<<{variable.lower()}>>" for variable in VARIABLES}
    text = render_prompt(name, **values)
    sections = text.split("## ")[1:]
    assert [section.splitlines()[0] for section in sections] == SECTIONS
    for section, variable in zip(sections, VARIABLES, strict=True):
        assert values[variable] in section


@pytest.mark.parametrize("name", TEMPLATES)
@pytest.mark.parametrize("missing", VARIABLES)
def test_a_missing_variable_is_an_error(name: str, missing: str) -> None:
    values = {variable: "x" for variable in VARIABLES if variable != missing}
    with pytest.raises(jinja2.UndefinedError, match=missing):
        render_prompt(name, **values)
