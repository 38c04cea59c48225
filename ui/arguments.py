"""The command-line grammar. Only argparse: `python main.py --help` must not import anything heavy."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ui.shared.boundary import count_arg, message_arg, session_arg, user_text

MAX_TURNS = 1_000_000_000  # beyond this SQLite's LIMIT overflows; no journal holds that many


def build_parser(version: str) -> argparse.ArgumentParser:
    """Every command, flag and help text of `python main.py` (the CLI contract of docs/architecture.md)."""
    parser = argparse.ArgumentParser(
        prog="main.py",
        description="Daemon: a local-first personal AI assistant that remembers. "
        "With no command, starts the web GUI on 127.0.0.1:7860.",
    )
    parser.add_argument("--config", type=Path, help="your config file (overrides config.yaml)")
    parser.add_argument("--data-dir", type=Path, help="where Daemon keeps your data (env DAEMON_DATA_DIR)")
    parser.add_argument("--version", action="version", version=f"Daemon {version}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = commands.add_parser("gui", help="start the web GUI (the default)")
    gui.add_argument("--host", help="address to bind (default 127.0.0.1)")
    gui.add_argument("--port", type=int, help="port (default 7860)")

    commands.add_parser("cli", help="interactive chat in the terminal")

    ask = commands.add_parser("ask", help="ask one question and print the answer")
    ask.add_argument("text", type=message_arg, help="your message")
    ask.add_argument("--session", type=session_arg, help="continue this session id")
    ask.add_argument("--json", action="store_true", help="print one JSON object")

    history = commands.add_parser("history", help="show past turns")
    history.add_argument("--session", type=session_arg, help="only this session")
    history.add_argument("--limit", type=count_arg(1, MAX_TURNS), help="only the last N turns")
    history.add_argument("--json", action="store_true", help="print one JSON object")

    doctor = commands.add_parser("doctor", help="check the installation, models, data dir and providers")
    doctor.add_argument("--json", action="store_true", help="print one JSON object")

    _add_memory_commands(commands)
    _add_bench_commands(commands)
    _add_truth_commands(commands)
    _add_document_commands(commands)
    _add_image_commands(commands)
    _add_sync_commands(commands)

    mcp = commands.add_parser("mcp", help="serve your memory to MCP clients (stdio; --http for HTTP)")
    http_help = "streamable HTTP on 127.0.0.1:PORT (0: any port); bearer token in the data dir's mcp_token"
    mcp.add_argument("--http", type=count_arg(0, 65535), metavar="PORT", help=http_help)

    api = commands.add_parser("api", help="serve an OpenAI-compatible chat API (docs/api.md)")
    api_bind = "address to bind (default 127.0.0.1; another address needs DAEMON_API_TOKEN)"
    api.add_argument("--host", dest="api_host", metavar="HOST", type=user_text, help=api_bind)
    api.add_argument(
        "--port",
        dest="api_port",
        metavar="PORT",
        type=count_arg(0, 65535),
        help="port (default 8765; 0: any)",
    )

    tool = commands.add_parser("tool", help="list or run the agent's tools directly")
    tool_commands = tool.add_subparsers(dest="tool_command", metavar="ACTION", required=True)
    tool_list = tool_commands.add_parser("list", help="list the tools and their argument schemas")
    tool_list.add_argument("--json", action="store_true")
    tool_run = tool_commands.add_parser("run", help="run one tool")
    tool_run.add_argument("name", type=user_text)
    tool_run.add_argument("--args", type=user_text, default="{}", help="arguments as a JSON object")
    approve_help = "run a tool with side effects (without it, such a tool is refused, as in the agent loop)"
    tool_run.add_argument("--approve", action="store_true", help=approve_help)
    tool_run.add_argument("--json", action="store_true")
    return parser


def _add_memory_commands(commands: Any) -> None:
    """`analyze` and `memory`: the understanding and memory commands."""
    analyze = commands.add_parser("analyze", help="intent, tone, topics and entities of a message (no LLM)")
    analyze.add_argument("text", nargs="?", type=message_arg, help="the message")
    analyze.add_argument("--file", type=Path, help="one message per line; prints {results: [...]} in order")
    reading = "read it as this session's next turn (escalation; nothing stored)"
    analyze.add_argument("--session", type=session_arg, help=reading)
    why = "say why the tone and intent were chosen (cues, the heads' probabilities, filters)"
    analyze.add_argument("--explain", action="store_true", help=why)
    analyze.add_argument("--json", action="store_true")

    memory = commands.add_parser("memory", help="search long-term memory or count what it holds")
    memory_commands = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    search = memory_commands.add_parser("search", help="run the normal memory search for QUERY")
    search.add_argument("query", type=message_arg)
    search.add_argument("--collection", help="only this collection")
    search.add_argument("--k", type=count_arg(1, 1000), default=10, help="how many results (default 10)")
    search.add_argument("--intent", default="general", help="intent profile to score with (default general)")
    search.add_argument("--json", action="store_true")
    stats = memory_commands.add_parser("stats", help="records per collection")
    stats.add_argument("--json", action="store_true")


def _add_bench_commands(commands: Any) -> None:
    """`bench`: the README's figures (docs/architecture.md, "Benchmark rules")."""
    bench = commands.add_parser("bench", help="retrieval quality and latency benchmarks")
    bench_commands = bench.add_subparsers(dest="bench_command", metavar="BENCHMARK", required=True)
    retrieval = bench_commands.add_parser(
        "retrieval", help="LoCoMo recall@k/MRR with dense and BM25 baselines"
    )
    retrieval.add_argument("--dataset", type=Path, required=True, help="a LoCoMo JSON file")
    retrieval.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    retrieval.add_argument("--json", action="store_true")
    answers = bench_commands.add_parser(
        "answers", help="LoCoMo answers offline: the extractive answerer beside the embedded model"
    )
    answers.add_argument("--dataset", type=Path, required=True, help="a LoCoMo JSON file")
    answers.add_argument("--sample", type=count_arg(1, 10_000), default=200, help="questions (default 200)")
    answers.add_argument(
        "--model-sample",
        type=int,
        default=40,
        help="of those, how many the embedded model answers (default 40)",
    )
    answers.add_argument("--seed", type=int, default=19)
    answers.add_argument("--json", action="store_true")
    assembly = bench_commands.add_parser("prompt", help="prompt assembly time at a budget, beside gathering")
    assembly.add_argument("--budget", type=int, default=15_000)
    assembly.add_argument("--json", action="store_true")
    ending = bench_commands.add_parser("session-end", help="session-end processing time for N turns")
    ending.add_argument("--turns", type=int, default=50)
    ending.add_argument("--json", action="store_true")
    latency = bench_commands.add_parser("latency", help="search latency against its floor on N memories")
    latency.add_argument("--memories", type=int, default=10_000)
    latency.add_argument("--queries", type=int, default=40)
    latency.add_argument(
        "--empty-sources", action="store_true", help="5 source collections empty; beside a search of them all"
    )
    latency.add_argument("--json", action="store_true")
    ingest = bench_commands.add_parser("ingest", help="document ingestion pages/s and MB/s beside extraction")
    ingest.add_argument("--docs", type=count_arg(1, 1000), default=5, help="PDFs, and as many .md (5)")
    ingest.add_argument("--pages", type=count_arg(1, 500), default=6, help="pages per document (default 6)")
    ingest.add_argument("--runs", type=count_arg(1, 50), default=3)
    ingest.add_argument("--json", action="store_true")
    startup = bench_commands.add_parser("startup", help="process start to ready on a data dir of N memories")
    startup.add_argument("--memories", type=int, default=10_000)
    startup.add_argument("--runs", type=int, default=3)
    startup.add_argument(
        "--baseline-tree", type=Path, help="another source tree (e.g. an older commit) timed on the same data"
    )
    startup.add_argument("--json", action="store_true")
    images = bench_commands.add_parser("images", help="image encode latency beside decode+resize alone")
    images.add_argument("--images", type=count_arg(1, 10_000), default=40, help="generated images (40)")
    images.add_argument("--json", action="store_true")


def _add_image_commands(commands: Any) -> None:
    """`image add|list|remove|search`: visual memory (docs/knowledge.md, "Images")."""
    image = commands.add_parser("image", help="add, list, remove or search the images you keep in memory")
    image_commands = image.add_subparsers(dest="image_command", metavar="ACTION", required=True)
    add = image_commands.add_parser("add", help="store an image (the same bytes are stored once)")
    add.add_argument("path", type=Path, help="a PNG, JPEG, GIF, WebP, BMP or TIFF file")
    add.add_argument("--caption", type=user_text, help="what it shows (default: a vision model or the name)")
    add.add_argument("--tags", type=user_text, help='comma-separated, e.g. "my sister, beach"')
    add.add_argument("--json", action="store_true")
    listing = image_commands.add_parser("list", help="the stored images, newest first")
    listing.add_argument("--json", action="store_true")
    remove = image_commands.add_parser("remove", help="forget one image (the file itself is untouched)")
    remove.add_argument("key", type=user_text, help="its id, SHA-256 (8+ hex digits) or path")
    remove.add_argument("--json", action="store_true")
    search = image_commands.add_parser("search", help="find images as the recall_image tool does")
    search.add_argument("query", type=user_text)
    search.add_argument("--k", type=count_arg(1, 50), default=5)
    search.add_argument("--json", action="store_true")


def _add_document_commands(commands: Any) -> None:
    """`ingest` and `docs`: the user's documents in `reference_docs` (docs/knowledge.md)."""
    ingest = commands.add_parser(
        "ingest", help="add documents to memory: txt, md, pdf, docx, html, source code"
    )
    ingest.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="files or folders (folders: walked)"
    )
    ingest.add_argument("--resume", action="store_true", help="finish ingest jobs a crash or error cut short")
    background = "run the job in a detached process and return at once (`docs jobs` shows its progress)"
    ingest.add_argument("--background", action="store_true", help=background)
    ingest.add_argument("--json", action="store_true", help="print only the summary, as one JSON object")

    docs = commands.add_parser("docs", help="list, remove or re-ingest stored documents; ingest jobs")
    docs_commands = docs.add_subparsers(dest="docs_command", metavar="ACTION", required=True)
    docs_list = docs_commands.add_parser("list", help="the stored documents (newest version of each)")
    docs_list.add_argument("--json", action="store_true")
    for action, text in (
        ("remove", "remove a document (every version) from memory"),
        ("reingest", "read a document's file again; a changed file replaces the stored version"),
    ):
        command = docs_commands.add_parser(action, help=text)
        command.add_argument("id", type=user_text, help="the document id (`docs list`)")
        command.add_argument("--json", action="store_true")
    jobs = docs_commands.add_parser("jobs", help="ingest and sync jobs and their progress")
    jobs.add_argument("--json", action="store_true")
    cancel = docs_commands.add_parser("cancel", help="stop a running job after the item under way")
    cancel.add_argument("job", type=user_text, help="the job id (`docs jobs`)")


def _add_sync_commands(commands: Any) -> None:
    """`sync obsidian|git`: the knowledge sources read incrementally (docs/knowledge.md)."""
    sync = commands.add_parser(
        "sync", help="read your Obsidian vault or your repositories' commits into memory"
    )
    sources = sync.add_subparsers(dest="sync_command", metavar="SOURCE", required=True)
    vault = sources.add_parser("obsidian", help="the vault of obsidian.vault: changed notes, links and tags")
    git = sources.add_parser(
        "git", help="the commit history of session.git_repos (backfill, then new commits)"
    )
    for source in (vault, git):  # each sync is a job: `docs jobs` lists it, `docs cancel` stops it
        source.add_argument("--json", action="store_true", help="print the report as one JSON object")
        source.add_argument("--resume", action="store_true", help="only finish a sync a crash cut short")


def _add_truth_commands(commands: Any) -> None:
    """`prompt`, `facts`, `session` and `review`: what Daemon believes and shows the model."""
    prompt = commands.add_parser("prompt", help="the prompt a message would get (no model call, no storing)")
    prompt.add_argument("text", type=message_arg)
    budget_help = "token budget (default: from the config and the model)"
    prompt.add_argument("--budget", type=count_arg(1, 10_000_000), help=budget_help)
    session_help = "assemble as part of this session (its recent turns)"
    prompt.add_argument("--session", type=session_arg, help=session_help)
    prompt.add_argument("--json", action="store_true", help="print one JSON object")
    prompt.add_argument("--explain", action="store_true", help="why each section and item is there")

    facts = commands.add_parser("facts", help="what Daemon holds as true, with corrections kept as history")
    facts_commands = facts.add_subparsers(dest="facts_command", metavar="ACTION", required=True)
    facts_list = facts_commands.add_parser("list", help="list current and superseded facts")
    facts_list.add_argument("--status", choices=["current", "superseded"], help="only facts with this status")
    facts_list.add_argument("--json", action="store_true", help="print one JSON object")

    session = commands.add_parser("session", help="session-end processing (summaries, facts, reflection)")
    session_commands = session.add_subparsers(dest="session_command", metavar="ACTION", required=True)
    end = session_commands.add_parser("end", help="run or resume the session-end steps for a session")
    end.add_argument("--session", type=session_arg, help="the session id (default: the most recent session)")
    end.add_argument("--json", action="store_true", help="print one JSON object")

    review = commands.add_parser("review", help="duplicates and contradictions proposed at session end")
    review_commands = review.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    review_list = review_commands.add_parser("list", help="open proposals with their records")
    review_list.add_argument("--json", action="store_true", help="print one JSON object")
    approve = review_commands.add_parser("approve", help="keep one record and hide the others (undoable)")
    approve.add_argument("item", type=user_text)
    approve.add_argument("--keep", type=user_text, help="the record to keep (default: the newest)")
    for action, text in (("dismiss", "leave the records as they are"), ("undo", "revert a decision")):
        review_commands.add_parser(action, help=text).add_argument("item", type=user_text)
    purge = review_commands.add_parser("purge", help="remove the text of records you hid, for good")
    purge.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")
