"""`python main.py prompt TEXT [--budget N] [--session ID] [--explain] [--json] [--snapshot FILE]`: the prompt
a message would get, section by section with token counts (no model call, nothing stored); `--snapshot`
saves it with its provenance, `prompt --replay FILE` replays a saved one (`eval/snapshots.py`), and
`--variants` / `--variant NAME` list or print its ablation variants (`eval/variants.py`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from core.errors import UserInputError
from ui.shared.boundary import count_arg, message_arg, session_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.prompt.assembly import AssembledPrompt
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", type=message_arg, nargs="?", help="the message (not with --replay)")
    budget_help = "token budget (default: from the config and the model)"
    parser.add_argument("--budget", type=count_arg(1, 10_000_000), help=budget_help)
    session_help = "assemble as part of this session (its recent turns)"
    parser.add_argument("--session", type=session_arg, help=session_help)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--explain", action="store_true", help="why each section and item is there")
    parser.add_argument("--snapshot", type=Path, metavar="FILE", help="also save it, with its provenance")
    replay_help = "print a saved snapshot's prompt, checked against its hash (no retrieval, nothing written)"
    parser.add_argument("--replay", type=Path, metavar="FILE", help=replay_help)
    variants_help = "with --replay: list its variants (leave-one-out, add-one-in, bundles, reorder)"
    parser.add_argument("--variants", action="store_true", help=variants_help)
    parser.add_argument("--variant", metavar="NAME", help="with --replay: print this variant of the prompt")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.prompt import prompt_command, show_prompt

    if args.replay is not None:
        if args.text is not None or args.snapshot is not None:
            raise UserInputError("--replay takes no message and no --snapshot")
        from eval.persistence_guard import unchanged
        from eval.snapshots import load, replay

        with unchanged(config.data_dir):  # replay reads nothing but the file, and writes nothing
            prompt = replay(load(args.replay))
        if args.variants:
            return _list_variants(prompt, as_json=args.json)
        if args.variant is not None:
            from eval.variants import find

            try:
                prompt = find(prompt, args.variant).prompt
            except ValueError as error:
                raise UserInputError(str(error)) from None
        return show_prompt(prompt, as_json=args.json, explain=args.explain)
    if args.text is None:
        raise UserInputError("give the message, or --replay FILE")
    if args.variants or args.variant is not None:
        raise UserInputError("--variants and --variant need --replay FILE")

    def use(services: Services) -> int:
        def keep(prompt: AssembledPrompt) -> None:
            from eval.snapshots import capture, save

            model = services.orchestrator.default_model
            save(capture(prompt, query=args.text, config_text=repr(config), model=model), args.snapshot)

        return prompt_command(
            services.orchestrator,
            args.text,
            session_id=args.session,
            budget=args.budget,
            as_json=args.json,
            explain=args.explain,
            keep=keep if args.snapshot is not None else None,
        )

    return on_services(config, env, use)


def _list_variants(prompt: AssembledPrompt, *, as_json: bool) -> int:
    """Each variant of a replayed prompt: name, strategy, tokens, sections and the hash of what it sends."""
    from eval.snapshots import prompt_hash
    from eval.variants import variants
    from ui.shared.payloads import print_json

    rows = [
        {
            "name": v.name,
            "strategy": v.strategy,
            "tokens": v.prompt.total_tokens,
            "sections": list(v.sections),
            "prompt_hash": prompt_hash(v.prompt),
        }
        for v in variants(prompt)
    ]
    if as_json:
        print_json({"variants": rows})
        return 0
    for row in rows:
        print(f"{row['name']:<40} {row['strategy']:<14} {row['tokens']:>6} tokens  {row['prompt_hash']}")
    return 0


COMMAND = Command("prompt", "the prompt a message would get (no model call, no storing)", _arguments, _run)
