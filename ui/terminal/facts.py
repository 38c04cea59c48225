"""`facts list`: what Daemon holds as true about the user and the people and things in their life."""

from __future__ import annotations

from dataclasses import asdict

from ui.shared.front_ports import FactList
from ui.shared.payloads import print_json


def list_facts(facts: FactList, *, status: str | None = None, as_json: bool = False) -> int:
    """Print the facts (current and superseded unless `status` picks one), oldest first."""
    found = facts.list_facts(status)
    if as_json:
        print_json({"facts": [asdict(fact) for fact in found]})
        return 0
    if not found:
        print('No facts yet. Tell Daemon about yourself ("I live in Lyon") and they appear here.')
        return 0
    for fact in found:
        why = f": {fact.reason}" if fact.reason else ""
        mark = "" if fact.status == "current" else f"  [superseded{why}]"
        relation = fact.predicate.replace("_", " ")
        print(f"{fact.subject} {relation} {fact.object}  (truth {fact.truth:.2f}){mark}")
    return 0
