"""The wizard's settings file in the data dir: merged over config.yaml, under --config and the environment."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from core.config import load_config
from core.config_user import read_settings, recover_settings, save_settings, settings_path, setup_complete
from core.errors import ConfigError
from core.system_prompt import DEFAULT_PERSONALITY, save_personality, system_prompt_reader

LOCAL_SERVER = {"kind": "openai", "model": "qwen2.5:7b", "base_url": "http://127.0.0.1:11434/v1"}


def test_saved_settings_apply_over_the_defaults_and_mark_setup_done(tmp_path: Path) -> None:
    assert not setup_complete(tmp_path)
    save_settings(tmp_path, {"user": {"name": "Ada", "style": "concise", "setup_complete": True}})
    save_settings(tmp_path, {"providers": {"ollama": LOCAL_SERVER}, "models": {"main": "ollama"}})

    config = load_config(settings_file=settings_path(tmp_path))

    assert setup_complete(tmp_path)
    assert config.user.name == "Ada" and config.user.style == "concise"
    assert config.models.main == "ollama" and config.providers["ollama"].model == "qwen2.5:7b"
    assert "openai" in config.providers  # merged, not replaced
    assert stat.S_IMODE(settings_path(tmp_path).stat().st_mode) == 0o600


def test_the_environment_and_the_users_config_file_win_over_saved_settings(tmp_path: Path) -> None:
    save_settings(tmp_path, {"gui": {"port": 7001}, "agent": {"max_rounds": 3}})
    mine = tmp_path / "mine.yaml"
    mine.write_text("agent:\n  max_rounds: 9\n")

    config = load_config(mine, {"DAEMON_GUI__PORT": "7002"}, settings_file=settings_path(tmp_path))

    assert config.gui.port == 7002 and config.agent.max_rounds == 9


def test_a_bad_saved_value_names_the_settings_file(tmp_path: Path) -> None:
    save_settings(tmp_path, {"user": {"style": "shouty"}})

    with pytest.raises(ConfigError, match="settings.yaml: key `user.style`"):
        load_config(settings_file=settings_path(tmp_path))


def test_the_settings_file_cannot_move_the_data_dir(tmp_path: Path) -> None:
    save_settings(tmp_path, {"data_dir": "/elsewhere"})

    assert load_config(settings_file=settings_path(tmp_path)).data_dir != Path("/elsewhere")
    assert read_settings(tmp_path)["data_dir"] == "/elsewhere"


def test_personality_name_and_style_apply_to_the_next_prompt_and_reset(tmp_path: Path) -> None:
    read = system_prompt_reader(tmp_path)
    assert read().startswith(DEFAULT_PERSONALITY)

    save_personality(tmp_path, "You are Jeeves, a formal butler.")
    save_settings(tmp_path, {"user": {"name": "Bertie", "style": "concise"}})
    prompt = read()
    assert prompt.startswith("You are Jeeves, a formal butler.")
    assert "The user's name is Bertie." in prompt and "short answers" in prompt

    save_personality(tmp_path, "")
    assert read().startswith(DEFAULT_PERSONALITY)


@pytest.mark.parametrize(
    "damage", [b"models: [unclosed\n  : :", b"\xff\xfe\x00 not text", b"- a list\n- not a map\n"]
)
def test_an_unreadable_settings_file_is_kept_aside_and_its_previous_copy_put_back(
    tmp_path: Path, damage: bytes
) -> None:
    save_settings(tmp_path, {"user": {"name": "Ada", "setup_complete": True}})
    save_settings(tmp_path, {"gui": {"port": 7001}})  # the first save is now the backup
    settings_path(tmp_path).write_bytes(damage)

    said = recover_settings(tmp_path)

    assert said is not None and "previous copy was put back" in said
    [kept] = tmp_path.glob("settings.yaml.corrupt-*")
    assert kept.read_bytes() == damage  # never deleted
    config = load_config(settings_file=settings_path(tmp_path))
    assert config.user.name == "Ada" and setup_complete(tmp_path)
    assert recover_settings(tmp_path) is None  # nothing more to do


def test_an_unreadable_settings_file_without_a_backup_leaves_the_defaults(tmp_path: Path) -> None:
    settings_path(tmp_path).write_bytes(b"{{{{")
    said = recover_settings(tmp_path)
    assert said is not None and "the defaults apply" in said
    assert not settings_path(tmp_path).exists() and len(list(tmp_path.glob("settings.yaml.corrupt-*"))) == 1
    assert load_config(settings_file=settings_path(tmp_path)).user.name == ""
