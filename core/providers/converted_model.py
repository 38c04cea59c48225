"""A converted copy of a GGUF model for the transformers backend: the first load pays, later loads do not.

transformers reads a GGUF file slowly: it parses the whole vocabulary twice and maps every tensor name, about
16 s for the bundled 135M model on a laptop core, before each process can answer. The same weights saved as
safetensors (fp32, exactly as dequantized, so replies are identical) load in under half a second. The copy is
a cache of an installed file, not user data: it lives in the user's cache folder (`DAEMON_CACHE_DIR`, else
`$XDG_CACHE_HOME/daemon`, else `~/.cache/daemon`), is keyed by the GGUF file's size and modification time and
the transformers version, is written to a temporary folder and renamed into place (a process killed halfway
leaves no half copy), and replaces the older copies of the same model. Any failure here is logged and the
model loads from the GGUF file as before.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

WEIGHTS = "model.safetensors"


def cache_root(env: Mapping[str, str]) -> Path:
    """Where converted models are kept: `DAEMON_CACHE_DIR`, else the XDG cache folder's `daemon`."""
    if env.get("DAEMON_CACHE_DIR"):
        return Path(env["DAEMON_CACHE_DIR"]).expanduser()
    xdg = env.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "daemon"


def copy_folder(root: Path, gguf: Path, converter_version: str) -> Path:
    """The folder of `gguf`'s converted copy under `root`: a new file or a new transformers, a new folder."""
    stat = gguf.stat()
    return root / "models" / f"{gguf.stem}-{stat.st_size}-{stat.st_mtime_ns}-tf{converter_version}"


def has_copy(folder: Path) -> bool:
    """A complete copy is there (the folder appears only by rename, once everything is written)."""
    return (folder / WEIGHTS).is_file() and (folder / "config.json").is_file()


def save_copy(model: Any, tokenizer: Any, folder: Path) -> bool:
    """Save the dequantized `model` and its `tokenizer` as `folder`; drop older copies of the same model.
    False (and a log line) when it could not: the next process converts again."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        from safetensors.torch import save_model

        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        try:
            # save_pretrained refuses a model loaded from GGUF ("not serializable"); its weights are plain
            # fp32 tensors by now, so they are saved as such, with the config minus the GGUF marker.
            save_model(model, str(partial / WEIGHTS), metadata={"format": "pt"})
            model.config.save_pretrained(partial)
            model.generation_config.save_pretrained(partial)
            config = json.loads((partial / "config.json").read_text(encoding="utf-8"))
            config.pop("quantization_config", None)
            (partial / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
            tokenizer.save_pretrained(partial)
            os.replace(partial, folder)
        finally:
            shutil.rmtree(partial, ignore_errors=True)  # gone once renamed; else what was left half-written
    except Exception as exc:  # noqa: BLE001 - a cache: the model is loaded already, whatever fails here
        if has_copy(folder):  # another process renamed its copy first
            return True
        log.info("could not save a converted copy of the local model in %s: %s", folder, exc)
        return False
    _drop_older(folder)
    return True


def _drop_older(folder: Path) -> None:
    """Remove the other copies of the same model (an older file or transformers): each is ~0.5 GB."""
    model = folder.name.rsplit("-", 3)[0]  # the name before size, time and version
    for other in folder.parent.iterdir():
        if other != folder and other.is_dir() and other.name.rsplit("-", 3)[0] == model:
            shutil.rmtree(other, ignore_errors=True)
