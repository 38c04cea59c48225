"""Prompt snapshots: an assembled prompt saved with its provenance, and replayed exactly.

`capture` takes what the real assembler built (`Orchestrator.preview`, the `prompt` command) and keeps its
system prompt and every section with every item (text, source id, marker, why), beside provenance: the
hashes of the configuration, of the prompt-assembly code and of the rendered prompt itself, and the model
it was built for. `replay` rebuilds the same `AssembledPrompt` from the snapshot alone (no retrieval, no
store, no writes) and checks that it renders to the same text: a snapshot that no longer reproduces its
prompt is refused, so an evaluation over snapshots compares like with like.

`python main.py prompt TEXT --snapshot FILE` writes one; `python main.py prompt --replay FILE` replays it
under the persistence guard (`eval/persistence_guard.py`) and prints the prompt.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.prompt.assembly import AssembledPrompt, PromptItem, RenderedSection

FORMAT = 1
_CODE = (
    "core/prompt/assembly.py",
    "core/prompt/builder.py",
    "core/prompt/sections.py",
    "core/system_prompt.py",
)
_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Provenance:
    """Where a snapshot came from: hashes of the config, the assembly code and the prompt, the model."""

    config_hash: str
    code_hash: str
    prompt_hash: str
    model: str
    query: str
    captured_at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Snapshot:
    """An assembled prompt and its provenance, as saved on disk."""

    provenance: Provenance
    prompt: AssembledPrompt


class SnapshotError(UserInputError):
    """A snapshot file that cannot be read, or no longer reproduces the prompt it was taken of."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def prompt_hash(prompt: AssembledPrompt) -> str:
    """The hash of exactly what the model is sent (role and text of every message)."""
    return digest("\n".join(f"[{m.role}]\n{m.content}" for m in prompt.messages()))


def code_hash(root: Path = _ROOT) -> str:
    """The hash of the code that assembles prompts: a snapshot taken under other code says so."""
    files = [root / name for name in _CODE]
    return digest("".join(path.read_text(encoding="utf-8") for path in files if path.exists()))


def capture(prompt: AssembledPrompt, *, query: str, config_text: str, model: str) -> Snapshot:
    """A snapshot of `prompt` (built for `query` by `model` under the config `config_text`)."""
    provenance = Provenance(digest(config_text), code_hash(), prompt_hash(prompt), model, query)
    return Snapshot(provenance, prompt)


def save(snapshot: Snapshot, path: Path) -> None:
    """Write `snapshot` as JSON (written whole, then renamed: never half a file)."""
    prompt = snapshot.prompt
    payload = {
        "format": FORMAT,
        "provenance": asdict(snapshot.provenance),
        "system": prompt.system,
        "budget": prompt.budget,
        "total_tokens": prompt.total_tokens,
        "counter": prompt.counter,
        "omitted": dict(prompt.omitted),
        "sections": [
            {
                "key": s.key,
                "header": s.header,
                "tokens": s.tokens,
                "why": s.why,
                "dropped": [list(pair) for pair in s.dropped],
                "items": [asdict(item) for item in s.items],
            }
            for s in prompt.sections
        ],
    }
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
    partial.replace(path)


def load(path: Path) -> Snapshot:
    """Read a snapshot file (a clear error for anything that is not one)."""
    try:
        raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("format") != FORMAT:
            raise SnapshotError(f"{path}: not a prompt snapshot of format {FORMAT}")
        sections = tuple(
            RenderedSection(
                s["key"],
                s["header"],
                tuple(PromptItem(**item) for item in s["items"]),
                int(s["tokens"]),
                s.get("why", ""),
                tuple((str(a), str(b)) for a, b in s.get("dropped", ())),
            )
            for s in raw["sections"]
        )
        budget, total = int(raw["budget"]), int(raw["total_tokens"])
        prompt = AssembledPrompt(raw["system"], sections, budget, total, raw["counter"], raw["omitted"])
        return Snapshot(Provenance(**raw["provenance"]), prompt)
    except OSError as error:
        raise SnapshotError(f"{path}: cannot read it ({error.strerror or error})") from None
    except (ValueError, KeyError, TypeError) as error:
        raise SnapshotError(f"{path}: not a prompt snapshot ({type(error).__name__}: {error})") from None


def replay(snapshot: Snapshot) -> AssembledPrompt:
    """The snapshot's prompt, rebuilt from the file alone and checked against its hash."""
    again = snapshot.prompt
    found, saved = prompt_hash(again), snapshot.provenance.prompt_hash
    if found != saved:
        raise SnapshotError(f"the snapshot no longer reproduces its prompt (hash {found}, saved {saved})")
    return again
