"""The Skills tab: the skills folder (yours and the ones learned at session end), one shown whole, written
or edited, and removed (moved aside, never deleted). Changes are indexed at once, so the next message's
prompt lists them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import UserInputError
from memory.skills import Skill
from ui.gui.widgets import row_picker, said
from ui.shared.render import markdown_text

if TYPE_CHECKING:
    from memory.skills import SkillLibrary

SKILL_HEADERS = ["name", "use when", "from"]


def skill_rows(library: SkillLibrary) -> list[list[str]]:
    return [[s.name, s.when, "learned" if s.origin == "learned" else "you"] for s in library.skills()]


def open_skill(library: SkillLibrary, name: str) -> tuple[str, str, str, str, str]:
    """A skill's fields for the editor (name, when, steps, tools) and a status line."""
    try:
        skill = library.get(name)
    except UserInputError as problem:
        return "", "", "", "", markdown_text(str(problem))
    return skill.name, skill.when, skill.steps, ", ".join(skill.tools), ""


def save_skill(library: SkillLibrary, name: str, when: str, steps: str, tools: str) -> str:
    """Write (or replace) the skill the editor holds; the user's edit makes a learned skill theirs."""
    listed = tuple(t.strip() for t in tools.split(",") if t.strip())

    def save() -> str:
        skill = library.add(Skill(name.strip(), when.strip(), steps.strip(), listed), replace=True)
        return f"Saved `{markdown_text(skill.name)}`: used from your next message."

    return said(save)


def remove_skill(library: SkillLibrary, name: str) -> str:
    def remove() -> str:
        moved = library.remove(name)
        return f"Removed `{markdown_text(name)}` (its folder is kept in `{markdown_text(str(moved))}`)."

    return said(remove)


def build_skills_tab(gr: Any, library: SkillLibrary | None) -> dict[str, Any] | None:
    """The tab's widgets and handlers; a note when this build has no skills folder."""
    if library is None:
        gr.Markdown("Skills are not available in this build.")
        return None
    c: dict[str, Any] = {}
    gr.Markdown(
        "A skill tells Daemon how you like something done: when it applies and its steps. A connected model "
        "sees the list with every message and loads the one that applies. Daemon also learns skills when a "
        f"how-to question got an answer in steps. They are files in `{library.folder}`: edit them here or "
        "there."
    )
    c["skills"] = gr.Dataframe(headers=SKILL_HEADERS, elem_id="skill-list", interactive=False, wrap=True)
    with gr.Row(equal_height=True):
        c["name"] = gr.Textbox(label="Name (click a row to edit one)", elem_id="skill-name", scale=2)
        c["tools"] = gr.Textbox(label="Tools it uses (comma-separated; empty: any)", elem_id="skill-tools")
    c["when"] = gr.Textbox(label="Use it when", elem_id="skill-when")
    c["steps"] = gr.Textbox(label="Steps", lines=6, elem_id="skill-steps")
    with gr.Row():
        c["save"] = gr.Button("Save", elem_id="skill-save", variant="primary")
        c["remove"] = gr.Button("Remove", elem_id="skill-remove")
    c["status"] = gr.Markdown("", elem_id="skill-status")
    editor = [c["name"], c["when"], c["steps"], c["tools"]]

    def pick(evt: Any) -> tuple[str, str, str, str, str]:
        return open_skill(library, row_picker(gr)(evt))

    pick.__annotations__["evt"] = gr.SelectData
    c["skills"].select(pick, None, [*editor, c["status"]])
    c["save"].click(
        lambda *fields: (save_skill(library, *fields), skill_rows(library)),
        editor,
        [c["status"], c["skills"]],
    )
    c["remove"].click(
        lambda name: (remove_skill(library, name), skill_rows(library)), c["name"], [c["status"], c["skills"]]
    )
    c["reload"] = lambda: skill_rows(library)
    c["reload_outputs"] = [c["skills"]]
    return c
