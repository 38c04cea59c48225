"""Configuration of the knowledge sources Daemon reads besides conversations: an Obsidian vault and a
Wikipedia FAISS index (docs/knowledge.md). Git history reuses `session.git_repos`.

Part of `core.config`. The values live only in config.yaml (no defaults here); `null` switches a source off.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from core.config_memory import _Frozen


class ObsidianConfig(_Frozen):
    """`sync obsidian`: the vault's notes into `obsidian_notes`, their links and tags into the graph."""

    vault: Path | None  # the vault's folder (the one holding `.obsidian/`); null: no vault
    exclude: tuple[
        str, ...
    ]  # glob patterns of vault-relative paths never read (`Templates/**`, `*.excalidraw.md`)
    max_note_kb: int = Field(ge=1)  # a bigger note is skipped with a note in the report


class WikipediaConfig(_Frozen):
    """An optional, user-supplied FAISS index of Wikipedia passages, searched as `wiki_knowledge`."""

    index_dir: Path | None  # holds index.faiss and metadata.sqlite3 (docs/knowledge.md); null: none
    top_k: int = Field(ge=1, le=200)  # passages the index proposes per search
    nprobe: int = Field(ge=1, le=4096)  # IVF lists visited per search (recall against time; flat ignores it)
