"""With the embedded model, "remind me …", "add … to my to-dos" and "make a note …" become the proposals a
capable model would make, or a question."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.events import Done, RunEvent, TextDelta, ToolProposal
from core.generation.action_requests import NotebookRequests, ReminderRequests
from core.tools.note_tools import note_tools
from core.tools.task_tools import task_tools
from memory.notes import NOTES_FILE, NoteStore
from memory.tasks import TASKS_FILE, TaskStore

ZONE = ZoneInfo("Europe/Paris")
MONDAY = datetime(2026, 12, 7, 10, 0, tzinfo=ZONE)


@pytest.fixture
def requests(tmp_path: Path) -> ReminderRequests:
    book = TaskStore(tmp_path / TASKS_FILE, ZONE)
    tools = {t.name: t for t in task_tools(book, lambda: MONDAY)}
    return ReminderRequests(tools["set_reminder"], lambda: MONDAY)


def _events(requests: ReminderRequests | NotebookRequests, text: str) -> list[RunEvent]:
    agent = requests.agent_for(text)
    assert agent is not None, text

    async def collect() -> list[RunEvent]:
        return [event async for event in agent.run([])]

    return asyncio.run(collect())


def test_a_request_becomes_a_set_reminder_proposal_with_the_moment_read(requests: ReminderRequests) -> None:
    events = _events(requests, "Can you remind me on Thursday at 9 to call the dentist?")
    proposal = events[0]
    assert isinstance(proposal, ToolProposal)
    assert proposal.call.name == "set_reminder"
    assert proposal.call.arguments == {"what": "call the dentist", "when": "on Thursday at 9"}
    assert proposal.preview == "Remind you Thu 10 Dec 2026 at 09:00: call the dentist"
    assert isinstance(events[-1], Done) and "Approve it" in events[-1].answer


def test_the_time_is_found_before_or_after_what_to_do(requests: ReminderRequests) -> None:
    cases = {
        "remind me to go to the dentist at 9": ("go to the dentist", "at 9"),
        "Please remind me tomorrow at 8 that the bins go out": ("the bins go out", "tomorrow at 8"),
        "set a reminder for the 1st of every month to pay rent": ("pay rent", "the 1st of every month"),
    }
    for text, (what, when) in cases.items():
        proposal = _events(requests, text)[0]
        assert isinstance(proposal, ToolProposal), text
        assert proposal.call.arguments == {"what": what, "when": when}


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("Remind me to call the dentist", "When should I remind you to call the dentist?"),
        ("remind me next blursday to call mum", "I could not read 'next blursday' as a time."),
        ("remind me", "What should I remind you of, and when?"),
        ("Remind me yesterday at 9 to pay rent", "I could not read 'yesterday"),
    ],
)
def test_a_request_without_a_usable_time_gets_a_question_and_no_proposal(
    requests: ReminderRequests, text: str, reply: str
) -> None:
    events = _events(requests, text)
    assert not any(isinstance(e, ToolProposal) for e in events)
    answer = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert reply in answer


def test_a_message_that_only_mentions_reminders_is_not_a_request(requests: ReminderRequests) -> None:
    for text in ("My phone reminds me at 9 every day", "What reminders do I have?", "It reminds me of Paris"):
        assert requests.agent_for(text) is None


@pytest.fixture
def notebook(tmp_path: Path) -> NotebookRequests:
    tools = {t.name: t for t in note_tools(NoteStore(tmp_path / NOTES_FILE, None))}
    return NotebookRequests(tools["add_todo"], tools["add_note"])


@pytest.mark.parametrize(
    ("text", "tool", "words"),
    [
        ("Add renewing my passport to my to-do list", "add_todo", "renewing my passport"),
        ("can you put call the plumber on my todo list please?", "add_todo", "call the plumber"),
        ("add a to-do: book the vet", "add_todo", "book the vet"),
        ("Make a note that the spare key is with Maya.", "add_note", "the spare key is with Maya"),
        ("please take a note: wifi password is on the fridge", "add_note", "wifi password is on the fridge"),
    ],
)
def test_a_todo_or_note_request_becomes_its_proposal(
    notebook: NotebookRequests, text: str, tool: str, words: str
) -> None:
    proposal = _events(notebook, text)[0]
    assert isinstance(proposal, ToolProposal)
    assert (proposal.call.name, proposal.call.arguments) == (tool, {"text": words})
    assert proposal.preview.endswith(words)


def test_a_message_that_mentions_notes_is_not_a_request(notebook: NotebookRequests) -> None:
    for text in ("My to-do list is too long", "I took a note of his number", "What's on my to-do list?"):
        assert notebook.agent_for(text) is None
