"""`eval locomo --judge MODEL` grades with a configured model through its real SDK (here against a local
server speaking OpenAI's wire format); the embedded model and unknown names are refused plainly."""

from __future__ import annotations

import pytest

from app.commands.evaluate import _judge
from core.config import load_config
from core.errors import UserInputError
from tests.contract.fake_servers import FakeOpenAIServer, reply


async def test_a_local_servers_model_grades_through_its_sdk() -> None:
    server = FakeOpenAIServer().script(reply('{"label": "CORRECT"}'), reply('{"label": "WRONG"}')).start()
    try:
        judge_at = {
            "kind": "openai",
            "model": "grader",
            "base_url": server.base_url + "/v1",
            "api_key_env": "",
        }
        config = load_config(overrides={"providers.grader": judge_at})
        judge = _judge(config, {}, "grader")
        assert await judge.correct("What does Dana play?", "cello", "The cello.") is True
        assert await judge.correct("What does Dana play?", "cello", "The violin.") is False
        sent = server.requests[0].body
        assert sent["model"] == "grader" and sent["temperature"] == 0.0
        assert "Gold answer: cello" in sent["messages"][-1]["content"]
        server.assert_done()
    finally:
        server.stop()


def test_the_embedded_model_and_unknown_names_cannot_judge() -> None:
    config = load_config()
    with pytest.raises(UserInputError, match="too small"):
        _judge(config, {}, "local")
    with pytest.raises(UserInputError, match="unknown model 'nope'"):
        _judge(config, {}, "nope")
