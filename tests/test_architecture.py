"""The dependency rules, checked on the source: the layers table of docs/architecture.md, read from the doc
itself so the two cannot drift, and lazy heavy imports.

Module length is not capped here: a line cap made modules split by size rather than by meaning. Function
size is held by ruff's complexity rules instead (C901 and PLR0915 in pyproject.toml).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {
    "torch",
    "sentence_transformers",
    "transformers",
    "chromadb",
    "gradio",
    "spacy",
    "open_clip",
    "faiss",
    "llama_cpp",
    "openai",
    "anthropic",
    "google",
    "gguf",
    "accelerate",
    "playwright",
}
LOOP_INTERNALS = ("core.agent", "core.orchestrator")


def layers_table() -> dict[str, set[str]]:
    """package ("core", "main" for main.py) -> the packages its row in docs/architecture.md lets it import."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.findall(r"^\| `([a-z_]+)(?:/|\.py)` \|.*\| ([^|]+) \|$", section, re.MULTILINE):
        package, allowed = row
        table[package] = set(re.findall(r"`([a-z_]+)`", allowed))
    return table


LAYERS = layers_table()
PACKAGES = tuple(name for name in LAYERS if name != "main")


def modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def imported_names(tree: ast.AST, top_level_only: bool) -> list[str]:
    nodes = tree.body if top_level_only and isinstance(tree, ast.Module) else list(ast.walk(tree))
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_table_names_every_package_of_the_tree() -> None:
    on_disk = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert set(PACKAGES) == on_disk, "docs/architecture.md's layers table and the packages differ"
    assert "main" in LAYERS and all(LAYERS.values()), "a row without its allowed imports"


@pytest.mark.parametrize("path", [*modules(), ROOT / "main.py"], ids=lambda p: str(p.relative_to(ROOT)))
def test_layer_rules(path: Path) -> None:
    rel = path.relative_to(ROOT)
    package = "main" if rel == Path("main.py") else rel.parts[0]
    names = imported_names(ast.parse(path.read_text()), top_level_only=False)
    ours = {n.split(".")[0] for n in names} & set(LAYERS)
    bad = sorted(ours - LAYERS[package] - {package})
    assert not bad, (
        f"{rel} imports {bad}; docs/architecture.md lets {package} import {sorted(LAYERS[package])}"
    )
    dotted = ".".join(rel.with_suffix("").parts)
    if dotted.startswith(("core.providers", "core.tools")):
        leaks = [n for n in names if n.startswith(LOOP_INTERNALS)]
        assert not leaks, f"{dotted} imports the agent loop or orchestrator: {leaks}"


@pytest.mark.parametrize("path", [*modules(), ROOT / "main.py"], ids=lambda p: str(p.relative_to(ROOT)))
def test_heavy_packages_are_imported_lazily(path: Path) -> None:
    names = imported_names(ast.parse(path.read_text()), top_level_only=True)
    heavy = [n for n in names if n.split(".")[0] in HEAVY]
    assert not heavy, f"{path.relative_to(ROOT)} imports {heavy} at module level; import inside the factory"


def test_nothing_imports_main() -> None:
    for path in [*modules(), *sorted((ROOT / "tests").rglob("*.py"))]:
        names = imported_names(ast.parse(path.read_text()), top_level_only=False)
        assert "main" not in names, f"{path.relative_to(ROOT)} imports main.py"


def test_main_py_is_a_thin_entry() -> None:
    lines = (ROOT / "main.py").read_text().splitlines()
    assert len(lines) <= 40, f"main.py has {len(lines)} lines; the composition root belongs in app/"


def test_each_front_end_lives_in_its_own_folder() -> None:
    loose = sorted(p.name for p in (ROOT / "ui").glob("*.py") if p.name != "__init__.py")
    assert not loose, f"modules at the top of ui/: {loose}; each belongs in a front end's folder or ui/shared"


# The GUI and the API serve the control routes that other front ends attach to (ui/attach).
SERVES = {"gui": {"attach"}, "api": {"attach"}}


@pytest.mark.parametrize("path", sorted((ROOT / "ui").glob("*/*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_share_only_through_ui_shared(path: Path) -> None:
    front_end = path.parent.name
    names = imported_names(ast.parse(path.read_text()), top_level_only=False)
    others = {n.split(".")[1] for n in names if n.startswith("ui.") and n.count(".") >= 1}
    crossing = sorted(others - {front_end, "shared"} - SERVES.get(front_end, set()))
    assert not crossing, (
        f"{path.relative_to(ROOT)} imports the front ends {crossing}; share through ui/shared"
    )
