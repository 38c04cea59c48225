"""Heavy packages load when used, not when imported: provider modules load no vendor SDK and the GUI
module loads no Gradio (`python main.py --help` stays instant)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_provider_modules_loads_no_sdk() -> None:
    code = (
        "import sys\n"
        "import core.providers.openai_compat, core.providers.anthropic_provider\n"
        "import core.providers.gemini_provider\n"
        "import core.providers.wrappers, core.providers.pricing, core.providers.routing\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'google.genai', 'httpx', 'httpx2', 'aiohttp')"
        " if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_importing_the_gui_module_does_not_import_gradio() -> None:
    code = "import sys, ui.gui.app; assert 'gradio' not in sys.modules, 'gradio imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)
