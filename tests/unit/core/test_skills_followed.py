"""A skill is chosen and followed: the catalog reaches the prompt, the model loads the skill it names with
`use_skill`, gets its steps, and calls the tools the steps say; an unknown skill goes back to the model."""

from __future__ import annotations

from pathlib import Path

from core.agent.loop import AgentRunner
from core.events import Done
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import ScriptedProvider, text_response, tool_response
from core.tools.note_tools import note_tools
from core.tools.skill_tools import skill_tool
from core.tools.toolset import Toolset
from core.turn_context import ContextGatherer, JournalHistory
from core.types import ChatRequest, ModelResponse, ToolCall
from memory.journal import Journal
from memory.notes import NOTES_FILE, NoteStore
from memory.skills import SKILLS_DIR, Skill, SkillLibrary

REVIEW = Skill(
    "weekly-review",
    "the user asks for a review of their week",
    "1. List the open to-dos with list_todos.\n2. Answer with what is still open, most urgent first.",
    ("list_todos",),
)


def _orchestrator(tmp_path: Path, provider: ScriptedProvider) -> tuple[Orchestrator, SkillLibrary]:
    skills = SkillLibrary(tmp_path / SKILLS_DIR)
    skills.add(REVIEW)
    notebook = NoteStore(tmp_path / NOTES_FILE, None)
    notebook.add("todo", "renew the passport", origin="gui")
    tools = Toolset([skill_tool(skills), *note_tools(notebook)])
    journal = Journal(tmp_path / "journal.sqlite3")
    builder = PromptBuilder("SYSTEM", EstimateCounter(), 8000, skills=skills.catalog)
    orchestrator = Orchestrator(
        [ModelChoice("scripted", AgentRunner(provider, tools))],
        journal,
        ContextGatherer(JournalHistory(journal, 8)),
        builder,
    )
    return orchestrator, skills


async def test_the_model_loads_the_skill_the_catalog_shows_and_follows_its_steps(tmp_path: Path) -> None:
    seen: dict[str, str] = {}

    def choose(request: ChatRequest) -> ModelResponse:
        seen["system"] = request.messages[0].content
        return tool_response(ToolCall("s1", "use_skill", {"name": "weekly-review"}))

    def follow(request: ChatRequest) -> ModelResponse:
        seen["loaded"] = request.messages[-1].content
        return tool_response(ToolCall("t1", "list_todos", {}))

    def answer(request: ChatRequest) -> ModelResponse:
        seen["todos"] = request.messages[-1].content
        return text_response("Still open: renew the passport.")

    provider = ScriptedProvider([choose, follow, answer])
    orchestrator, _ = _orchestrator(tmp_path, provider)
    events = [e async for e in orchestrator.run_turn("Can you do my weekly review?")]
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "Still open: renew the passport."
    assert "ADAPTIVE WORKFLOWS" in seen["system"]
    assert "weekly-review: use when the user asks for a review of their week" in seen["system"]
    assert "1. List the open to-dos with list_todos." in seen["loaded"]
    assert "Tools this skill uses: list_todos" in seen["loaded"]
    assert "renew the passport" in seen["todos"]
    assert [c["name"] for c in done.tool_calls] == ["use_skill", "list_todos"]


async def test_a_skill_the_model_made_up_goes_back_to_it_with_the_ones_there_are(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            tool_response(ToolCall("s1", "use_skill", {"name": "monthly-review"})),
            text_response("I have none."),
        ]
    )
    orchestrator, _ = _orchestrator(tmp_path, provider)
    [e async for e in orchestrator.run_turn("monthly review please")]
    assert "no skill 'monthly-review' (skills: weekly-review)" in provider.requests[1].messages[-1].content
