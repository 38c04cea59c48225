"""What `skills list|show|add|remove` print."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import UserInputError
from memory.skills import Skill
from ui.shared.payloads import print_json


def skill_payload(skill: Skill) -> dict[str, Any]:
    return {
        "name": skill.name,
        "when": skill.when,
        "steps": skill.steps,
        "tools": list(skill.tools),
        "origin": skill.origin,
    }


def read_steps(value: str) -> str:
    """The steps as given, or read from @FILE."""
    if not value.startswith("@"):
        return value
    path = Path(value[1:]).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserInputError(f"cannot read the steps from {path}: {error}") from None


def show_skills(skills: list[Skill], *, as_json: bool) -> int:
    if as_json:
        print_json({"skills": [skill_payload(s) for s in skills]})
        return 0
    if not skills:
        print("no skills yet (add one: python main.py skills add NAME --when '…' --steps '…')")
    for skill in skills:
        origin = "  (learned)" if skill.origin == "learned" else ""
        print(f"{skill.name}: use when {skill.when}{origin}")
    return 0


def show_skill(skill: Skill, *, as_json: bool, added: bool = False) -> int:
    if as_json:
        print_json({"skill": skill_payload(skill)})
        return 0
    if added:
        print(f"skill {skill.name} written; Daemon indexes it at its next start")
    print(skill.markdown(), end="")
    return 0


def show_removed(name: str, moved_to: Path, *, as_json: bool) -> int:
    if as_json:
        print_json({"removed": name, "moved_to": str(moved_to)})
    else:
        print(f"removed {name} (its folder is kept in {moved_to})")
    return 0
