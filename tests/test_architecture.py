"""The dependency rules, checked on the source: layers and lazy heavy imports.

Module length is not capped here: a line cap made modules split by size rather than by meaning. Function
size is held by ruff's complexity rules instead (C901 and PLR0915 in pyproject.toml).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "memory", "knowledge", "eval", "ui", "installer")
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
# package -> packages it must never import
FORBIDDEN = {
    "core": {"memory", "knowledge", "ui", "eval", "installer", "main"},
    "memory": {"knowledge", "ui", "eval", "installer", "main"},
    "knowledge": {"memory", "ui", "eval", "installer", "main"},
    "ui": {"main", "installer"},
    "eval": {"main", "ui"},
    "installer": {"main", "memory", "knowledge", "ui"},
}
LOOP_INTERNALS = ("core.agent", "core.orchestrator")


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


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_layer_rules(path: Path) -> None:
    package = path.relative_to(ROOT).parts[0]
    names = imported_names(ast.parse(path.read_text()), top_level_only=False)
    bad = [n for n in names if n.split(".")[0] in FORBIDDEN[package]]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}, against the layer rules"
    rel = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if rel.startswith(("core.providers", "core.tools")):
        leaks = [n for n in names if n.startswith(LOOP_INTERNALS)]
        assert not leaks, f"{rel} imports the agent loop or orchestrator: {leaks}"


@pytest.mark.parametrize("path", [*modules(), ROOT / "main.py"], ids=lambda p: str(p.relative_to(ROOT)))
def test_heavy_packages_are_imported_lazily(path: Path) -> None:
    names = imported_names(ast.parse(path.read_text()), top_level_only=True)
    heavy = [n for n in names if n.split(".")[0] in HEAVY]
    assert not heavy, f"{path.relative_to(ROOT)} imports {heavy} at module level; import inside the factory"


def test_nothing_imports_main() -> None:
    for path in [*modules(), *sorted((ROOT / "tests").rglob("*.py"))]:
        names = imported_names(ast.parse(path.read_text()), top_level_only=False)
        assert "main" not in names, f"{path.relative_to(ROOT)} imports main.py"
