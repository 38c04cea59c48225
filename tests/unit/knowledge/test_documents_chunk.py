"""Structure-aware chunking: exact slices, header paths, whole code blocks, pages, and the token cap of the
real MiniLM tokenizer never exceeded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from knowledge.documents.chunk import chunk_text, estimate_tokens
from tests.unit.knowledge.documents_samples import MARKDOWN, PYTHON


@pytest.fixture(scope="module")
def minilm() -> Callable[[str], int]:
    from memory.document_store import minilm_token_counter

    return minilm_token_counter()


def texts(
    text: str, file_type: str, count: Callable[[str], int], max_tokens: int = 240, target_chars: int = 700
) -> list[str]:
    chunks = chunk_text(text, file_type, count, max_tokens=max_tokens, target_chars=target_chars)
    return [text[c.start : c.end] for c in chunks]


def test_chunks_join_back_into_the_text_exactly(minilm: Callable[[str], int]) -> None:
    for text, kind in ((MARKDOWN, "md"), (PYTHON, "code"), ("one\n\n\ntwo  \n", "txt"), (" x", "md")):
        assert "".join(texts(text, kind, minilm, target_chars=60)) == text


def test_each_chunk_carries_its_markdown_header_path(minilm: Callable[[str], int]) -> None:
    text = "# Guide\n\nIntro.\n\n## Linux\n\nApt.\n\n### Arch\n\nPacman.\n\n## Mac\n\nBrew.\n"
    chunks = chunk_text(text, "md", minilm, max_tokens=240, target_chars=12)
    sections = {text[c.start : c.end].strip(): c.section for c in chunks}
    assert sections["## Linux\n\nApt."] == "Guide > Linux"
    assert sections["### Arch\n\nPacman."] == "Guide > Linux > Arch"
    assert sections["## Mac\n\nBrew."] == "Guide > Mac"


def test_a_header_starts_a_chunk_and_is_never_left_alone(minilm: Callable[[str], int]) -> None:
    body = "word " * 100
    text = f"# A\n\n{body}\n\n## B\n\n{body}\n"
    found = texts(text, "md", minilm, target_chars=300)
    assert found[0].startswith("# A\n\nword") and any(t.startswith("## B\n\nword") for t in found)


def test_a_fenced_code_block_is_kept_whole_when_it_fits(minilm: Callable[[str], int]) -> None:
    code = "```python\n" + "".join(f"x{i} = {i}\n" for i in range(40)) + "```\n"
    text = f"# Code\n\nBefore.\n\n{code}\nAfter.\n"
    found = texts(text, "md", minilm, target_chars=100)
    assert any(code.strip() in t for t in found)


def test_a_code_block_over_the_cap_is_split_at_lines(minilm: Callable[[str], int]) -> None:
    code = "```\n" + "".join(f"value_{i} = compute({i}, {i + 1})\n" for i in range(200)) + "```\n"
    found = texts(code, "md", minilm)
    assert len(found) > 1 and all(t.endswith("\n") for t in found)
    assert all(minilm(t) <= 240 for t in found)


def test_source_code_splits_between_top_level_definitions(minilm: Callable[[str], int]) -> None:
    chunks = chunk_text(PYTHON, "code", minilm, max_tokens=240, target_chars=60)
    found = [PYTHON[c.start : c.end] for c in chunks]
    assert any(t.startswith("def first") and "return y" in t for t in found)  # the blank line inside stays
    assert any(c.section == "class Second:" for c in chunks)


def test_pdf_pages_are_chunk_boundaries_and_sections(minilm: Callable[[str], int]) -> None:
    text = "first page text\n\nsecond page text\n\n"
    chunks = chunk_text(text, "pdf", minilm, max_tokens=240, target_chars=700, pages=(0, 17))
    assert [(text[c.start : c.end], c.section) for c in chunks] == [
        ("first page text\n\n", "page 1"),
        ("second page text\n\n", "page 2"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Lorem ipsum dolor sit amet, consectetur. " * 300,  # prose, no paragraph breaks
        "http://example.org/" + "a1b2c3" * 2000,  # one long token-dense run with no space
        "東京都は日本の首都です。" * 400,  # every character its own word piece
        "3.14159 2.71828 1.41421 " * 500,  # numbers split into many pieces
    ],
)
def test_no_chunk_is_longer_than_the_model_reads(minilm: Callable[[str], int], text: str) -> None:
    found = texts(text, "txt", minilm)
    assert "".join(found) == text
    assert max(minilm(t) for t in found) <= 240


def test_the_estimate_overcounts_so_it_is_safe_without_the_tokenizer(minilm: Callable[[str], int]) -> None:
    for text in (MARKDOWN, PYTHON, "plain English words in a sentence."):
        assert estimate_tokens(text) >= minilm(text)


def test_an_empty_text_has_no_chunks(minilm: Callable[[str], int]) -> None:
    assert chunk_text("", "md", minilm, max_tokens=240, target_chars=700) == []
