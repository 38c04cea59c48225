"""`purge` as a user runs it: a session destroyed for good (its words in no file of the data folder, as
the test's own scan of every file's bytes shows), a fact alike, everything; without --yes nothing goes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.data_cli import digest, main

CANARIES = ("Zebediah Quartermaine", "Quillfeather Hall", "violet harmonium")
SECRET_SESSION = "\n".join(
    [
        "My cousin Zebediah Quartermaine lives in Reykjavik.",
        "I adore the violet harmonium at Quillfeather Hall.",
        "/quit\n",
    ]
)
PNG_1X1 = (  # a 1x1 red PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
)
KEPT_SESSION = "I live in Boston and I work at Acme Robotics.\n/quit\n"


def holding(folder: Path, words: tuple[str, ...]) -> list[str]:
    """Every file under `folder` whose bytes hold one of `words`."""
    return [
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and any(word.encode() in path.read_bytes() for word in words)
    ]


def session_of(tmp_path: Path, data: Path, words: str) -> str:
    turns = json.loads(main(tmp_path, data, "history", "--json").stdout)["turns"]
    return next(t["session_id"] for t in turns if words in t["user"])


def _quote_in_synthesis(data: Path) -> None:
    """A synthesis candidate quoting the secret session, as a run would have made one."""
    from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook
    from knowledge.synthesis.candidate import Candidate, Endpoint, Reading

    book = SynthesisBook(data / SYNTHESIS_FILE)
    left = Endpoint("I adore the violet harmonium at Quillfeather Hall.", "conv-x", "conversations")
    right = Endpoint("Compound interest grows slowly and then fast.", "doc-1", "reference_docs")
    bridge = "The violet harmonium and compound interest both reward patience over years."
    book.record("run-1", [Reading(Candidate(left, right, bridge, "retrieval"), [], "waiting")])
    book.close()


@pytest.mark.slow
def test_a_purged_session_is_in_no_file_and_the_rest_stays(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(tmp_path, data, "cli", stdin=SECRET_SESSION).returncode == 0
    assert main(tmp_path, data, "cli", stdin=KEPT_SESSION).returncode == 0
    secret = session_of(tmp_path, data, "Zebediah")
    _quote_in_synthesis(data)
    assert holding(data, CANARIES)  # the words are on disk before

    untouched = digest(data)
    asked = main(tmp_path, data, "purge", "--session", secret)  # no terminal to confirm on, no --yes
    assert asked.returncode != 0 and "Add --yes to confirm" in asked.stderr and digest(data) == untouched

    purged = main(tmp_path, data, "purge", "--session", secret, "--yes", "--json")
    assert purged.returncode == 0, purged.stderr
    report = json.loads(purged.stdout)
    assert report["verified"] and report["turns"] == 2 and report["facts"] >= 1
    assert holding(data, CANARIES) == []
    turns = json.loads(main(tmp_path, data, "history", "--json").stdout)["turns"]
    assert [t["user"] for t in turns] == ["I live in Boston and I work at Acme Robotics."]
    facts = json.loads(main(tmp_path, data, "facts", "list", "--json").stdout)["facts"]
    assert {(f["predicate"], f["object"]) for f in facts} == {
        ("lives_in", "Boston"),
        ("works_at", "Acme Robotics"),
    }

    acme = next(f["id"] for f in facts if f["object"] == "Acme Robotics")
    assert main(tmp_path, data, "purge", "--fact", acme, "--yes").returncode == 0
    left = json.loads(main(tmp_path, data, "facts", "list", "--json").stdout)["facts"]
    assert [f["object"] for f in left] == ["Boston"]

    assert main(tmp_path, data, "purge", "--all", "--yes").returncode == 0
    assert [p.name for p in data.iterdir()] == ["daemon.lock"] and not holding(data, ("Boston",))


@pytest.mark.slow
def test_a_purged_document_is_in_no_file_of_the_data_folder_and_its_own_file_stays(tmp_path: Path) -> None:
    data, notes = tmp_path / "data", tmp_path / "harmonium-notes.md"
    notes.write_text("# Notes\n\nThe violet harmonium at Quillfeather Hall needs new bellows.\n")
    assert main(tmp_path, data, "ingest", str(notes)).returncode == 0
    listed = json.loads(main(tmp_path, data, "docs", "list", "--json").stdout)["documents"]
    assert holding(data, CANARIES)
    purged = main(tmp_path, data, "purge", "--document", listed[0]["document_id"], "--yes", "--json")
    assert purged.returncode == 0, purged.stderr
    assert json.loads(purged.stdout)["verified"] and holding(data, CANARIES) == []
    assert json.loads(main(tmp_path, data, "docs", "list", "--json").stdout)["documents"] == []
    assert "Quillfeather Hall" in notes.read_text()  # the user's own file outside the folder is theirs

    photo = tmp_path / "harmonium.png"
    photo.write_bytes(bytes.fromhex(PNG_1X1))
    caption = "the violet harmonium at Quillfeather Hall"
    added = json.loads(
        main(tmp_path, data, "image", "add", str(photo), "--caption", caption, "--json").stdout
    )
    assert holding(data, CANARIES)
    gone = main(tmp_path, data, "purge", "--image", added["id"], "--yes", "--json")
    assert gone.returncode == 0 and json.loads(gone.stdout)["verified"] and holding(data, CANARIES) == []
    assert photo.is_file()
