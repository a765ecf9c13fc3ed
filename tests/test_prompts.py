from __future__ import annotations

from pathlib import Path

import pytest

from monologue import Event
from monologue.digest import digest_events
from monologue.prompts import render_parts, render_prompt, shipped_prompts_dir

VARIABLES = dict(
    agent="coder", history=["I started."], first=False, final=False, reason="buffer", running=""
)


def events():
    return digest_events(
        [
            Event(
                type="tool_call",
                agent="coder",
                data={
                    "tool_name": "Read",
                    "tool_use_id": "1",
                    "input": {"file_path": "src/client.py"},
                },
            ),
        ]
    )


def test_presets_ship_with_the_package_and_render_both_parts():
    import monologue

    package = Path(monologue.__file__).parent
    shipped = shipped_prompts_dir()
    if package.parent.name == "site-packages":
        # An installed wheel (the core tox environment): templates come from inside it, not
        # from a source checkout.
        assert shipped == package / "prompts"
    assert (shipped / "presets" / "default.md").is_file()
    for preset in ("default", "terse", "verbose"):
        parts = render_parts(f"presets/{preset}.md", events=events(), **VARIABLES)
        assert set(parts) == {"system", "user"}
        assert "first person" in parts["system"]
        assert "1. called Read: file_path=src/client.py" in parts["user"]
        assert "1. I started." in parts["user"]
        assert "<events>" in parts["user"]


def test_prompts_dir_overrides_a_template_by_name(tmp_path: Path):
    (tmp_path / "presets").mkdir()
    (tmp_path / "presets" / "terse.md").write_text(
        "<!-- part: system -->\nBe brief, {{ agent }}.\n"
        "<!-- part: user -->\n{{ events | length }} events\n"
    )
    parts = render_parts("presets/terse.md", prompts_dir=tmp_path, events=events(), **VARIABLES)
    assert parts == {"system": "Be brief, coder.", "user": "1 events"}
    # Templates the user did not override still come from the package.
    default = render_parts("presets/default.md", prompts_dir=tmp_path, events=events(), **VARIABLES)
    assert "first person" in default["system"]


def test_missing_template_and_missing_variable_are_clear_errors(tmp_path: Path):
    with pytest.raises(LookupError, match=r"prompt template 'presets/nope\.md' not found"):
        render_prompt("presets/nope.md", prompts_dir=tmp_path)
    with pytest.raises(Exception, match="'agent' is undefined"):
        render_parts(
            "presets/default.md",
            events=[],
            history=[],
            first=True,
            final=False,
            reason="buffer",
            running="",
        )


def test_template_without_parts_is_rejected(tmp_path: Path):
    (tmp_path / "plain.md").write_text("just text")
    with pytest.raises(LookupError, match="has no <!-- part: NAME --> markers"):
        render_parts("plain.md", prompts_dir=tmp_path)


def test_every_preset_asks_for_plain_words_over_internal_tool_names():
    # Issue 25: "used StructuredOutput" reached the watcher from the Haiku narrator.
    for preset in ("default", "terse", "verbose"):
        system = render_parts(f"presets/{preset}.md", events=events(), **VARIABLES)["system"]
        assert "not its internal name" in system
        assert '"I gave my structured answer"' in system
