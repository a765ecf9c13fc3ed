"""The error extractor against its corpus: real failure outputs, each with the line a
narrative must quote for it (tests/data/error_corpus.json, sources named per case)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from monologue_template.errors import error_excerpt, has_crash

CORPUS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "error_corpus.json").read_text(encoding="utf-8")
)


def test_the_corpus_is_large_and_sourced() -> None:
    assert len(CORPUS) >= 40
    assert len({case["name"] for case in CORPUS}) == len(CORPUS)
    assert all(case["source"] and case["output"] and case["expected"] for case in CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[case["name"] for case in CORPUS])
def test_the_error_line_is_quoted(case: dict[str, Any]) -> None:
    excerpt = error_excerpt(case["output"])
    assert excerpt == case["expected"]
    assert "<tool_use_error>" not in excerpt and "\n" not in excerpt
    assert not excerpt.startswith(("DO NOT", "Please", "hint:", "-----"))


def test_nothing_to_quote() -> None:
    assert error_excerpt("") == ""
    assert error_excerpt("\n \n") == ""


@pytest.mark.parametrize(
    ("output", "crashed"),
    [
        ('Traceback (most recent call last):\n  File "a.py", line 1\nValueError: x', True),
        ("** (Mix) Could not start application spotter", True),
        ("..........\n10 passed in 0.1s", False),
        ("Compiling 1 file (.ex)", False),
    ],
)
def test_a_crash_is_an_error_of_a_strong_shape(output: str, crashed: bool) -> None:
    assert has_crash(output) is crashed
