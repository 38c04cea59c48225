"""Config precedence, environment overrides and error messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.config import load_config, merged_environment, resolve_main_provider
from core.errors import ConfigError


def test_defaults_load_and_are_frozen() -> None:
    config = load_config()
    assert config.gui.host == "127.0.0.1"
    assert config.gui.port == 7860
    assert "local" in config.providers
    with pytest.raises(ValidationError):
        config.gui.port = 1  # type: ignore[misc]  # assigning to the frozen model is the point


def test_user_file_overrides_defaults_and_env_overrides_file(tmp_path: Path) -> None:
    user = tmp_path / "mine.yaml"
    user.write_text("gui:\n  port: 8000\nagent:\n  max_rounds: 3\n")
    config = load_config(user, env={"DAEMON_GUI__PORT": "9000"})
    assert config.gui.port == 9000  # environment beats the file
    assert config.agent.max_rounds == 3  # the file beats the defaults
    assert config.gui.host == "127.0.0.1"  # untouched keys keep their defaults


def test_flags_beat_environment(tmp_path: Path) -> None:
    config = load_config(env={"DAEMON_GUI__PORT": "9000"}, overrides={"gui.port": 9100})
    assert config.gui.port == 9100


def test_data_dir_from_environment() -> None:
    config = load_config(env={"DAEMON_DATA_DIR": "/tmp/daemon-x"})
    assert config.data_dir == Path("/tmp/daemon-x")


def test_bad_value_names_file_key_and_expectation(tmp_path: Path) -> None:
    user = tmp_path / "bad.yaml"
    user.write_text("gui:\n  port: seventy\n")
    with pytest.raises(ConfigError) as caught:
        load_config(user)
    message = str(caught.value)
    assert str(user) in message
    assert "gui.port" in message
    assert "integer" in message
    assert "seventy" in message


def test_unknown_key_is_reported_as_a_typo(tmp_path: Path) -> None:
    user = tmp_path / "typo.yaml"
    user.write_text("agent:\n  max_round: 3\n")
    with pytest.raises(ConfigError, match=r"agent\.max_round.*unknown key"):
        load_config(user)


def test_bad_env_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="DAEMON_AGENT__MAX_ROUNDS"):
        load_config(env={"DAEMON_AGENT__MAX_ROUNDS": "0"})


def test_invalid_yaml_reports_line(tmp_path: Path) -> None:
    user = tmp_path / "broken.yaml"
    user.write_text("gui:\n  port: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML at line"):
        load_config(user)


def test_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_provider_auto_selection_order() -> None:
    config = load_config()
    assert resolve_main_provider(config, {}) == "local"
    assert resolve_main_provider(config, {"ANTHROPIC_API_KEY": "k"}) == "anthropic"
    assert resolve_main_provider(config, {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}) == "openai"
    assert resolve_main_provider(config, {"GOOGLE_API_KEY": "k"}) == "gemini"


def test_daemon_provider_and_model_env() -> None:
    env = {"DAEMON_PROVIDER": "openai", "DAEMON_MODEL": "llama3.2"}
    config = load_config(env=env)
    assert resolve_main_provider(config, env) == "openai"
    assert config.providers["openai"].model == "llama3.2"
    assert config.providers["local"].model == "smollm2-135m-instruct"


def test_unknown_provider_name_is_rejected() -> None:
    with pytest.raises(ConfigError, match="models.main.*'nonesuch'"):
        load_config(env={"DAEMON_PROVIDER": "nonesuch"})


def test_dotenv_values_sit_under_the_real_environment(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("OPENAI_API_KEY=from-file\nDAEMON_MODEL=from-file\n")
    merged = merged_environment({"DAEMON_MODEL": "from-env"}, dotenv)
    assert merged["OPENAI_API_KEY"] == "from-file"
    assert merged["DAEMON_MODEL"] == "from-env"


def test_memory_defaults_load() -> None:
    memory = load_config().memory
    assert memory.dense_weight == 0.5 and memory.timeout_s > 0
    assert memory.reranker.model is None  # no cross-encoder unless the user configures one
    assert memory.profiles.general.weights.relevance is not None
    assert memory.profiles.casual_social.limits.git_commits == 0


@pytest.mark.parametrize(
    ("yaml_text", "key", "expected"),
    [
        (
            "memory:\n  profiles:\n    general:\n      weights: {relevance: -1}\n",
            "memory.profiles.general.weights.relevance",
            "greater than or equal",
        ),
        (
            "memory:\n  profiles:\n    casual_social:\n      gate_threshold: 1.5\n",
            "memory.profiles.casual_social.gate_threshold",
            "less than or equal",
        ),
        ("memory:\n  profiles:\n    generl: {min_keep: 3}\n", "memory.profiles.generl", "unknown key"),
        (
            "memory:\n  profiles:\n    general:\n      limits: {convos: 3}\n",
            "memory.profiles.general.limits.convos",
            "unknown key",
        ),
        (
            "memory:\n  profiles:\n    general:\n      limits: {facts: many}\n",
            "memory.profiles.general.limits.facts",
            "integer",
        ),
        (
            "memory:\n  profiles:\n    general:\n      half_life_days: 0\n",
            "memory.profiles.general.half_life_days",
            "greater than",
        ),
        (
            "memory:\n  profiles:\n    general:\n      penalties: {superseded: x}\n",
            "memory.profiles.general.penalties.superseded",
            "number",
        ),
        ("memory:\n  dense_weight: 2\n", "memory.dense_weight", "less than or equal"),
        ("memory:\n  timeout_s: 0\n", "memory.timeout_s", "greater than"),
        ("memory:\n  reranker: {weight: -0.1}\n", "memory.reranker.weight", "greater than or equal"),
        ("memory:\n  structure_prior: {facts: 3}\n", "memory.structure_prior.facts", "less than or equal"),
    ],
)
def test_bad_memory_values_name_the_key(tmp_path: Path, yaml_text: str, key: str, expected: str) -> None:
    user = tmp_path / "bad.yaml"
    user.write_text(yaml_text)
    with pytest.raises(ConfigError) as caught:
        load_config(user)
    message = str(caught.value)
    assert f"`{key}`" in message and expected in message and str(user) in message


def test_bad_memory_env_value_names_the_variable() -> None:
    with pytest.raises(ConfigError, match=r"DAEMON_MEMORY__DENSE_WEIGHT.*memory\.dense_weight"):
        load_config(env={"DAEMON_MEMORY__DENSE_WEIGHT": "1.5"})
    config = load_config(env={"DAEMON_MEMORY__PROFILES__GENERAL__MIN_KEEP": "4"})
    assert config.memory.profiles.general.min_keep == 4


def test_a_config_file_that_is_not_utf8_is_named_with_the_line(tmp_path: Path) -> None:
    latin1 = tmp_path / "mine.yaml"
    latin1.write_bytes(b"log_level: INFO\n# Daemon's caf\xe9 notes\n")
    with pytest.raises(ConfigError, match=r"mine.yaml is not UTF-8 text: byte 0xe9 on line 2"):
        load_config(latin1)
