"""`use_skill`: the model loads a skill's steps on demand (the prompt's adaptive workflows section lists the
skills relevant to the message; memory/skills.py keeps them)."""

from __future__ import annotations

from typing import Protocol

from core.errors import ToolRetry, UserInputError
from core.tools.base import Tool


class SkillSteps(Protocol):
    """A skill by name, as `use_skill` gives it to the model."""

    def loaded(self, name: str) -> str: ...


def skill_tool(skills: SkillSteps) -> Tool:
    """The tool over the skills folder (read at each call: a skill added since start is there)."""

    def use_skill(name: str) -> str:
        """Load one of the user's skills (its steps and the tools it uses), then follow its steps.

        Args:
            name: the skill's name, as the adaptive workflows section shows it (e.g. "weekly-review").
        """
        try:
            return skills.loaded(name)
        except UserInputError as unknown:
            raise ToolRetry(str(unknown)) from None

    return Tool.from_function(use_skill)
