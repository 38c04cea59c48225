"""`import` of another assistant's history as a user runs it: ChatGPT's export zip and Claude's
conversations.json become past sessions dated when they were said; only the user's words teach facts;
importing again adds nothing; an odd export changes nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.integration.data_cli import digest, main

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "chat_exports"


def chatgpt_zip(tmp_path: Path) -> Path:
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(EXPORTS / "chatgpt_conversations.json", "conversations.json")
        zf.writestr("chat.html", "<html><body>ChatGPT export</body></html>")
        zf.writestr("user.json", json.dumps({"id": "user-abc", "email": "me@example.com"}))
    return archive


@pytest.mark.slow
def test_chatgpt_and_claude_histories_become_past_sessions_learned_from_the_users_words(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    first = main(tmp_path, data, "import", str(chatgpt_zip(tmp_path)), "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["source"] == "chatgpt" and report["exchanges_added"] == 4 and report["sessions_ended"] == 2

    claude = main(tmp_path, data, "import", str(EXPORTS / "claude_conversations.json"), "--json")
    assert claude.returncode == 0, claude.stderr
    assert json.loads(claude.stdout)["exchanges_added"] == 2

    turns = json.loads(main(tmp_path, data, "history", "--json").stdout)["turns"]
    said = {t["user"]: t for t in turns}
    assert len(turns) == 6
    assert (
        said["I just moved to Lisbon and I work at Feedzai as a data engineer."]["created_at"] == 1700000100.0
    )
    facts = json.loads(main(tmp_path, data, "facts", "list", "--json").stdout)["facts"]
    told = {(f["subject"], f["predicate"], f["object"]) for f in facts if f["status"] == "current"}
    assert ("user", "lives_in", "Lisbon") in told and ("user", "works_at", "Feedzai") in told
    everything = json.dumps(facts)
    assert (
        "Paris" not in everything and "violin" not in everything
    )  # the other assistant's words teach nothing
    shown = main(tmp_path, data, "history").stdout
    assert "chatgpt: Congratulations! You live in Paris now" in shown and "claude: Great, 30 minutes" in shown

    again = json.loads(main(tmp_path, data, "import", str(chatgpt_zip(tmp_path)), "--json").stdout)
    assert again["exchanges_added"] == 0 and again["exchanges_already_here"] == 4

    odd = tmp_path / "conversations.json"
    odd.write_text(
        json.dumps([{"title": "Trip", "mapping": {"a": {"parent": None, "message": "hi"}}, "id": "c"}])
    )
    untouched = digest(data)
    refused = main(tmp_path, data, "import", str(odd))
    assert (
        refused.returncode != 0
        and "chatgpt conversation 1 ('Trip'): a message that is not an object" in refused.stderr
    )
    assert digest(data) == untouched
