"""The first-run wizard's logic against real fake servers: a live validation call, then saving or not."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from core.config import load_config
from core.config_user import settings_path, setup_complete
from core.secrets import SECRETS_FILE, SecretStore
from tests.contract.fake_servers import FakeOpenAIServer, error, reply
from tests.fakes.model_listing_servers import OllamaListing, port_of
from ui.gui.wizard import (
    Answers,
    SetupDesk,
    UseModel,
    check_paths,
    cloud_choice,
    embedded_choice,
    finish,
    local_choice,
    local_labels,
    saved_answers,
    skip,
    validate,
)

KEY = "sk-proj-wizard-0123456789abcdefghij"


@pytest.fixture
def openai_fake() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


def _desk(
    data: Path,
    ports: Mapping[str, int] | None = None,
    current_provider: str = "",
    use_model: UseModel | None = None,
) -> SetupDesk:
    return SetupDesk(
        data,
        SecretStore(data, keyring=lambda: None),
        ports={} if ports is None else ports,
        validation_timeout_s=5.0,
        current_provider=current_provider,
        use_model=use_model,
    )


def test_a_good_key_validates_with_one_tiny_request(openai_fake: FakeOpenAIServer) -> None:
    openai_fake.script(reply("OK"))
    choice = cloud_choice("openai", "gpt-4o-mini", KEY, base_url=openai_fake.base_url + "/v1")

    outcome = asyncio.run(validate(choice, 5.0))

    assert outcome.ok, outcome.message
    sent = openai_fake.requests[0]
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["max_tokens"] == 8 and sent.body["model"] == "gpt-4o-mini"
    openai_fake.assert_done()


def test_a_rejected_key_shows_the_401_and_saves_nothing(
    tmp_path: Path, openai_fake: FakeOpenAIServer
) -> None:
    openai_fake.script(error(401, f"Incorrect API key provided: {KEY[:12]}..."))
    choice = cloud_choice("openai", "gpt-4o-mini", KEY, base_url=openai_fake.base_url + "/v1")

    outcome = asyncio.run(finish(_desk(tmp_path), Answers(name="Ada", choice=choice)))

    assert not outcome.ok
    assert "401" in outcome.message and "OPENAI_API_KEY" in outcome.message
    assert KEY not in outcome.message
    assert not settings_path(tmp_path).exists() and not (tmp_path / SECRETS_FILE).exists()
    assert "sk-proj-wizard" not in repr(choice)


def test_finishing_with_a_found_local_model_saves_settings_and_keys(tmp_path: Path) -> None:
    ollama = OllamaListing(("qwen2.5:7b",)).start()
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    try:
        ollama.script(reply("OK"))
        desk = _desk(tmp_path / "data", ports={"ollama": port_of(ollama), "lmstudio": 9, "llamacpp": 9})
        servers = asyncio.run(desk.servers())
        labels = local_labels(servers)
        assert list(labels) == ["Use qwen2.5:7b from Ollama"]
        server = next(s for s in servers if s.kind == "ollama")
        answers = Answers(
            name="Ada",
            style="concise",
            choice=local_choice(server, "qwen2.5:7b"),
            keys={"TAVILY_API_KEY": "tvly-0123456789abcdef", "E2B_API_KEY": ""},
            vault=str(vault),
            repos=f"{repo}\n",
        )
        outcome = asyncio.run(finish(desk, answers))
    finally:
        ollama.stop()

    assert outcome.ok, outcome.message
    data = tmp_path / "data"
    assert setup_complete(data)
    config = load_config(settings_file=settings_path(data))
    assert config.models.main == "ollama" and config.providers["ollama"].dialect == "ollama"
    assert config.user.name == "Ada" and config.user.style == "concise"
    assert config.obsidian.vault == vault.resolve() and config.session.git_repos == (repo.resolve(),)
    assert SecretStore(data, keyring=lambda: None).names() == ["TAVILY_API_KEY"]
    assert stat.S_IMODE((data / SECRETS_FILE).stat().st_mode) == 0o600


def test_paths_that_do_not_exist_or_are_not_repositories_are_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    problems, vault, repos = check_paths(str(tmp_path / "missing"), f"{plain}\n{tmp_path / 'gone'}")

    assert vault is None and repos == []
    assert any("not a folder" in p and "missing" in p for p in problems)
    assert any("not a git repository" in p for p in problems)
    outcome = asyncio.run(finish(_desk(tmp_path / "d"), Answers(vault=str(tmp_path / "missing"))))
    assert not outcome.ok and not settings_path(tmp_path / "d").exists()


def test_skipping_marks_the_setup_done_and_keeps_the_offline_defaults(tmp_path: Path) -> None:
    desk = _desk(tmp_path)
    assert desk.needs_setup()

    assert skip(desk).ok

    assert not desk.needs_setup()
    assert load_config(settings_file=settings_path(tmp_path)).models.main == "auto"
    assert asyncio.run(validate(embedded_choice(), 1.0)).ok


def test_the_model_picked_at_finish_answers_the_next_turn_without_a_restart(
    tmp_path: Path, openai_fake: FakeOpenAIServer
) -> None:
    """finish -> the composition root's model switcher (start-up's own composition) -> the orchestrator's
    default: the next turn goes to the fake server with the key just saved; the start-up model stays
    selectable."""
    from core.agent.factory import AgentGuards
    from core.events import Done
    from core.generation.main_model import ModelKit, model_switcher
    from core.orchestrator import ModelChoice, Orchestrator
    from core.prompt.builder import PromptBuilder
    from core.prompt.tokens import EstimateCounter
    from core.providers.pricing import CostLedger
    from core.tools.toolset import Toolset
    from core.turn_context import ContextGatherer, JournalHistory
    from memory.journal import Journal
    from tests.unit.core.test_orchestrator import RecordingAgent

    config = load_config(overrides={"data_dir": str(tmp_path / "data")})
    journal = Journal(tmp_path / "j.sqlite3")
    startup = RecordingAgent()
    orchestrator = Orchestrator(
        [ModelChoice("local", startup)],
        journal,
        ContextGatherer(JournalHistory(journal, 8)),
        PromptBuilder("You are a test.", EstimateCounter(), 8000),
    )
    kit = ModelKit(Toolset(), (), None, None, AgentGuards())
    switch = model_switcher(config, {}, CostLedger(budget_usd=None), orchestrator, kit)
    desk = _desk(config.data_dir, current_provider="local", use_model=switch)
    openai_fake.script(reply("OK"), reply("Hello from the picked model"))
    choice = cloud_choice("openai", "gpt-4o-mini", KEY, base_url=openai_fake.base_url + "/v1")

    outcome = asyncio.run(finish(desk, Answers(name="Ada", choice=choice)))

    assert outcome.ok and "now answering with gpt-4o-mini from OpenAI" in outcome.message, outcome.message
    assert orchestrator.default_model == "openai" and "local" in orchestrator.model_names

    async def turn() -> list[object]:
        return [event async for event in orchestrator.run_turn("hi")]

    done = asyncio.run(turn())[-1]
    assert isinstance(done, Done) and done.answer == "Hello from the picked model", done
    turn_request = openai_fake.requests[1]
    assert turn_request.headers["authorization"] == f"Bearer {KEY}"  # the key just saved reached it
    assert turn_request.body["model"] == "gpt-4o-mini"
    assert startup.seen == []
    openai_fake.assert_done()


def test_a_model_that_cannot_be_built_keeps_the_old_one_and_says_so(
    tmp_path: Path, openai_fake: FakeOpenAIServer
) -> None:
    from core.errors import ConfigError

    def refuse(name: str, provider: object, keys: object) -> None:
        raise ConfigError("models.judge names 'nowhere', which is not configured")

    openai_fake.script(reply("OK"))
    choice = cloud_choice("openai", "gpt-4o-mini", KEY, base_url=openai_fake.base_url + "/v1")
    desk = _desk(tmp_path, current_provider="local", use_model=refuse)

    outcome = asyncio.run(finish(desk, Answers(name="Ada", choice=choice)))

    assert outcome.ok and "keeps its model" in outcome.message and "'nowhere'" in outcome.message
    assert "next start" in outcome.message
    assert load_config(settings_file=settings_path(tmp_path)).models.main == "openai"  # saved all the same
    assert desk.current_provider == "local"


def test_the_wizard_opened_again_starts_from_the_saved_settings_and_never_erases_them(tmp_path: Path) -> None:
    desk = _desk(tmp_path)
    assert asyncio.run(finish(desk, Answers(name="Maya", style="concise"))).ok
    again = saved_answers(tmp_path)
    assert (again.name, again.style, again.vault, again.repos) == ("Maya", "concise", "", "")

    assert asyncio.run(finish(desk, Answers(name="  ", style="detailed"))).ok  # the name field left empty
    config = load_config(settings_file=settings_path(tmp_path))
    assert (config.user.name, config.user.style) == ("Maya", "detailed")
