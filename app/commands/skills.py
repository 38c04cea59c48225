"""`python main.py skills list|show|add|remove`: the skills folder, from the shell (its files only, so it
works beside a running Daemon; the memory index follows at the next start, or at once from the GUI)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="skills_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every skill: yours and the ones learned at session end")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    show = actions.add_parser("show", help="one skill: when to use it, its steps, its tools")
    show.add_argument("name")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    add = actions.add_parser(
        "add", help="write a skill: skills add weekly-review --when '…' --steps '1. … 2. …'"
    )
    add.add_argument("name", help="lowercase letters, digits and '-' (the folder's name)")
    add.add_argument("--when", required=True, help="when to use it, e.g. 'the user asks for a weekly review'")
    add.add_argument("--steps", required=True, help="its steps, or @FILE to read them from a file")
    add.add_argument("--tools", default="", help="the tools it uses, comma-separated (empty: any)")
    add.add_argument("--replace", action="store_true", help="replace a skill of the same name")
    add.add_argument("--json", action="store_true", help="print one JSON object")
    remove = actions.add_parser("remove", help="take a skill out of the catalog (moved to skills/.removed/)")
    remove.add_argument("name")
    remove.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from memory.skills import SKILLS_DIR, Skill, SkillLibrary
    from ui.terminal.skills import read_steps, show_removed, show_skill, show_skills

    library = SkillLibrary(config.data_dir / SKILLS_DIR)
    if args.skills_command == "list":
        return show_skills(library.skills(), as_json=args.json)
    if args.skills_command == "show":
        return show_skill(library.get(args.name), as_json=args.json)
    if args.skills_command == "add":
        tools = tuple(t.strip() for t in args.tools.split(",") if t.strip())
        skill = Skill(args.name.strip(), args.when.strip(), read_steps(args.steps), tools)
        return show_skill(library.add(skill, replace=args.replace), as_json=args.json, added=True)
    return show_removed(args.name, library.remove(args.name), as_json=args.json)


COMMAND = Command(
    "skills", "skills: how to do things, yours and learned; list, show, add, remove", _arguments, _run
)
