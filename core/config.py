"""Configuration: defaults file + user file + .env + environment + flags, validated into a frozen config.

Precedence, lowest to highest: the committed `config.yaml`, the settings the wizard saved in the data dir
(`settings.yaml`, core/config_user.py), the user's `--config FILE`, `.env` in the working
directory, the process environment, command-line flags. Environment keys: `DAEMON_DATA_DIR`,
`DAEMON_PROVIDER`, `DAEMON_MODEL`, and `DAEMON_<SECTION>__<KEY>` for any key (`DAEMON_GUI__PORT=7861`).
A bad value is reported with where it came from, the key and what is expected; never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, ValidationError

from core.config_documents import DocumentsConfig
from core.config_mcp import McpServers
from core.config_memory import INTENT_NAMES, MEMORY_COLLECTION_NAMES, MemoryConfig, _Frozen
from core.config_sources import ObsidianConfig, WikipediaConfig
from core.config_synthesis import SynthesisConfig
from core.config_tools import ToolsConfig
from core.config_user import UserConfig
from core.config_visual import VisualConfig
from core.data_dir import default_data_dir
from core.errors import ConfigError

if TYPE_CHECKING:
    from core.tracing import TraceLog

DEFAULT_CONFIG_FILE = Path(__file__).resolve().parent.parent / "config.yaml"
ProviderKind = Literal["local", "openai", "anthropic", "gemini", "echo"]
PROVIDER_KINDS: tuple[str, ...] = ("local", "openai", "anthropic", "gemini", "echo")


__all__ = ["INTENT_NAMES", "MEMORY_COLLECTION_NAMES", "AppConfig", "MemoryConfig", "load_config"]


class ProviderConfig(_Frozen):
    kind: ProviderKind
    model: str
    api_key_env: str | None = None
    base_url_env: str | None = None
    base_url: str | None = None
    context_window: int = Field(8192, ge=256)
    backend: Literal["auto", "llama_cpp", "transformers"] = "auto"
    model_path: str | None = None
    threads: int = Field(0, ge=0)
    # kind local only: the longest reply the embedded model writes. A 135M model past a short answer repeats
    # itself and invents; a longer reply costs seconds per hundred tokens on a laptop CPU.
    max_reply_tokens: int = Field(256, ge=16)
    # USD per million [input, output] tokens, over the built-in table (core/providers/pricing.py); needed for
    # a paid model the table does not know while budget.max_usd is set ([0, 0] for a self-hosted server).
    price_per_mtok: tuple[Annotated[float, Field(ge=0)], Annotated[float, Field(ge=0)]] | None = None
    # kind openai only: which server speaks the API, for what it honours of tool_choice (docs/providers.md).
    dialect: Literal["openai", "vllm", "ollama", "lmstudio", "llamacpp"] = "openai"
    # Whether the model takes images (core/providers/vision.py); null: known from the model's name.
    vision: bool | None = None


class ModelsConfig(_Frozen):
    main: str = "auto"
    fast: str | None = None
    judge: str | None = None
    # The provider that captions images added to visual memory (core/providers/vision_caption.py: kinds
    # openai, incl. compatible servers, and anthropic); None: captions from the user, file name and EXIF.
    vision: str | None = None
    fallback_to_local: bool = True


class RetryConfig(_Frozen):
    max_attempts: int = Field(4, ge=1, le=20)
    base_delay_s: float = Field(0.5, ge=0)
    max_delay_s: float = Field(20.0, ge=0)
    timeout_s: float = Field(60.0, gt=0)


class BudgetConfig(_Frozen):
    max_usd: float | None = Field(None, ge=0)


class AgentConfig(_Frozen):
    max_rounds: int = Field(5, ge=1, le=50)
    tool_timeout_s: float = Field(30.0, gt=0)
    tool_retries: int = Field(0, ge=0, le=5)
    max_tool_output_chars: int = Field(8000, ge=100)
    compaction_threshold: float = Field(0.8, gt=0, le=1)
    max_tokens: int = Field(1024, ge=16)
    temperature: float = Field(0.7, ge=0, le=2)


class HistoryConfig(_Frozen):
    recent_turns: int = Field(12, ge=0, le=200)


class ContextConfig(_Frozen):
    """The context pipeline's optional LLM step (query rewrite, topics, short-term analysis)."""

    llm_refinement: bool = True  # used only when a remote/served model answers or serves the `fast` role
    refine_timeout_s: float = Field(4.0, gt=0, le=60)


class SessionConfig(_Frozen):
    """When a session counts as ended in the GUI (the CLI ends it on exit), and what a new one looks at."""

    idle_end_minutes: float = Field(30.0, gt=0)  # a GUI session quiet this long gets its session-end steps
    # A GUI or API server stopping spends at most this long on the session-end steps of the sessions it
    # served (`docker stop` kills after 10 s); the steps not reached run at the next start.
    shutdown_budget_s: float = Field(8.0, gt=0)
    git_repos: tuple[Path, ...] = ()  # local repositories whose new commits the prompt mentions


class BackupConfig(_Frozen):
    """Local snapshots of the data dir (`backup now|list|restore`, and on a schedule while the GUI runs)."""

    dir: Path | None = None  # None: a folder beside the data dir, "<data dir>-backups"
    keep: int = Field(7, ge=1, le=1000)  # the newest this many stay; older snapshots are removed
    every_hours: float = Field(24.0, ge=0)  # while the GUI or `api` runs; 0: only when asked

    def folder(self, data_dir: Path) -> Path:
        """Where the snapshots of `data_dir` go."""
        return self.dir or data_dir.with_name(f"{data_dir.name}-backups")


class TasksConfig(_Frozen):
    """Reminders (`task add|list|remove`, the chat's approved proposals) and how they reach the user."""

    check_every_s: float = Field(20.0, gt=0, le=3600)  # how often an open front end looks for due ones
    os_notifications: bool = True  # also as the system's notification (notify-send, osascript) if present
    max_background: int = Field(2, ge=1, le=16)  # background tasks running at once (the rest wait)


class SubagentConfig(_Frozen):
    """A subagent (`subagents.NAME`): its instructions, the only tools it may use, and its budget."""

    instructions: str
    tools: tuple[str, ...] = ()
    max_rounds: int = Field(8, ge=1, le=50)
    max_tokens: int = Field(40_000, ge=100)
    timeout_s: float = Field(600.0, gt=0)
    max_usd: float | None = Field(None, ge=0)


class TracingConfig(_Frozen):
    """Local traces of each turn (`trace show TURN_ID`): written in the data dir, never sent anywhere."""

    enabled: bool = True
    max_mb: float = Field(5.0, gt=0)  # the trace file is rotated past this size ...
    keep_files: int = Field(3, ge=1, le=100)  # ... keeping this many older files

    def log(self, data_dir: Path) -> TraceLog | None:
        """Where the traces go (None when tracing is off)."""
        if not self.enabled:
            return None
        from core.tracing import TRACE_DIR, TraceLog

        return TraceLog(data_dir / TRACE_DIR, max_bytes=int(self.max_mb * 1_000_000), keep=self.keep_files)


class PromptConfig(_Frozen):
    """The prompt's token budget (capped by the model's context window minus the reply) and its floors."""

    budget_tokens: int = Field(6000, ge=64)
    floor_turns: int = Field(5, ge=0, le=50)
    disabled_sections: tuple[str, ...] = ()  # ablation: sections left out (the query and turns stay)


class GenerationConfig(_Frozen):
    """How answers are produced. Modes other than `stream` need a judge model (models.judge, else
    models.fast, else a non-embedded main model); without one they fall back to streaming."""

    mode: Literal["stream", "best_of", "duel", "ensemble"] = "stream"
    n: int = Field(3, ge=2, le=8)  # best-of candidates
    temperatures: tuple[float, ...] = (0.3, 0.7, 1.0)  # cycled over the best-of candidates
    plan: bool = False  # a second model plans the answer first
    review: bool = False  # ... and reviews it (one rewrite at most); the answer then arrives whole
    uncertainty_retry: bool = True  # "I don't remember" about the user -> one retry that searches memory
    judge_timeout_s: float = Field(30.0, gt=0)


class GuiConfig(_Frozen):
    host: str = "127.0.0.1"
    port: int = Field(7860, ge=1, le=65535)
    auth_env: str = "DAEMON_GUI_AUTH"


class DiscoveryConfig(_Frozen):
    """Where `doctor` and the setup wizard look for local model servers (core/providers/discovery.py)."""

    ollama: int = Field(11434, ge=1, le=65535)
    lmstudio: int = Field(1234, ge=1, le=65535)
    llamacpp: int = Field(8080, ge=1, le=65535)
    timeout_s: float = Field(0.8, gt=0, le=10)

    def ports(self) -> dict[str, int]:
        return {"ollama": self.ollama, "lmstudio": self.lmstudio, "llamacpp": self.llamacpp}


class AppConfig(_Frozen):
    """The whole validated configuration. Frozen: build objects from it, never mutate it."""

    data_dir: Path = Field(default_factory=default_data_dir)  # the platform's per-user folder
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"
    telemetry: bool = False
    models: ModelsConfig = ModelsConfig()
    providers: dict[str, ProviderConfig] = {}
    retry: RetryConfig = RetryConfig()
    budget: BudgetConfig = BudgetConfig()
    agent: AgentConfig = AgentConfig()
    history: HistoryConfig = HistoryConfig()
    context: ContextConfig = ContextConfig()
    session: SessionConfig = SessionConfig()
    backup: BackupConfig = BackupConfig()
    tasks: TasksConfig = TasksConfig()
    tracing: TracingConfig = TracingConfig()
    synthesis: SynthesisConfig = SynthesisConfig()
    subagents: dict[str, SubagentConfig] = {}
    prompt: PromptConfig = PromptConfig()
    generation: GenerationConfig = GenerationConfig()
    gui: GuiConfig = GuiConfig()
    memory: MemoryConfig  # no default: the profiles' values live only in config.yaml
    tools: ToolsConfig  # no default: the values live only in config.yaml
    documents: DocumentsConfig  # no default: document ingestion's limits live only in config.yaml
    obsidian: ObsidianConfig  # no default: the vault and its exclusions live only in config.yaml
    wikipedia: WikipediaConfig  # no default: the optional FAISS index lives only in config.yaml
    visual: VisualConfig  # no default: image limits and the CLIP weights live only in config.yaml
    mcp_servers: McpServers = ()  # MCP servers whose tools the agent may use (core/config_mcp.py)
    user: UserConfig = UserConfig()  # the wizard's name and answer style (core/config_user.py)
    discovery: DiscoveryConfig = DiscoveryConfig()  # loopback ports of local model servers


def load_config(
    config_file: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    defaults_file: Path = DEFAULT_CONFIG_FILE,
    settings_file: Path | None = None,
) -> AppConfig:
    """Build the frozen config. `env` is the merged environment (.env values under the real environment);
    `settings_file` is the data dir's saved settings (core/config_user.py), just over the defaults."""
    env = env or {}
    sources: dict[str, str] = {}
    data = _read_yaml(defaults_file)
    _record_sources(data, str(defaults_file), sources)
    if settings_file is not None and settings_file.is_file():
        saved = _read_yaml(settings_file)
        saved.pop("data_dir", None)  # the data dir holds this file: it cannot move it
        _record_sources(saved, str(settings_file), sources)
        data = _deep_merge(data, saved)
    if config_file is not None:
        user = _read_yaml(config_file)
        _record_sources(user, str(config_file), sources)
        data = _deep_merge(data, user)
    data = _apply_env(data, env, sources)
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(data, dotted, value)
            sources[dotted] = "command-line flag"
    try:
        config = AppConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_describe(error, sources)) from None
    _check_references(config)
    return _apply_model_override(config, env)


def merged_environment(environ: Mapping[str, str], dotenv_file: Path | None) -> dict[str, str]:
    """The process environment over the values of a `.env` file (the environment wins)."""
    merged: dict[str, str] = {}
    if dotenv_file is not None and dotenv_file.is_file():
        from dotenv import dotenv_values

        merged.update({k: v for k, v in dotenv_values(dotenv_file).items() if v is not None})
    merged.update(environ)
    return merged


def _read_yaml(path: Path) -> dict[str, Any]:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a directory, not a YAML file") from None
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        line = error.object[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"config file {path} is not UTF-8 text: byte 0x{error.object[error.start]:02x} on line {line} "
            "cannot be read; save the file as UTF-8"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(
            f"config file {path} is not valid YAML{where}: {getattr(error, 'problem', error)}"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of keys, not a {type(data).__name__}")
    return data


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _record_sources(data: Any, source: str, sources: dict[str, str], prefix: str = "") -> None:
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        sources[dotted] = source
        _record_sources(value, source, sources, dotted + ".")


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


def _apply_env(data: dict[str, Any], env: Mapping[str, str], sources: dict[str, str]) -> dict[str, Any]:
    import yaml

    data = _deep_merge(data, {})
    for name, raw in sorted(env.items()):
        if not name.startswith("DAEMON_") or "__" not in name:
            continue
        dotted = name[len("DAEMON_") :].lower().replace("__", ".")
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            value = raw
        _set_dotted(data, dotted, value)
        sources[dotted] = f"environment variable {name}"
    if env.get("DAEMON_DATA_DIR"):
        data["data_dir"] = env["DAEMON_DATA_DIR"]
        sources["data_dir"] = "environment variable DAEMON_DATA_DIR"
    if env.get("DAEMON_PROVIDER"):
        _set_dotted(data, "models.main", env["DAEMON_PROVIDER"].strip())
        sources["models.main"] = "environment variable DAEMON_PROVIDER"
    return data


def _describe(error: ValidationError, sources: dict[str, str]) -> str:
    lines = ["invalid configuration:"]
    for item in error.errors():
        dotted = ".".join(str(part) for part in item["loc"])
        source = _closest_source(dotted, sources)
        got = item.get("input")
        shown = "" if isinstance(got, dict | list) else f" (got {got!r})"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key; check its spelling"
        lines.append(f"  {source}: key `{dotted}`: {message}{shown}")
    return "\n".join(lines)


def _closest_source(dotted: str, sources: dict[str, str]) -> str:
    parts = dotted.split(".")
    while parts:
        key = ".".join(parts)
        if key in sources:
            return sources[key]
        parts.pop()
    return "configuration"


def _check_references(config: AppConfig) -> None:
    """Model roles must name a configured provider (or `auto`)."""
    for role in ("main", "fast", "judge", "vision"):
        name = getattr(config.models, role)
        if name is None or (role == "main" and name == "auto"):
            continue
        if name not in config.providers:
            known = ", ".join(sorted(config.providers)) or "none"
            raise ConfigError(
                f"config key `models.{role}` names provider {name!r}, which is not configured "
                f"(configured providers: {known}; `auto` picks one for you)"
            )


def _apply_model_override(config: AppConfig, env: Mapping[str, str]) -> AppConfig:
    """`DAEMON_MODEL` replaces the model of whichever provider serves the `main` role."""
    model = (env.get("DAEMON_MODEL") or "").strip()
    name = resolve_main_provider(config, env)
    if not model or name not in config.providers:
        return config
    providers = dict(config.providers)
    providers[name] = providers[name].model_copy(update={"model": model})
    return config.model_copy(update={"providers": providers})


def resolve_main_provider(config: AppConfig, env: Mapping[str, str]) -> str:
    """Name of the provider for the `main` role: explicit choice, else a keyed one, else the local model."""
    if config.models.main != "auto":
        return config.models.main
    for name in ("openai", "anthropic", "gemini"):
        provider = config.providers.get(name)
        if provider is None:
            continue
        keys = [provider.api_key_env, provider.base_url_env]
        if name == "gemini":
            keys.append("GOOGLE_API_KEY")
        if any(key and env.get(key) for key in keys):
            return name
    return "local"
