"""The user's own name in what they write: who it names, and the same words in the first person.

People rarely call themselves by name, but questions written about them do ("What does Dana play?" asked by
Dana; LoCoMo's questions all read so). Read as the user's, such a question asks what "I" did, and memory is
searched that way: every line the user said is theirs, so their name adds nothing to a search but the lines
that address someone else by theirs.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from core.ports import FactView
from core.relations import USER_ID


def user_names(facts: Sequence[FactView]) -> list[str]:
    """The user's own names among current facts ("The user is named Dana")."""
    return [
        f.object for f in facts if f.subject == USER_ID and f.predicate == "named" and f.status == "current"
    ]


def _named_at(name: str) -> re.Pattern[str]:
    # as a name is written, capitalised, and not as the first word (a user called Will asking "Will it rain?")
    return re.compile(rf"(?<=\S)(\s+){re.escape(name)}\b(['\u2019]s\b)?")


def names_user(text: str, names: Collection[str]) -> bool:
    """Whether `text` names the user by one of their own `names` ("What does Dana play?" to Dana)."""
    return any(_named_at(name).search(text) for name in names if name.strip())


def in_first_person(text: str, names: Collection[str]) -> str:
    """`text` with the user's own name, where it names them, as "I" or "my" ("What did Dana paint for
    Dana's mum?" -> "What did I paint for my mum?"); unchanged when it does not name them."""
    for name in names:
        if name.strip():
            text = _named_at(name).sub(lambda m: f"{m.group(1)}{'my' if m.group(2) else 'I'}", text)
    return text
