"""LoCoMo benchmark: loading by the rules, slot-counting metrics, and the runner on a tiny synthetic file."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from eval.benchmarks.locomo import (
    LocomoConversation,
    SearchFn,
    distinct_ids,
    evaluate_retriever,
    load_locomo,
    normalise_evidence,
    parse_session_datetime,
    recall_at_k,
    reciprocal_rank,
    run_locomo,
    summarise,
    unit_text,
)
from eval.benchmarks.locomo_methods import (
    HybridTurnRetriever,
    UnitEncoder,
    contextual_text,
    make_factory,
)
from memory.embeddings import HashingEmbedder

SAMPLE = {
    "sample_id": "conv-test",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob! I went to a pottery class yesterday."},
            {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice! What did you make?"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "A blue bowl.", "blip_caption": "a photo of a bowl"},
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Bob", "dia_id": "D2:1", "text": "I adopted a puppy named Rex last week."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "Congrats on the puppy, Bob!"},
        ],
        "session_3_date_time": "9:00 am on 1 July, 2023",
    },
    "qa": [
        {
            "question": "When did Ann go to a pottery class?",
            "answer": "7 May 2023",
            "evidence": ["D1:1"],
            "category": 2,
        },
        {"question": "What did Ann make?", "answer": "a bowl", "evidence": ["D1:3"], "category": 4},
        {
            "question": "What is Bob's puppy called?",
            "answer": "Rex",
            "evidence": ["D2:1; D1:2"],
            "category": 1,
        },
        {"question": "Adversarial", "answer": "", "evidence": ["D1:1"], "category": 5},
        {"question": "No evidence", "answer": "x", "evidence": [], "category": 4},
    ],
    "session_summary": {"session_1_summary": "leaks the answers and must be ignored"},
}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([SAMPLE]))
    return path


def test_parse_session_datetime() -> None:
    assert parse_session_datetime("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_session_datetime("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9)


def test_unit_text_appends_the_caption() -> None:
    assert unit_text("Ann", " Hello ") == "Ann: Hello"
    assert unit_text("Ann", "Look", "a dog") == "Ann: Look [image: a dog]"


def test_normalise_evidence_splits_and_repairs() -> None:
    known = {"D8:6", "D9:17", "D11:26"}
    assert normalise_evidence(["D8:6; D9:17", "D:11:26", "D", "D10:19", "D8:6"], known) == (
        "D8:6",
        "D9:17",
        "D11:26",
    )


def test_load_follows_the_rules(dataset: Path) -> None:
    (conv,) = load_locomo(dataset)
    assert conv.speakers == ("Ann", "Bob")
    assert [u.uid for u in conv.units] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert conv.units[2].text == "Ann: A blue bowl. [image: a photo of a bowl]"
    assert conv.units[3].timestamp == datetime(2023, 6, 20, 10, 0)
    assert [(u.session, u.position) for u in conv.units[2:4]] == [(1, 2), (2, 0)]
    assert [q.category for q in conv.questions] == [2, 4, 1]
    assert conv.questions[2].evidence == ("D2:1", "D1:2")
    assert not any("leaks" in u.text for u in conv.units)


def test_an_item_covering_many_turns_uses_many_slots() -> None:
    ranked = [["D1:1", "D1:2", "D1:3"], ["D1:2"], ["D2:1"]]
    assert distinct_ids(ranked, 10) == ["D1:1", "D1:2", "D1:3", "D2:1"]
    assert distinct_ids(ranked, 2) == ["D1:1", "D1:2"]
    assert recall_at_k(ranked, ["D2:1"], 3) == 0.0
    assert recall_at_k(ranked, ["D2:1"], 4) == 1.0
    assert recall_at_k(ranked, ["D1:3", "D2:1", "D2:1"], 3) == 0.5
    assert recall_at_k(ranked, [], 3) == 0.0


def test_reciprocal_rank_counts_slots() -> None:
    assert reciprocal_rank([["D1:1", "D1:2"], ["D2:1"]], ["D2:1"]) == pytest.approx(1 / 3)
    assert reciprocal_rank([["D1:1"]], ["D9:9"]) == 0.0


def test_summarise_per_category() -> None:
    rows = [(1, [0.5, 1.0], 0.5), (4, [1.0, 1.0], 1.0), (4, [0.0, 0.0], 0.0)]
    out = summarise(rows, (5, 10))
    assert out["questions"] == 3 and out["recall"] == {"5": 0.5, "10": 0.6667}
    assert out["per_category"]["4"] == {
        "name": "single-hop",
        "questions": 2,
        "recall": {"5": 0.5, "10": 0.5},
        "mrr": 0.5,
    }
    assert set(out["per_category"]) == {"1", "4"}


def test_contextual_text_stays_in_the_session(dataset: Path) -> None:
    (conv,) = load_locomo(dataset)
    assert contextual_text(conv.units, 1) == f"{conv.units[0].text}\n{conv.units[1].text}"
    assert contextual_text(conv.units, 3) == conv.units[3].text


def test_hybrid_retriever_ranks_single_turns(dataset: Path) -> None:
    (conv,) = load_locomo(dataset)
    retriever = HybridTurnRetriever(conv.units, UnitEncoder(HashingEmbedder(dim=256)))
    ranked = retriever.search("Which puppy did Bob adopt?")
    assert ranked[0] == ["D2:1"]
    assert all(len(item) == 1 for item in ranked)
    assert sorted(uid for (uid,) in ranked) == sorted(u.uid for u in conv.units)


def test_run_locomo_reports_method_and_baselines(dataset: Path, tmp_path: Path) -> None:
    result = run_locomo(dataset, embedder=HashingEmbedder(dim=128), cache_dir=tmp_path / "cache")
    assert result["questions"] == 3 and result["method"] == "hybrid"
    assert set(result["recall"]) == {"5", "10", "20"}
    assert set(result["baselines"]) == {"dense", "bm25", "bm25_stemmed"}
    assert set(result["latency_ms"]) == {"p50", "p95"} and set(result["query_embedding_ms"]) == {"p50", "p95"}
    assert result["recall"]["20"] == 1.0  # five turns: everything fits in twenty slots
    assert list(tmp_path.joinpath("cache").glob("units_*.npy"))


def test_the_retriever_is_pluggable(dataset: Path) -> None:
    def windows_of_three(conv: LocomoConversation) -> SearchFn:
        ids = [u.uid for u in conv.units]
        return lambda query: [ids[i : i + 3] for i in range(0, len(ids), 3)]

    result = run_locomo(dataset, ks=(3,), method=windows_of_three, embedder=HashingEmbedder(), baselines=())
    assert result["method"] == "windows_of_three" and result["baselines"] == {}
    # only the first window fits in three slots: D1:1 and D1:3 are found, D2:1 of question 3 is not
    assert result["recall"]["3"] == pytest.approx((1 + 1 + 0.5) / 3, abs=1e-4)


def test_unknown_method_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown method"):
        make_factory("magic", UnitEncoder(HashingEmbedder()))


def test_evaluate_retriever_measures_latency(dataset: Path) -> None:
    convs = load_locomo(dataset)
    result = evaluate_retriever(convs, lambda conv: lambda query: [["D1:1"]], ks=(1,))
    assert result["recall"]["1"] == pytest.approx(1 / 3, abs=1e-4) and result["latency_ms"]["p50"] >= 0
