"""The one loader of the tone readers' word lists: `data/tone/<name>.toml`, read once per process.

Word lists are data, not code: the lexicon's phrases, the danger reader's word classes and the statements
of other languages live in TOML files beside the heads' weights, each entry commented with why it is there.
A list grows only by the rule of docs/tone_eval.md ("A stopping rule"): a miss on a development set, and its
gain recorded on a set it was not tuned on.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

WORD_LISTS_DIR = Path(__file__).resolve().parents[2] / "data" / "tone"


@cache  # the files are shipped read-only with the code: one read per process, like an import
def word_lists(name: str) -> dict[str, Any]:
    """The parsed `data/tone/<name>.toml`; a missing or malformed file is an installation error: it raises."""
    with (WORD_LISTS_DIR / f"{name}.toml").open("rb") as file:
        return tomllib.load(file)


def words(text: str) -> frozenset[str]:
    """A word class written as one space-separated string ("kill murder stab")."""
    return frozenset(text.split())
