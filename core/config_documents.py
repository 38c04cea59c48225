"""Configuration of document ingestion (`documents:` in config.yaml). The values live only there.

`python main.py ingest` and the background jobs read it: the limits a file must pass before it is read
(size, type, pages) and how its text is cut into chunks the embedding model reads whole.
"""

from __future__ import annotations

from pydantic import Field

from core.config_memory import _Frozen


class DocumentsConfig(_Frozen):
    """Limits and chunk sizes of the document ingester (knowledge/documents)."""

    max_file_mb: float = Field(gt=0, le=4096)  # a bigger file is refused before a byte of it is read
    max_pages: int = Field(ge=1)  # a PDF with more pages is refused (a bound on extraction time)
    chunk_max_tokens: int = Field(ge=16, le=254)  # MiniLM reads 256 word pieces, [CLS] and [SEP] included
    chunk_target_chars: int = Field(ge=64)  # chunks are packed up to about this many characters
    max_chunks: int = Field(ge=1)  # a document that would need more chunks is refused
    code_extensions: tuple[str, ...]  # source files read as code (blocks kept whole)
    skip_dirs: tuple[str, ...]  # folder names a folder walk never enters
