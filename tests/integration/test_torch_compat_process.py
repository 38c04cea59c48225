"""The torchvision shim (core/torch_compat.py): each case runs in a fresh interpreter, since the shim's
work (torch's operator registry, sys.modules) is process-wide and cannot be undone inside pytest."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
needs_torchvision = pytest.mark.skipif(
    importlib.util.find_spec("torchvision") is None, reason="torchvision is not installed"
)


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


@needs_torchvision
@pytest.mark.slow
def test_after_the_shim_transformers_models_and_torchvision_transforms_import() -> None:
    result = _python(
        "from core.torch_compat import ensure_torchvision_importable as shim\n"
        "first = shim(); again = shim()\n"
        "from transformers import PreTrainedModel\n"
        "import torchvision.transforms as T\n"
        "print(first == again, PreTrainedModel.__name__, T.Resize(8).size)\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["True", "PreTrainedModel", "8"]


@needs_torchvision
@pytest.mark.slow
def test_the_import_hook_runs_the_shim_before_a_direct_sentence_transformers_import() -> None:
    result = _python(
        "import sys\n"
        "from core.torch_compat import install_import_hook\n"
        "install_import_hook(); install_import_hook()\n"
        "hooks = sum(type(f).__name__ == '_ShimOnImport' for f in sys.meta_path)\n"
        "import sentence_transformers\n"
        "left = sum(type(f).__name__ == '_ShimOnImport' for f in sys.meta_path)\n"
        "print(hooks, left, sentence_transformers.SentenceTransformer.__name__)\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["1", "0", "SentenceTransformer"]


def test_without_a_broken_torchvision_the_shim_defines_nothing() -> None:
    result = _python(
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'torchvision' else real(name, *a)\n"
        "from core.torch_compat import ensure_torchvision_importable\n"
        "print(ensure_torchvision_importable(), 'torchvision' in sys.modules, 'torch' in sys.modules)\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["False", "False", "False"]
