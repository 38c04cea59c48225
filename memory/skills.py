"""Skills: how to do something, one folder per skill with its `SKILL.md`, in `<data dir>/skills/`.

    ---
    name: weekly-review
    when: the user asks for a review of their week
    tools: [search_memory, list_todos]
    origin: you
    ---
    1. Search memory for what the user did this week.
    2. List the open to-dos.
    3. Answer with three highlights and what is still open.

The folder is the catalog: skills the user wrote (`skills add`, the GUI, or by hand) and skills learned at
session end (a how-to question answered with steps; `origin: learned`) live side by side, and either can be
edited (it is a text file) or removed (`skills remove` moves the folder to `skills/.removed/`, never
deletes it). Memory's `procedural_skills` collection is the index: each skill is a record there, so the
prompt's "adaptive workflows" section shows the skills relevant to a message and the model loads one with
`use_skill`. `sync()` makes the index match the folder (at start, and after the GUI changes a skill).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core.durable import atomic_write
from core.errors import UserInputError
from memory.service import MemoryService
from memory.vector_store import Record

logger = logging.getLogger(__name__)
SKILLS_DIR = "skills"
SKILL_FILE = "SKILL.md"
SKILLS_COLLECTION = "procedural_skills"
SKILL_SOURCE = "skill"  # a record's `source`: indexed from the skills folder
_REMOVED = ".removed"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$|^[a-z0-9]$")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?(.*)\Z", re.S)
_MAX_STEPS = 8000


@dataclass(frozen=True)
class Skill:
    """A skill: its name (the folder's), when to use it, its steps, the tools it may use (empty: any)."""

    name: str
    when: str
    steps: str
    tools: tuple[str, ...] = ()
    origin: str = "you"  # "you" or "learned"

    def markdown(self) -> str:
        """The SKILL.md text."""
        front: dict[str, Any] = {"name": self.name, "when": self.when}
        if self.tools:
            front["tools"] = list(self.tools)
        front["origin"] = self.origin
        header = yaml.safe_dump(front, sort_keys=False, allow_unicode=True).strip()
        return f"---\n{header}\n---\n{self.steps.strip()}\n"

    def loaded(self) -> str:
        """What `use_skill` gives the model: when it applies, its steps, its tools."""
        tools = f"\nTools this skill uses: {', '.join(self.tools)}" if self.tools else ""
        return f"Skill {self.name} (use when {self.when}).\nSteps:\n{self.steps.strip()}{tools}"


def skill_name(words: str) -> str:
    """A folder name from words: "How do I reset the router?" -> "how-do-i-reset-the-router"."""
    slug = re.sub(r"[^a-z0-9]+", "-", words.casefold()).strip("-")
    return slug[:64].rstrip("-") or "skill"


def parse_skill(name: str, text: str) -> Skill:
    """A SKILL.md's skill; UserInputError naming what is wrong when it cannot be read."""
    match = _FRONT.match(text.lstrip("\ufeff"))
    if match is None:
        raise UserInputError(f"skill {name}: SKILL.md must start with a '---' header (name, when)")
    try:
        front = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as error:
        raise UserInputError(f"skill {name}: its header is not valid YAML ({error})") from None
    if not isinstance(front, dict):
        raise UserInputError(f"skill {name}: its header must be 'key: value' lines")
    when, steps = str(front.get("when") or front.get("description") or "").strip(), match.group(2).strip()
    if not when or not steps:
        raise UserInputError(f"skill {name}: it needs 'when' in its header and steps below it")
    tools = front.get("tools") or ()
    if isinstance(tools, str):
        tools = [t.strip() for t in tools.split(",")]
    return Skill(
        name, when, steps, tuple(str(t) for t in tools if str(t).strip()), str(front.get("origin", "you"))
    )


class SkillLibrary:
    """The skills folder, indexed into `index` (the memory service; None: the folder alone)."""

    def __init__(self, folder: Path, index: MemoryService | None = None) -> None:
        self.folder = folder
        self._index = index

    def skills(self) -> list[Skill]:
        """Every readable skill by name; an unreadable SKILL.md is logged and left out (never changed)."""
        found = []
        for path in sorted(self.folder.glob(f"*/{SKILL_FILE}")) if self.folder.is_dir() else []:
            try:
                found.append(parse_skill(path.parent.name, path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError, UserInputError) as problem:
                logger.warning("skipping the skill in %s: %s", path.parent, problem)
        return found

    def get(self, name: str) -> Skill:
        path = self.folder / name.strip() / SKILL_FILE
        if not _NAME.match(name.strip()) or not path.is_file():
            known = ", ".join(s.name for s in self.skills()) or "none yet"
            raise UserInputError(f"no skill {name!r} (skills: {known})")
        return parse_skill(name.strip(), path.read_text(encoding="utf-8"))

    def catalog(self) -> list[str]:
        """One line per skill for the prompt: "weekly-review: use when the user asks for a review …"."""
        return [f"{s.name}: use when {s.when}" for s in self.skills()]

    def loaded(self, name: str) -> str:
        """What `use_skill` gives the model for skill `name` (UserInputError when there is none)."""
        return self.get(name).loaded()

    def add(self, skill: Skill, *, replace: bool = False) -> Skill:
        """Write a skill's folder; an existing one is replaced only with `replace`."""
        if not _NAME.match(skill.name):
            raise UserInputError(
                "a skill's name is 1-64 lowercase letters, digits and '-' (like weekly-review), "
                f"not {skill.name!r}"
            )
        if not skill.when.strip() or not skill.steps.strip():
            raise UserInputError("a skill needs when to use it and its steps")
        if len(skill.steps) > _MAX_STEPS:
            raise UserInputError(f"a skill's steps are at most {_MAX_STEPS} characters")
        path = self.folder / skill.name / SKILL_FILE
        if path.exists() and not replace:
            raise UserInputError(f"skill {skill.name} exists; remove it first or edit {path}")
        atomic_write(path, skill.markdown().encode("utf-8"))
        self._index_skills([skill])
        return skill

    def remove(self, name: str) -> Path:
        """Move the skill's folder to `skills/.removed/` (kept, out of the catalog); where it went."""
        skill = self.get(name)
        target = self.folder / _REMOVED / f"{skill.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        target.parent.mkdir(parents=True, exist_ok=True)
        (self.folder / skill.name).rename(target)
        if self._index is not None:
            self._index.delete(SKILLS_COLLECTION, [record_id(skill.name)])
        return target

    def learn(self, trigger: str, steps: Sequence[str]) -> Skill | None:
        """A skill learned at session end (a how-to answered with steps); None when a skill of that name
        exists (the user's own is never replaced by a learned one)."""
        skill = Skill(
            skill_name(trigger),
            trigger,
            "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)),
            (),
            "learned",
        )
        if (self.folder / skill.name / SKILL_FILE).exists():
            return None
        return self.add(skill)

    def sync(self) -> dict[str, int]:
        """Make the index match the folder: every skill indexed, removed ones no longer."""
        if self._index is None:
            return {"indexed": 0, "dropped": 0}
        skills = self.skills()
        indexed = {
            r.id: r
            for r in self._index.store.get(SKILLS_COLLECTION)
            if r.metadata.get("source") == SKILL_SOURCE
        }
        gone = sorted(set(indexed) - {record_id(s.name) for s in skills})
        if gone:
            self._index.delete(SKILLS_COLLECTION, gone)
        changed = [s for s in skills if not _same(indexed.get(record_id(s.name)), memory_record(s))]
        self._index_skills(changed)  # an unchanged skill is not embedded again
        return {"indexed": len(changed), "dropped": len(gone)}

    def _index_skills(self, skills: Sequence[Skill]) -> None:
        if self._index is None or not skills:
            return
        try:
            self._index.add(SKILLS_COLLECTION, [memory_record(s) for s in skills])
        except Exception:  # noqa: BLE001 - the folder holds the skill; sync() indexes it at the next start
            logger.exception("could not index %d skill(s) into memory", len(skills))


def _same(stored: Record | None, wanted: Record) -> bool:
    return (
        stored is not None
        and stored.text == wanted.text
        and all(stored.metadata.get(key) == wanted.metadata.get(key) for key in ("trigger", "action_pattern"))
    )


def record_id(name: str) -> str:
    return f"skill_{name}"


def memory_record(skill: Skill) -> Record:
    """A skill as memory indexes it: found by when it applies; its steps are loaded with `use_skill`."""
    return Record(
        record_id(skill.name),
        f"Skill {skill.name}: use when {skill.when} (load its steps with use_skill)",
        {
            "created_at": time.time(),
            "source": SKILL_SOURCE,
            "external_id": skill.name,
            "trigger": skill.when,
            "action_pattern": skill.steps[:600],
            "category": "skill",
        },
    )
