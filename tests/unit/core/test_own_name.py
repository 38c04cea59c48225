"""The user's own name in their words: who it names, and the same words in the first person."""

from __future__ import annotations

import pytest

from core.own_name import in_first_person, names_user, user_names
from core.ports import FactView

NAMES = ("Melanie", "Will")


@pytest.mark.parametrize(
    ("text", "searched"),
    [
        ("What did Melanie do after the road trip?", "What did I do after the road trip?"),
        ("What did Melanie\u2019s kids make?", "What did my kids make?"),
        ("What painting did Melanie show to Caroline?", "What painting did I show to Caroline?"),
        ("Will it rain tomorrow?", "Will it rain tomorrow?"),  # a first word is not a name
        ("Where does Melanies live?", "Where does Melanies live?"),  # only the whole name
    ],
)
def test_the_users_own_name_reads_as_the_first_person(text: str, searched: str) -> None:
    assert in_first_person(text, NAMES) == searched
    assert names_user(text, NAMES) == (text != searched)


def test_only_a_current_name_of_the_user_is_theirs() -> None:
    facts = [
        FactView("f1", "user", "named", "Dana", "current", 0.9, "identity"),
        FactView("f2", "user", "named", "Dee", "superseded", 0.9, "identity"),
        FactView("f3", "my sister", "named", "Jo", "current", 0.9, "family"),
    ]
    assert user_names(facts) == ["Dana"]
