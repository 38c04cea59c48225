"""An OpenAI chat request read as one Daemon turn: the last user message, a stable session per
conversation, the model mapping, and clear 400s for what cannot be a turn."""

from __future__ import annotations

from typing import Any

import pytest

from ui.api.conversation import (
    DEFAULT_MODEL_ID,
    SESSION_HEADER,
    RequestError,
    models_list,
    read_request,
    resolve_model,
)

MODELS = ["claude", "local"]


def body(*messages: tuple[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "daemon", "messages": [{"role": r, "content": c} for r, c in messages], **extra}


def test_the_turn_is_the_last_user_message() -> None:
    turn = read_request(
        body(("system", "Be terse."), ("user", "first"), ("assistant", "ok"), ("user", "second")), {}, MODELS
    )
    assert turn.text == "second"
    assert (turn.model, turn.model_id, turn.stream, turn.include_usage) == (
        None,
        DEFAULT_MODEL_ID,
        False,
        False,
    )


def test_text_parts_are_joined_and_images_skipped() -> None:
    content = [
        {"type": "text", "text": "what is"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "text", "text": "this?"},
    ]
    assert read_request(body(("user", content)), {}, MODELS).text == "what is\nthis?"


def test_a_conversation_keeps_its_session_as_it_grows() -> None:
    first = read_request(body(("user", "Plan my trip")), {}, MODELS)
    later = read_request(
        body(("system", "x"), ("user", "Plan my trip"), ("assistant", "Where to?"), ("user", "Lisbon")),
        {},
        MODELS,
    )
    assert first.session_id == later.session_id
    assert first.session_id.startswith("api-")


def test_different_first_messages_or_users_are_different_sessions() -> None:
    a = read_request(body(("user", "Plan my trip")), {}, MODELS).session_id
    b = read_request(body(("user", "Fix my code")), {}, MODELS).session_id
    c = read_request(body(("user", "Plan my trip"), user="someone-else"), {}, MODELS).session_id
    assert len({a, b, c}) == 3


def test_the_session_header_wins() -> None:
    turn = read_request(body(("user", "hi")), {SESSION_HEADER: " my-chat-7 "}, MODELS)
    assert turn.session_id == "my-chat-7"


@pytest.mark.parametrize("header", ["", "   ", "a\u200bb", "x\x07", "s" * 129])
def test_a_bad_session_header_is_refused(header: str) -> None:
    with pytest.raises(RequestError, match=SESSION_HEADER):
        read_request(body(("user", "hi")), {SESSION_HEADER: header}, MODELS)


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        ("claude", ("claude", "claude")),
        ("CLAUDE", ("claude", "claude")),
        ("daemon/local", ("local", "local")),
        ("daemon", (None, DEFAULT_MODEL_ID)),
        ("gpt-4o", (None, DEFAULT_MODEL_ID)),
        (None, (None, DEFAULT_MODEL_ID)),
    ],
)
def test_a_requested_model_maps_to_a_configured_one_else_the_default(
    requested: str | None, expected: tuple[str | None, str]
) -> None:
    assert resolve_model(requested, MODELS) == expected


def test_stream_and_usage_options_are_read() -> None:
    turn = read_request(body(("user", "hi"), stream=True, stream_options={"include_usage": True}), {}, MODELS)
    assert turn.stream and turn.include_usage


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "JSON object"),
        ({"model": "daemon"}, "'messages'"),
        ({"messages": []}, "'messages'"),
        ({"messages": "hi"}, "'messages'"),
        ({"messages": [{"content": "hi"}]}, "role"),
        ({"messages": [{"role": "wizard", "content": "hi"}]}, "role"),
        (body(("system", "only instructions")), "no user message"),
        (body(("user", " \u200b ")), "no text"),
        (body(("user", 42)), "content"),
        (body(("user", "hi"), stream="yes"), "'stream'"),
        (body(("user", "hi"), model=7), "'model'"),
        (body(("user", "hi"), user=["x"]), "'user'"),
    ],
)
def test_what_cannot_be_a_turn_is_a_request_error(raw: Any, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        read_request(raw, {}, MODELS)


def test_the_models_list_puts_daemon_first() -> None:
    listed = models_list(MODELS, 1700000000)
    assert listed["object"] == "list"
    assert [m["id"] for m in listed["data"]] == ["daemon", "claude", "local"]
    assert {m["object"] for m in listed["data"]} == {"model"}
