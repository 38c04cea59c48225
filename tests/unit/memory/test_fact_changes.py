"""Changes of any kind through the real fact store: a change to nothing known is kept as the change, an
ending verb ends what it names, a correction that names values only finds the fact it corrects."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.relations import fact_sentence
from eval.corrections_report import Listed, replay
from memory.facts.grammar import GrammarFactExtractor


async def told(reader: GrammarFactExtractor, tmp_path: Path, first: str, later: str) -> Listed:
    return await replay(reader, tmp_path, first, later)


def current(listed: Listed) -> set[tuple[str, str, str]]:
    return {fact for fact, status in listed.items() if status == "current"}


async def test_a_change_to_nothing_known_is_kept_as_the_change(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader, tmp_path, "I'm a big fan of jazz.", "I've stopped climbing since my knee injury."
    )
    assert ("user", "no_longer_likes", "climbing") in current(listed)
    assert fact_sentence("user", "no_longer_likes", "climbing") == "The user no longer likes climbing."


async def test_a_plain_denial_of_nothing_known_stores_nothing(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(reader, tmp_path, "I'm a big fan of jazz.", "I don't live in Paris.")
    assert not any(relation.endswith("lives_in") for _, relation, _ in listed)


async def test_taking_a_thing_up_again_ends_the_fact_of_its_end(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(reader, tmp_path, "I no longer play the cello.", "I play the cello in an orchestra.")
    assert listed[("user", "no_longer_likes", "cello")] == "superseded"
    assert ("user", "plays", "cello") in current(listed)


async def test_a_correction_naming_the_old_value_finds_whose_it_was(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader,
        tmp_path,
        "my mom lives in Phoenix and hates the summers there",
        "sorry I meant Tucson, not Phoenix.",
    )
    assert ("my mom", "lives_in", "tucson") in current(listed)
    assert listed[("my mom", "lives_in", "phoenix")] == "superseded"


@pytest.mark.parametrize(
    ("first", "later", "new", "old"),
    [
        (
            "I live in Boston.",
            "Sorry, I meant Denver.",
            ("user", "lives_in", "denver"),
            ("user", "lives_in", "boston"),
        ),
        ("I'm 34 years old.", "oops I meant 43", ("user", "age", "43"), ("user", "age", "34")),
    ],
)
async def test_a_correction_naming_the_new_value_alone_replaces_the_newest_of_its_kind(
    reader: GrammarFactExtractor,
    tmp_path: Path,
    first: str,
    later: str,
    new: tuple[str, str, str],
    old: tuple[str, str, str],
) -> None:
    listed = await told(reader, tmp_path, first, later)
    assert new in current(listed) and listed[old] == "superseded"


async def test_a_correction_with_nothing_to_correct_stores_nothing(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(reader, tmp_path, "I'm a big fan of jazz.", "sorry, I meant Denver")
    assert set(listed) == {("user", "likes", "jazz")}


async def test_an_ending_verb_ends_what_it_names_and_nothing_else(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader,
        tmp_path,
        "I subscribe to Netflix and Spotify.",
        "cancelled Netflix yesterday, we never watch it",
    )
    assert listed[("user", "subscribes_to", "netflix")] == "superseded"
    assert ("user", "subscribes_to", "spotify") in current(listed)
    assert not any(relation.startswith("no_longer_") for _, relation, _ in listed)  # no relation to keep


async def test_a_pet_put_down_ends_its_name_and_its_facts(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader,
        tmp_path,
        "my dog Biscuit is 14 and still chases squirrels",
        "we had to put Biscuit down on Tuesday.",
    )
    assert listed[("my dog", "named", "biscuit")] == "superseded"
    assert listed[("biscuit", "age", "14")] == "superseded"


def test_ending_verbs_used_for_other_things_end_nothing(reader: GrammarFactExtractor) -> None:
    for text in (
        "I dropped the kids off at school.",
        "we ended up calling her Pepper",
        "I put the kettle on.",
    ):
        assert not [f for f in reader.extract(text) if f.predicate == "ended"], text


async def test_a_named_animal_lost_ends_its_name_but_a_divorce_ends_only_the_marriage(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    lost = await told(
        reader,
        tmp_path,
        "My dog Rocky is a grumpy old beagle.",
        "We lost Rocky back in March, the house is quiet.",
    )
    assert lost[("my dog", "named", "rocky")] == "superseded"
    (tmp_path / "divorce").mkdir()
    divorced = await told(
        reader, tmp_path / "divorce", "my husband Carlos is a pilot", "Carlos and I are divorced now"
    )
    assert divorced[("carlos", "is_a", "pilot")] == "current"


async def test_retiring_with_no_object_ends_the_work_facts_only(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader,
        tmp_path,
        "I'm an accountant at Hartley & Moss and I love jazz.",
        "Retired at last! No more spreadsheets.",
    )
    assert listed[("user", "is_a", "accountant")] == "superseded"
    assert ("user", "likes", "jazz") in current(listed)


async def test_someone_moved_by_the_user_lives_where_they_were_moved(
    reader: GrammarFactExtractor, tmp_path: Path
) -> None:
    listed = await told(
        reader,
        tmp_path,
        "My grandmother Edith lives on her own in Margate.",
        "we moved Edith into a care home in Canterbury last month",
    )
    assert listed[("edith", "lives_in", "margate")] == "superseded"
    assert ("edith", "lives_in", "canterbury") in current(listed)
    assert not reader.extract("my parents moved us to Chicago when I was ten")  # a childhood, not a home


async def test_meant_without_i_still_corrects(reader: GrammarFactExtractor, tmp_path: Path) -> None:
    listed = await told(
        reader, tmp_path, "i live in Austin, been here about 6 years", "sorry, meant Dallas. long day"
    )
    assert listed[("user", "lives_in", "austin")] == "superseded"
    assert ("user", "lives_in", "dallas") in current(listed)
    assert not [f for f in reader.extract("I mean, it's fine.") if f.predicate == "replaces_value"]
