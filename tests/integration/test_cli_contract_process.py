"""Each command's exit code and `--json` keys, as processes, are the ones recorded in cli_outcomes.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_outcomes import INVOCATIONS, outcome

RECORDED = json.loads((Path(__file__).parent / "cli_outcomes.json").read_text())


@pytest.mark.parametrize("args", INVOCATIONS, ids=" ".join)
def test_exit_code_and_json_keys_are_unchanged(args: tuple[str, ...], tmp_path: Path) -> None:
    assert outcome(args, tmp_path / "data") == RECORDED[" ".join(args)]
