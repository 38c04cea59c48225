"""Intent profiles: the committed values, fallback to general, user overrides, immutability."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from core.config import INTENT_NAMES, MEMORY_COLLECTION_NAMES, load_config
from core.errors import ConfigError
from memory.collections import COLLECTION_NAMES
from memory.profiles import IntentProfiles, profiles_from_config
from tests.unit.memory.profile_helpers import committed_profiles


def test_the_nine_intents_have_profiles_covering_the_13_collections() -> None:
    profiles = committed_profiles()
    assert set(profiles.names) == set(INTENT_NAMES) and len(INTENT_NAMES) == 9
    assert MEMORY_COLLECTION_NAMES == COLLECTION_NAMES  # core's copy of the names matches the collections
    for name in INTENT_NAMES:
        profile = profiles.get(name)
        assert profile.name == name
        assert set(profile.limits) == set(COLLECTION_NAMES)
        weights = profile.weights.model_dump()
        assert sum(weights.values()) == pytest.approx(1.0), name
        assert max(weights, key=weights.__getitem__) == "relevance", name
        assert 0 <= profile.gate_threshold <= 1 and profile.min_keep >= 1 and profile.half_life_days > 0


def test_unknown_or_missing_intent_falls_back_to_general() -> None:
    profiles = committed_profiles()
    assert profiles.get("no_such_intent") is profiles.get("general")
    assert profiles.get(None).name == "general"
    assert profiles["technical_help"].name == "technical_help"
    assert "general" in profiles and "no_such_intent" not in profiles


def test_profiles_need_a_general_fallback() -> None:
    with pytest.raises(ValueError, match="general"):
        IntentProfiles({"casual_social": committed_profiles().get("casual_social")})


def test_intent_defaults_make_sense() -> None:
    p = committed_profiles()
    technical, casual, general = p.get("technical_help"), p.get("casual_social"), p.get("general")
    for name in ("git_commits", "reference_docs", "procedural_skills"):
        assert technical.limit(name) > 0
    assert casual.limit("git_commits") == casual.limit("reference_docs") == casual.limit("reflections") == 0
    assert sum(casual.limits.values()) < sum(general.limits.values()) / 3
    assert set(casual.enabled_collections) == {"conversations", "facts", "summaries"}
    emotional = p.get("emotional_support")
    assert emotional.limit("reflections") > general.limit("reflections")
    assert emotional.limit("conversations") > 0 and emotional.limit("git_commits") == 0
    temporal = p.get("temporal_recall")
    assert temporal.bonuses.time_window > general.bonuses.time_window
    assert temporal.recency_by_active_days is False  # "last week" is a calendar week
    assert p.get("meta_conversational").bonuses.meta > 0 and general.bonuses.meta == 0
    assert p.get("project_work").penalties.closed_item > general.penalties.closed_item
    assert p.get("factual_recall").weights.truth > general.weights.truth


def test_profiles_are_immutable() -> None:
    profile = committed_profiles().get("general")
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.min_keep = 1  # type: ignore[misc]  # writing to it is the point
    with pytest.raises(TypeError):
        profile.limits["conversations"] = 1  # type: ignore[index]  # writing to it is the point
    assert profile.limit("no_such_collection") == 0


def test_the_profiles_have_no_values_outside_config_yaml(tmp_path: Path) -> None:
    """config.yaml is the only copy: a defaults file without the profiles is an error, not a fallback."""
    bare = tmp_path / "bare.yaml"
    bare.write_text("memory:\n  recall_limit: 6\n")
    with pytest.raises(ConfigError, match="memory.profiles"):
        load_config(defaults_file=bare)


def test_user_config_overrides_single_keys(tmp_path: Path) -> None:
    user = tmp_path / "mine.yaml"
    user.write_text(
        "memory:\n"
        "  dense_weight: 0.6\n"
        "  structure_prior: {conversations: 0.9}\n"
        "  profiles:\n"
        "    casual_social:\n"
        "      min_keep: 2\n"
        "      weights: {recency: 0.3}\n"
        "      limits: {wiki_knowledge: 4}\n"
        "      penalties: {size_chars: 500}\n"
    )
    profiles = profiles_from_config(load_config(user).memory)
    casual, committed = profiles.get("casual_social"), committed_profiles().get("casual_social")
    assert casual.min_keep == 2 and casual.weights.recency == 0.3 and casual.limit("wiki_knowledge") == 4
    assert casual.penalties.size_chars == 500
    assert casual.weights.relevance == committed.weights.relevance  # untouched keys keep their values
    assert casual.limit("conversations") == committed.limit("conversations")
    assert all(profiles.get(name).dense_weight == 0.6 for name in INTENT_NAMES)
    assert profiles.get("general").structure_prior["conversations"] == 0.9
    assert profiles.get("general").structure_prior["facts"] == 1.0
