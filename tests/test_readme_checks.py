"""The README's table of reliability and security checks names only tests that exist: renaming or removing
one of them without the table fails here, so the table cannot claim a check nothing runs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _table() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Reliability and security checks")
    return text[start : text.index("\n## ", start + 1)]


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_check_in_the_readme_names_a_test_that_exists() -> None:
    nodes = NODE.findall(_table())
    assert len(nodes) >= 25
    missing = [
        f"{f}::{name}" for f, name in nodes if not (ROOT / f).is_file() or name not in _test_names(ROOT / f)
    ]
    assert missing == []


def test_every_row_of_the_table_names_a_test() -> None:
    rows = [
        line for line in _table().splitlines() if line.startswith("| ") and not line.startswith("| check")
    ]
    assert rows and all(NODE.search(row) for row in rows)
