"""MiniLM with tuned top layers (the tone head's encoder): it computes what MiniLM computes when the layers
are MiniLM's own, what training computed when they are trained, and a head is only read over the vectors it
was trained on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from core.pipeline.linear_head import INTENT_HEAD, TONE_HEAD, HeadError, HeadSpec, read_tuned_layers
from memory.embeddings import HashingEmbedder, MiniLMEmbedder
from memory.tuned_encoder import TunedTopEncoder, copy_top_layers, load_head_for, top_layer_count, tuned_name

TEXTS = ["good morning :)", "I took all of my pills an hour ago", "can you fix this SQL query for me?"]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def own_top_layers(embedder: MiniLMEmbedder, layers: int) -> dict[str, np.ndarray]:
    bert, _, _ = embedder.transformer()
    return {key: value.numpy().copy() for key, value in copy_top_layers(bert, layers).state_dict().items()}


@pytest.mark.slow
def test_minilms_own_top_layers_reproduce_its_vectors(embedder: MiniLMEmbedder) -> None:
    encoder = TunedTopEncoder(embedder, own_top_layers(embedder, 2))
    assert encoder.layers == 2 and encoder.name == tuned_name(2)
    tuned, plain = encoder.embed(TEXTS), embedder.embed(TEXTS)
    assert tuned.shape == plain.shape == (3, 384)
    assert np.allclose((tuned * plain).sum(axis=1), 1.0, atol=1e-4)
    assert np.allclose(encoder.embed_query(TEXTS[1]), plain[1], atol=1e-3)  # one text, no padding


@pytest.mark.slow
def test_changed_top_layers_change_the_vectors(embedder: MiniLMEmbedder) -> None:
    state = own_top_layers(embedder, 1)
    noise = np.random.default_rng(0).normal(0.0, 0.05, state["0.output.LayerNorm.bias"].shape)
    state["0.output.LayerNorm.bias"] = state["0.output.LayerNorm.bias"] + noise.astype(np.float32)
    tuned, plain = TunedTopEncoder(embedder, state).embed(TEXTS), embedder.embed(TEXTS)
    assert (tuned * plain).sum(axis=1).max() < 0.999


@pytest.mark.slow
def test_a_trained_head_reads_after_saving_what_it_learned(embedder: MiniLMEmbedder, tmp_path: Path) -> None:
    """Train on a small separable set, save as `eval.train_head` saves, load as production loads: the
    float16 file and the inference path give the training's answers."""
    from eval.train_head import _save
    from eval.tune_top import TuneSettings, tune

    calm = ["what a lovely sunny day", "the pasta was great", "see you at the match", "thanks, that helps"]
    risk = ["I want to die tonight", "I cut myself again", "I took the whole bottle", "nobody will miss me"]
    texts, labels = calm * 3 + risk * 3, [0] * 12 + [3] * 12
    trained = tune(embedder, texts, labels, 4, TuneSettings(layers=1, epochs=8, head_rate=1e-2, batch=4))
    spec = HeadSpec("tmp_tone", TONE_HEAD.labels)
    examples = [(text, TONE_HEAD.labels[label]) for text, label in zip(texts, labels, strict=True)]
    weights = {f"top.{key}": value.astype(np.float16) for key, value in trained.top.items()}
    hidden = {"hidden_weights": trained.hidden[0], "hidden_bias": trained.hidden[1]}
    record = {"weights": trained.weights, "bias": trained.bias, "scale": 1.0, "model": tuned_name(1)}
    out = tmp_path / "tmp_tone_head.npz"
    _save(out, spec, examples, {**record, **hidden, **weights})
    assert top_layer_count(read_tuned_layers(spec, out)) == 1
    head = load_head_for(spec, embedder, out)
    assert all(head.vote(text)["crisis"] > 0.5 for text in risk)
    assert all(head.vote(text)["conversational"] > 0.5 for text in calm)


def test_the_shipped_tone_head_tunes_minilms_top_layers() -> None:
    assert top_layer_count(read_tuned_layers(TONE_HEAD)) == 3
    assert read_tuned_layers(INTENT_HEAD) == {}  # the intent head reads plain MiniLM vectors


def test_a_tuned_head_is_refused_over_another_model() -> None:
    with pytest.raises(HeadError, match="top layers"):
        load_head_for(TONE_HEAD, HashingEmbedder())


def test_a_damaged_weight_file_is_refused_not_raised(tmp_path: Path) -> None:
    """A truncated download or a bad copy (a zip header, then garbage) leaves the lexicon alone, as a
    missing file does: the composition root logs the `HeadError` and goes on."""
    damaged = tmp_path / "tone_head.npz"
    damaged.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
    assert read_tuned_layers(TONE_HEAD, damaged) == {}
    with pytest.raises(HeadError, match="cannot read"):
        load_head_for(TONE_HEAD, HashingEmbedder(), damaged)


def test_a_cached_query_vector_is_computed_once_and_read_only() -> None:
    """Both encoders cache query vectors through `QueryCache.vector`: a repeated text is not embedded
    again, and the shared array cannot be changed by one caller under another."""
    from memory.embeddings import QueryCache

    calls: list[list[str]] = []

    def embed(texts: Sequence[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    cache = QueryCache(2)
    first = cache.vector("hello", embed)
    assert cache.vector("hello", embed) is first and calls == [["hello"]]
    with pytest.raises(ValueError):
        first[0] = 2.0
