"""The skills folder: SKILL.md read and written, a removed skill moved aside (never deleted), a learned skill
never replacing the user's, and memory's index made to match the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import UserInputError
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from memory.skills import SKILLS_COLLECTION, SKILLS_DIR, Skill, SkillLibrary, parse_skill, record_id
from tests.unit.memory.profile_helpers import committed_profiles

ROUTER = Skill(
    "reset-the-router", "the internet is down", "1. Unplug it.\n2. Wait ten seconds.", ("web_search",)
)


@pytest.fixture
def memory() -> MemoryService:
    service = MemoryService(InMemoryStore(HashingEmbedder(64)), committed_profiles())
    service.open()
    return service


def test_a_skill_round_trips_through_its_skill_md_and_is_indexed(
    tmp_path: Path, memory: MemoryService
) -> None:
    library = SkillLibrary(tmp_path / SKILLS_DIR, memory)
    library.add(ROUTER)
    text = (tmp_path / SKILLS_DIR / "reset-the-router" / "SKILL.md").read_text()
    assert text.startswith("---\nname: reset-the-router\n") and "1. Unplug it." in text
    assert library.get("reset-the-router") == ROUTER
    (record,) = memory.store.get(SKILLS_COLLECTION, [record_id("reset-the-router")])
    assert "use when the internet is down" in record.text
    assert library.catalog() == ["reset-the-router: use when the internet is down"]


def test_removing_a_skill_moves_its_folder_aside_and_drops_it_from_the_index(
    tmp_path: Path, memory: MemoryService
) -> None:
    library = SkillLibrary(tmp_path / SKILLS_DIR, memory)
    library.add(ROUTER)
    moved = library.remove("reset-the-router")
    assert (moved / "SKILL.md").is_file() and moved.parent.name == ".removed"
    assert library.skills() == [] and memory.store.get(SKILLS_COLLECTION, [record_id(ROUTER.name)]) == []
    with pytest.raises(UserInputError, match="no skill 'reset-the-router'"):
        library.get("reset-the-router")


def test_a_learned_skill_never_replaces_the_users_own(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path / SKILLS_DIR)
    mine = Skill("how-do-i-reset-the-router", "I say so", "1. Call the ISP.")
    library.add(mine)
    assert library.learn("How do I reset the router", ["Unplug it", "Plug it back"]) is None
    assert library.get(mine.name) == mine
    learned = library.learn("How do I bake bread", ["Mix", "Knead", "Bake"])
    assert (
        learned is not None and learned.origin == "learned" and learned.steps.startswith("1. Mix\n2. Knead")
    )


def test_sync_indexes_skills_written_by_hand_and_drops_ones_deleted_by_hand(
    tmp_path: Path, memory: MemoryService
) -> None:
    library = SkillLibrary(tmp_path / SKILLS_DIR, memory)
    library.add(ROUTER)
    hand = tmp_path / SKILLS_DIR / "water-plants" / "SKILL.md"
    hand.parent.mkdir()
    hand.write_text("---\nname: water-plants\nwhen: it is Sunday\n---\nWater the ferns.\n")
    (tmp_path / SKILLS_DIR / "reset-the-router" / "SKILL.md").unlink()
    assert library.sync() == {"indexed": 1, "dropped": 1}
    assert library.sync() == {"indexed": 0, "dropped": 0}  # nothing changed: nothing embedded again
    ids = {r.id for r in memory.store.get(SKILLS_COLLECTION)}
    assert ids == {record_id("water-plants")}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no header", "must start with a '---' header"),
        ("---\nwhen: [unclosed\n---\nsteps", "not valid YAML"),
        ("---\nname: x\n---\nsteps", "needs 'when'"),
    ],
)
def test_an_unreadable_skill_md_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(UserInputError, match=problem):
        parse_skill("x", text)


def test_a_skill_needs_a_folder_name_and_its_words(tmp_path: Path) -> None:
    library = SkillLibrary(tmp_path / SKILLS_DIR)
    with pytest.raises(UserInputError, match="lowercase letters"):
        library.add(Skill("Bad Name", "when", "steps"))
    library.add(ROUTER)
    with pytest.raises(UserInputError, match="exists"):
        library.add(ROUTER)
    library.add(ROUTER, replace=True)
