"""The documentation stays true to the code (as datasette's test_plugin_hooks_are_documented).

Every hook in ``core/monologue/plugins/hookspecs.py``, and in a plugin's own
``monologue_<name>/hookspecs.py`` (the hooks it owns), has a ``### `name(args) -> return` `` heading
in the hook reference of ``docs/plugin-authoring.md``, with the signature exactly as the
hookspec declares it; ``docs/contract.md`` names every hook, every setting and every field
of the event envelope and the recording header; and no doc links outside the repository.
The sources are parsed with ``ast`` at test time from the working tree, so a hook added a
moment ago is checked.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "core" / "monologue"
HOOKSPECS = CORE / "plugins" / "hookspecs.py"
# The hooks a plugin owns and adds itself (register_hookspecs), documented beside the core's.
PLUGIN_HOOKSPECS = sorted(REPO.glob("plugins/*/monologue_*/hookspecs.py"))
AUTHORING = REPO / "docs" / "plugin-authoring.md"
CONTRACT = REPO / "docs" / "contract.md"
REFERENCE = "## Hook reference"
HEADING = re.compile(r"^### `(?P<name>\w+)\((?P<rest>.*)`\s*$", re.MULTILINE)
# Text that points outside a clone: the design notes and traces of the development machine.
OUTSIDE = re.compile(r"\.\./shared\b|/work/shared|DESIGN\.md")
SKIPPED_DIRS = {".git", ".tox", ".venv", "node_modules", "build", "dist"}

pytestmark = pytest.mark.skipif(
    not HOOKSPECS.is_file(), reason="needs the repository's working tree"
)


def hook_signatures(source: str) -> dict[str, str]:
    """``name -> "name(arg: type, ...) -> return"`` for every hookspec in ``source``."""
    signatures = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
        if not any(isinstance(d, ast.Name) and d.id == "hookspec" for d in decorators):
            continue
        args = ", ".join(
            arg.arg if arg.annotation is None else f"{arg.arg}: {ast.unparse(arg.annotation)}"
            for arg in node.args.args
        )
        returns = "" if node.returns is None else f" -> {ast.unparse(node.returns)}"
        signatures[node.name] = f"{node.name}({args}){returns}"
    return signatures


def documented_signatures(markdown: str) -> dict[str, str]:
    """``name -> signature`` for every hook heading in the reference section."""
    start = markdown.find(REFERENCE)
    if start < 0:
        return {}
    section = markdown[start:]
    following = re.search(r"^## ", section[len(REFERENCE) :], re.MULTILINE)
    if following:
        section = section[: len(REFERENCE) + following.start()]
    return {
        match["name"]: f"{match['name']}({match['rest']}" for match in HEADING.finditer(section)
    }


def documentation_problems(hookspecs: str, markdown: str) -> list[str]:
    """What the doc gets wrong about the hooks: missing, different or unknown hooks."""
    declared, documented = hook_signatures(hookspecs), documented_signatures(markdown)
    problems = []
    for name, signature in declared.items():
        if name not in documented:
            problems.append(f"{name} is not documented; add a heading: ### `{signature}`")
        elif documented[name] != signature:
            problems.append(
                f"{name} is documented as `{documented[name]}` but declared as `{signature}`"
            )
    problems += [
        f"{name} is documented but is not a hook" for name in documented if name not in declared
    ]
    return problems


def markdown_files() -> list[Path]:
    return sorted(
        path
        for path in REPO.rglob("*.md")
        if not SKIPPED_DIRS.intersection(path.relative_to(REPO).parts)
    )


def all_hookspecs() -> str:
    """The core's hookspecs and every plugin's own, as one source."""
    return "\n".join(path.read_text(encoding="utf-8") for path in [HOOKSPECS, *PLUGIN_HOOKSPECS])


def test_every_hook_is_documented_with_its_signature() -> None:
    assert PLUGIN_HOOKSPECS, "no plugin ships its own hookspecs"
    problems = documentation_problems(all_hookspecs(), AUTHORING.read_text(encoding="utf-8"))
    assert not problems, f"{AUTHORING.relative_to(REPO)} is out of date:\n" + "\n".join(problems)


def test_the_contract_names_every_hook() -> None:
    contract = CONTRACT.read_text(encoding="utf-8")
    hooks = hook_signatures(all_hookspecs())
    unnamed = [name for name in hooks if f"`{name}`" not in contract]
    assert not unnamed, f"{CONTRACT.relative_to(REPO)} does not name these hooks: {unnamed}"


def model_fields(source: Path, model: str) -> list[str]:
    """The fields a pydantic model declares in ``source`` (``ClassVar`` annotations and
    private attributes aside)."""
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef) and node.name == model:
            return [
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and not item.target.id.startswith("_")
                and "ClassVar" not in ast.unparse(item.annotation)
            ]
    raise AssertionError(f"{source.relative_to(REPO)} defines no {model}")


@pytest.mark.parametrize(
    ("module", "model"),
    [
        ("settings/_core.py", "MonologueConfig"),
        ("events/__init__.py", "Event"),
        ("events/__init__.py", "RecordingHeader"),
    ],
)
def test_the_contract_names_every_pinned_field(module: str, model: str) -> None:
    contract = CONTRACT.read_text(encoding="utf-8")
    fields = model_fields(CORE / module, model)
    assert fields
    unnamed = [
        name for name in fields if f"`{name}`" not in contract and f'"{name}"' not in contract
    ]
    assert not unnamed, f"{CONTRACT.relative_to(REPO)} does not name {model} fields {unnamed}"


def test_hookspecs_export_every_hook() -> None:
    source = HOOKSPECS.read_text(encoding="utf-8")
    exported = next(
        set(ast.literal_eval(node.value))
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    )
    hooks = set(hook_signatures(source))
    assert exported == hooks, (
        f"hookspecs.__all__ lacks {sorted(hooks - exported)}, "
        f"and lists what is not a hook: {sorted(exported - hooks)}"
    )


def test_the_check_catches_missing_changed_and_unknown_hooks() -> None:
    hookspecs = (
        "@hookspec\ndef on_event(session: Session, event: Event) -> None: ...\n"
        "@hookspec(firstresult=True)\ndef adapt(obj: Any) -> list[Event] | None: ...\n"
        "@hookspec\ndef register_commands(cli: click.Group) -> None: ...\n"
        "def helper(x: int) -> int: ...\n"
    )
    markdown = (
        "### `on_event(session)`\n\n## Hook reference\n\n"
        "### `on_event(session: Session, event: Event) -> None`\n\nBroadcast.\n\n"
        "### `adapt(obj: Any, session: Session | None) -> list[Event] | None`\n\n"
        "### `on_tool_cal(session: Session, event: Event) -> None`\n\n"
        "## Afterwards\n\n### `register_commands(cli: click.Group) -> None`\n"
    )
    assert documentation_problems(hookspecs, markdown) == [
        "adapt is documented as `adapt(obj: Any, session: Session | None) -> list[Event] | None`"
        " but declared as `adapt(obj: Any) -> list[Event] | None`",
        "register_commands is not documented; add a heading: "
        "### `register_commands(cli: click.Group) -> None`",
        "on_tool_cal is documented but is not a hook",
    ]


def test_no_doc_points_outside_the_repository() -> None:
    files = markdown_files()
    assert AUTHORING in files
    outside = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not outside, "docs refer to files a clone does not have:\n" + "\n".join(outside)


def test_relative_links_in_docs_resolve_inside_the_repository() -> None:
    link = re.compile(r"\]\((?!https?:|mailto:|#)([^)#\s]+)")
    broken = []
    for path in markdown_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for target in link.findall(line):
                resolved = (path.parent / target).resolve()
                if not resolved.is_relative_to(REPO) or not resolved.exists():
                    broken.append(f"{path.relative_to(REPO)}:{number}: {target}")
    assert not broken, "links to files the repository does not have:\n" + "\n".join(broken)
