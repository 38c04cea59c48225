"""The first-run wizard's logic, without Gradio: choices, the live validation call, path checks, saving.

The wizard asks for a name and an answer style, the model that answers (the embedded one, a model of a
local server that `core/providers/discovery.py` found, or a cloud provider with its key), optional tool
keys (Tavily, E2B, Wolfram|Alpha), an Obsidian vault and git repositories. A chosen provider is checked with
one tiny real request before anything is saved (a bad key shows the provider's own 401 message).
`finish` writes the settings to `<data dir>/settings.yaml` (core/config_user.py) and the keys to the
secret store (core/secrets.py), then makes the chosen model answer from the next turn through
`SetupDesk.use_model` (the composition root's model switcher); `skip` only marks the setup done, so the
offline defaults apply.
ui/gui/settings_tab.py lays this out on the page.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.config import ProviderConfig
from core.config_user import ANSWER_STYLES, read_settings, save_settings, setup_complete
from core.generation.main_model import UseModel  # the composition root's model switcher
from core.providers.discovery import LocalServer, discover, provider_entry
from core.secrets import SecretStore, mask

log = logging.getLogger(__name__)

EMBEDDED = "embedded"
CLOUD = "cloud"
CLOUD_PROVIDERS: Mapping[str, tuple[str, str, str]] = {  # name -> label, key variable, suggested model
    "openai": ("OpenAI", "OPENAI_API_KEY", "gpt-4o-mini"),
    "anthropic": ("Anthropic", "ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
    "gemini": ("Google Gemini", "GEMINI_API_KEY", "gemini-2.5-flash"),
}
OPTIONAL_KEYS: Mapping[str, str] = {
    "TAVILY_API_KEY": "Tavily API key (web search)",
    "E2B_API_KEY": "E2B API key (code sandbox)",
    "WOLFRAM_APP_ID": "Wolfram|Alpha app id (maths and data)",
}
VALIDATION_PROMPT = "Reply with the single word OK."


@dataclass
class SetupDesk:
    """What the wizard and the Settings tab work with: the data dir, its key store, where to look for
    local servers, and the configured cloud providers (their models are the suggested ones)."""

    data_dir: Path
    secrets: SecretStore
    ports: Mapping[str, int] = field(default_factory=dict)
    discovery_timeout_s: float = 0.8
    validation_timeout_s: float = 20.0
    current_provider: str = ""  # the provider answering in this process
    use_model: UseModel | None = None  # None: a new choice applies at the next start
    # two browser sessions may finish at once: one saves after the other
    saving: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def needs_setup(self) -> bool:
        return not setup_complete(self.data_dir)

    async def servers(self) -> list[LocalServer]:
        """The local servers running now (each probed once, concurrently)."""
        return await discover(self.ports, timeout_s=self.discovery_timeout_s)


def open_setup_desk(config: Any, current_provider: str = "", use_model: UseModel | None = None) -> SetupDesk:
    """The desk for an `AppConfig`: its data dir's secret store and its discovery ports."""
    return SetupDesk(
        config.data_dir,
        SecretStore(config.data_dir),
        config.discovery.ports(),
        config.discovery.timeout_s,
        current_provider=current_provider,
        use_model=use_model,
    )


@dataclass(frozen=True)
class ProviderChoice:
    """The model the user picked: the provider name to save, its config entry and its key (if any)."""

    name: str
    label: str
    entry: dict[str, Any] | None = None  # None: the configured provider as it is
    key_env: str | None = None
    key: str = field(default="", repr=False)

    def __repr__(self) -> str:  # the key never shows in a log or a traceback
        return f"ProviderChoice({self.name!r}, {self.label!r}, key={mask(self.key)})"


def embedded_choice() -> ProviderChoice:
    return ProviderChoice("local", "the embedded model (offline)")


def local_choice(server: LocalServer, model: str) -> ProviderChoice:
    """A model of a found local server, saved as an OpenAI-compatible provider named after the server."""
    return ProviderChoice(server.kind, f"{model} from {server.label}", provider_entry(server, model))


def cloud_choice(name: str, model: str, key: str, base_url: str = "") -> ProviderChoice:
    """A cloud provider with the user's key (saved under the variable the provider reads); `base_url`
    points it at a compatible service instead of the vendor's own."""
    label, key_env, suggested = CLOUD_PROVIDERS[name]
    entry = {"model": model.strip() or suggested}
    if base_url.strip():
        entry["base_url"] = base_url.strip()
    return ProviderChoice(name, f"{entry['model']} from {label}", entry, key_env, key.strip())


def local_labels(servers: list[LocalServer]) -> dict[str, tuple[str, str, str]]:
    """One-click labels ("Use qwen2.5:7b from Ollama") -> (kind, base URL, model) of each found model."""
    return {
        f"Use {model} from {server.label}": (server.kind, server.base_url, model)
        for server in servers
        if server.running
        for model in server.models
    }


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str


async def validate(choice: ProviderChoice, timeout_s: float = 20.0) -> Outcome:
    """One tiny real request to the chosen provider; its own error message when it fails."""
    if choice.entry is None:
        return Outcome(True, f"✓ {choice.label}: nothing to check")
    if choice.entry.get("kind") is None and not choice.key:
        return Outcome(False, f"⚠ enter the {choice.key_env} key for {choice.label}")
    from core.errors import DaemonError
    from core.providers.registry import ADAPTERS
    from core.types import ChatRequest, Message

    cfg = _provider_config(choice)
    env = {choice.key_env: choice.key} if choice.key_env else {}
    try:
        adapter = ADAPTERS[cfg.kind](choice.name, cfg, env, timeout_s)
        request = ChatRequest((Message("user", VALIDATION_PROMPT),), max_tokens=8, temperature=0.0)
        await adapter.complete(request)
    except DaemonError as error:
        return Outcome(False, f"⚠ {choice.label} did not answer: {error}")
    except Exception as error:  # noqa: BLE001 - any failure is shown to the user, never raised into the page
        log.warning("validation of %s failed: %s", choice.name, type(error).__name__)
        return Outcome(False, f"⚠ {choice.label} did not answer ({type(error).__name__})")
    return Outcome(True, f"✓ {choice.label} answered")


def _provider_config(choice: ProviderChoice) -> ProviderConfig:
    """The full provider config the choice stands for (a cloud entry over the committed defaults)."""
    entry = dict(choice.entry or {})
    if "kind" not in entry:
        from core.config import load_config

        base = load_config().providers[choice.name].model_dump()
        entry = {**base, **entry}
    return ProviderConfig.model_validate(entry)


def check_paths(vault: str, repos: str) -> tuple[list[str], str | None, list[str]]:
    """Problems with the vault and repository paths, the vault and the repositories (absolute)."""
    problems: list[str] = []
    vault_path = None
    if vault.strip():
        path = Path(vault.strip()).expanduser()
        if not path.is_dir():
            problems.append(f"the Obsidian vault {path} is not a folder")
        else:
            vault_path = str(path.resolve())
    found: list[str] = []
    for line in (line.strip() for line in repos.splitlines()):
        if not line:
            continue
        path = Path(line).expanduser()
        if not path.is_dir():
            problems.append(f"{path} is not a folder")
        elif not (path / ".git").exists():
            problems.append(f"{path} is not a git repository (no .git in it)")
        else:
            found.append(str(path.resolve()))
    return problems, vault_path, found


@dataclass
class Answers:
    """What the user filled in."""

    name: str = ""
    style: str = "balanced"
    choice: ProviderChoice = field(default_factory=embedded_choice)
    keys: dict[str, str] = field(default_factory=dict, repr=False)  # optional tool keys by variable
    vault: str = ""
    repos: str = ""


def saved_answers(data_dir: Path) -> Answers:
    """The answers the saved settings hold (the wizard opened again starts from them, never from empty
    fields): name, style, notes folder and repositories. Keys are never read back into the page."""
    saved = read_settings(data_dir)
    user = saved.get("user") or {}
    style = user.get("style") if user.get("style") in ANSWER_STYLES else "balanced"
    vault = (saved.get("obsidian") or {}).get("vault") or ""
    repos = (saved.get("session") or {}).get("git_repos") or []
    return Answers(
        name=str(user.get("name") or ""),
        style=str(style),
        vault=str(vault),
        repos="\n".join(str(r) for r in repos) if isinstance(repos, list) else "",
    )


async def finish(desk: SetupDesk, answers: Answers) -> Outcome:
    """Check everything (paths, then one call to the chosen model); save only when all is well."""
    if answers.style not in ANSWER_STYLES:
        return Outcome(False, f"⚠ pick an answer style ({', '.join(ANSWER_STYLES)})")
    problems, vault, repos = check_paths(answers.vault, answers.repos)
    if problems:
        return Outcome(False, "⚠ " + "; ".join(problems))
    checked = await validate(answers.choice, desk.validation_timeout_s)
    if not checked.ok:
        return checked
    choice = answers.choice
    with desk.saving:
        if choice.key_env and choice.key:
            desk.secrets.set(choice.key_env, choice.key)
        for name, value in answers.keys.items():
            if name in OPTIONAL_KEYS and value.strip():
                desk.secrets.set(name, value)
        save_settings(desk.data_dir, _settings(answers, vault, repos))
    return Outcome(True, f"✓ Saved. {checked.message}. {await _switch(desk, choice)}")


async def _switch(desk: SetupDesk, choice: ProviderChoice) -> str:
    """Make the running chat answer with the saved choice; what the user is told about it."""
    if choice.entry is None and choice.name == desk.current_provider:
        return "The chat is ready."  # the model answering already
    if desk.use_model is None:
        return f"The chat is ready; {choice.label} answers from the next start."
    from core.errors import DaemonError

    keys = {choice.key_env: choice.key} if choice.key_env and choice.key else {}
    try:  # building the agents may read files (a tokenizer): off the event loop
        await asyncio.to_thread(desk.use_model, choice.name, _provider_config(choice), keys)
    except DaemonError as error:
        return f"The chat keeps its model ({error}); {choice.label} answers from the next start."
    except Exception as error:  # noqa: BLE001 - shown to the user, never raised into the page
        log.warning("could not switch to %s", choice.name, exc_info=True)
        reason = type(error).__name__
        return f"The chat keeps its model ({reason}); {choice.label} answers from the next start."
    desk.current_provider = choice.name
    return f"The chat is now answering with {choice.label}."


def _settings(answers: Answers, vault: str | None, repos: list[str]) -> dict[str, Any]:
    choice = answers.choice
    user: dict[str, Any] = {"style": answers.style, "setup_complete": True}
    if answers.name.strip():  # an empty field never erases the saved name
        user["name"] = answers.name.strip()
    settings: dict[str, Any] = {"user": user, "models": {"main": choice.name}}
    if choice.entry is not None:
        settings["providers"] = {choice.name: choice.entry}
    if vault is not None:
        settings["obsidian"] = {"vault": vault}
    if repos:
        settings["session"] = {"git_repos": repos}
    return settings


def skip(desk: SetupDesk) -> Outcome:
    """Mark the setup done without changing anything: the offline defaults apply."""
    with desk.saving:
        save_settings(desk.data_dir, {"user": {"setup_complete": True}})
    return Outcome(True, "Using the offline defaults. Run the wizard again any time from the Settings tab.")
