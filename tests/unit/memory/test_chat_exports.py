"""ChatGPT's and Claude's data exports read as conversations of exchanges; odd input refused by name."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from memory.chat_exports import ChatExportError, is_chat_export, read_chat_export

EXPORTS = Path(__file__).resolve().parents[2] / "data" / "chat_exports"


def zipped(tmp_path: Path, fixture: str, *, folder: str = "") -> Path:
    """The fixture as the export's zip holds it, beside the export's other files."""
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(EXPORTS / fixture, f"{folder}conversations.json")
        zf.writestr(f"{folder}user.json", json.dumps({"id": "user-1", "email": "me@example.com"}))
        zf.writestr(f"{folder}chat.html", "<html></html>")
    return archive


def test_a_chatgpt_export_follows_the_branch_the_user_last_saw(tmp_path: Path) -> None:
    source, conversations = read_chat_export(zipped(tmp_path, "chatgpt_conversations.json"))
    assert source == "chatgpt"
    assert [c.title for c in conversations] == [
        "Moving to Lisbon",
        "Sourdough",
    ]  # oldest first, empty left out
    lisbon = conversations[0]
    assert [e.user for e in lisbon.exchanges] == [
        "I just moved to Lisbon and I work at Feedzai as a data engineer.",
        "My dog is called Pastel and she is a beagle.",  # the edited message, not the abandoned first draft
        "Here is a photo of her at the beach.",  # the image pointer left out, the words kept
    ]
    assert lisbon.exchanges[1].assistant == "Pastel is a lovely name for a beagle."  # tool steps left out
    assert lisbon.exchanges[0].at == 1700000100.0
    assert lisbon.session_id == read_chat_export(EXPORTS / "chatgpt_conversations.json")[1][0].session_id


def test_a_claude_export_reads_text_and_content_blocks_but_not_thinking(tmp_path: Path) -> None:
    source, conversations = read_chat_export(
        zipped(tmp_path, "claude_conversations.json", folder="data-2024/")
    )
    assert source == "claude" and len(conversations) == 1
    [piano] = conversations
    assert piano.title == "Piano practice plan"
    first, second = piano.exchanges
    assert first.user.startswith("I started learning piano in March")
    assert first.assistant == "That's wonderful. Since you play the violin as well, here is a plan."
    assert second.user == "Thanks! I can practise 30 minutes a day."
    assert first.at == pytest.approx(1714674605.0)


def test_what_is_a_chat_export(tmp_path: Path) -> None:
    assert is_chat_export(zipped(tmp_path, "claude_conversations.json"))
    assert is_chat_export(EXPORTS / "chatgpt_conversations.json")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("manifest.json", "{}")
    assert not is_chat_export(other)


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    return path


def _chatgpt(**changes: Any) -> dict[str, Any]:
    conversation: dict[str, Any] = json.loads((EXPORTS / "chatgpt_conversations.json").read_text())[0]
    conversation.update(changes)
    return conversation


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"conversations": []}, "should hold a list of conversations"),
        ([{"title": "x", "messages": []}], "neither ChatGPT's 'mapping' nor Claude's 'chat_messages'"),
        ([_chatgpt(mapping=[1, 2])], "chatgpt conversation 1 ('Sourdough'): no 'mapping' of messages"),
        ([_chatgpt(id=None, conversation_id=None)], "chatgpt conversation 1 ('Sourdough'): no 'id'"),
        (
            [
                _chatgpt(
                    mapping={"a": {"parent": "b", "message": None}, "b": {"parent": "a", "message": None}},
                    current_node="a",
                )
            ],
            "its message tree has a cycle",
        ),
        (
            [_chatgpt(mapping={"a": {"parent": None, "message": "hello"}}, current_node="a")],
            "a message that is not an object",
        ),
        (
            [{"uuid": "u", "name": "Plans", "chat_messages": [{"sender": "robot", "text": "hi"}]}],
            "sender is 'robot'",
        ),
        (
            [{"uuid": "u", "name": "Plans", "chat_messages": "hi"}],
            "claude conversation 1 ('Plans'): no 'chat_messages' list",
        ),
        ([{"name": "Plans", "chat_messages": []}], "no 'uuid'"),
    ],
)
def test_odd_exports_are_refused_naming_the_problem(tmp_path: Path, data: Any, problem: str) -> None:
    with pytest.raises(ChatExportError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        read_chat_export(_write(tmp_path, data))


def test_not_json_and_damaged_zips_are_refused(tmp_path: Path) -> None:
    broken = tmp_path / "conversations.json"
    broken.write_text('[{"mapping": ')
    with pytest.raises(ChatExportError, match="is not valid JSON"):
        read_chat_export(broken)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(zipped(tmp_path, "chatgpt_conversations.json").read_bytes()[:300])
    with pytest.raises(ChatExportError, match="not a zip archive, or it is damaged"):
        read_chat_export(cut)
