"""Tools: the catalog of every tool (available, or with the reason it is not), the guards every agent and
`tool run` apply, and the runtime of the configured MCP servers."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from app.builders.memory import build_knowledge, open_journal, open_memory, open_review, open_skills
from app.builders.visual import build_image_recall

if TYPE_CHECKING:
    from core.agent.factory import AgentGuards
    from core.config import AppConfig
    from core.mcp_client.runtime import McpRuntime
    from core.nlp import SpacyPipeline
    from core.ports import FactPort, ImageFinder, MemoryBrowser
    from core.providers.base import ChatProvider
    from core.tools.base import Tool
    from core.tools.catalog import ToolCatalog, UnavailableTool
    from core.tools.skill_tools import SkillSteps
    from memory.notes import NoteStore
    from memory.service import MemoryService
    from memory.tasks import TaskStore


def build_tool_catalog(
    config: AppConfig,
    env: Mapping[str, str],
    *,
    memory: MemoryBrowser | None = None,
    facts: FactPort | None = None,
    nlp: SpacyPipeline | None = None,
    side: ChatProvider | None = None,
    stores_unavailable: str | None = None,
    images: ImageFinder | None = None,
    mcp: McpRuntime | None = None,
    tasks: TaskStore | None = None,
    notes: NoteStore | None = None,
    skills: SkillSteps | None = None,
) -> ToolCatalog:
    """Every tool Daemon knows, available or with the reason it is not: the built-in ones (config-level
    timeout and retries), the store tools over `memory` and `facts` (left out without `memory`; listed as
    unavailable when `stores_unavailable` says why), the reminder tools over `tasks`, the notebook's over
    `notes`, web search and
    Wolfram|Alpha, Python execution, and the tools of the configured MCP servers (started through `mcp`,
    which the caller closes)."""
    from dataclasses import replace

    from core.tools.builtin import builtin_tools
    from core.tools.catalog import ToolCatalog, UnavailableTool
    from core.tools.code_exec.tool import code_tools
    from core.tools.store_tools import MEMORY_TOOL_NAMES, store_tools
    from core.tools.web.factory import web_tools

    agent, tools = config.agent, config.tools
    entries: list[Tool | UnavailableTool] = [
        replace(t, timeout_s=agent.tool_timeout_s, retries=agent.tool_retries) for t in builtin_tools()
    ]
    if memory is not None:
        entries += store_tools(memory, facts, tools.git_stats, config.session.git_repos, images=images)
    elif stores_unavailable is not None:
        about = "A tool over your memory."
        entries += [UnavailableTool(n, about, stores_unavailable) for n in sorted(MEMORY_TOOL_NAMES)]
    if tasks is not None:
        from app.builders.tasks import now_in
        from core.tools.task_tools import task_tools

        entries += task_tools(tasks, now_in(tasks))
    if notes is not None:
        from core.tools.note_tools import note_tools

        entries += note_tools(notes)
    if skills is not None:
        from core.tools.skill_tools import skill_tool

        entries.append(skill_tool(skills))
    entries += web_tools(tools, env, config.data_dir, nlp=nlp, side_model=side)
    entries += code_tools(tools.execute_python, env)
    if mcp is not None and config.mcp_servers:
        from core.mcp_client.tools import mcp_tools

        entries += mcp_tools(config.mcp_servers, mcp, env)
    return ToolCatalog.of(entries)


def open_mcp_runtime(config: AppConfig, stack: ExitStack) -> McpRuntime | None:
    """The runtime that holds the configured MCP servers' sessions (none configured: None); closing the
    stack stops their processes."""
    if not config.mcp_servers:
        return None
    from core.mcp_client.runtime import McpRuntime

    runtime = McpRuntime()
    stack.callback(runtime.close)
    return runtime


def build_tool_policy(config: AppConfig, judge: ChatProvider | None = None) -> AgentGuards:
    """The guards every agent and `tool run` apply: per-tool budgets (`tools.max_calls_per_turn`, else
    `agent.max_rounds`), which tools stay on this machine (the exfiltration guard skips them), which read
    memory and which search the web (the gate prefers memory while the user recalls), and the gate's judge."""
    from core.agent.call_guard import ToolPolicy
    from core.agent.factory import AgentGuards
    from core.tools.background_tools import BACKGROUND_TOOL_NAMES
    from core.tools.builtin import BUILTIN_NAMES
    from core.tools.note_tools import NOTE_READING_TOOLS, NOTE_TOOL_NAMES
    from core.tools.store_tools import LOCAL_TOOL_NAMES, MEMORY_TOOL_NAMES
    from core.tools.task_tools import TASK_TOOL_NAMES
    from core.tools.web.factory import WEB_TOOL_NAMES

    policy = ToolPolicy(
        budgets=dict(config.tools.max_calls_per_turn),
        default_budget=config.agent.max_rounds,
        local_tools=LOCAL_TOOL_NAMES
        | BUILTIN_NAMES
        | TASK_TOOL_NAMES
        | NOTE_TOOL_NAMES
        | BACKGROUND_TOOL_NAMES
        | {"use_skill"},
        memory_tools=MEMORY_TOOL_NAMES | NOTE_READING_TOOLS,
        web_tools=WEB_TOOL_NAMES,
    )
    return AgentGuards(policy, judge, config.context.refine_timeout_s)


def open_tool_stores(config: AppConfig, stack: ExitStack) -> dict[str, Any]:
    """The memory and fact stores the store tools read, for `tool`: opened under the data dir's lock (the
    embedding model loads only if a search needs it), or why they cannot be."""
    from core.data_dir import prepare_data_dir
    from core.errors import StorageError
    from memory.embeddings import MiniLMEmbedder
    from memory.facts.service import open_fact_memory
    from memory.lock import DataDirLock

    prepare_data_dir(config.data_dir)
    try:
        stack.callback(DataDirLock(config.data_dir).close)
    except StorageError as error:  # the GUI or a chat holds the folder: the light tools still work
        return {"stores_unavailable": f"the data folder is in use ({error})"}
    journal = open_journal(config, stack)
    review = open_review(config, stack)
    memory, port = open_memory(config, journal, MiniLMEmbedder(threads=1), review, stack)
    facts, close_facts = open_fact_memory(config.data_dir, memory)
    stack.callback(close_facts)
    images = build_image_recall(config, memory, build_knowledge(config))
    notes = open_notebook(config, memory, stack)
    return {
        "memory": port,
        "facts": facts,
        "images": images,
        "notes": notes,
        "skills": open_skills(config, None),
    }


def open_notebook(config: AppConfig, memory: MemoryService, stack: ExitStack) -> NoteStore:
    """`notes.sqlite3` in the data dir, indexing into `memory`; closed with `stack`."""
    from memory.notes import NOTES_FILE, NoteStore

    notes = NoteStore(config.data_dir / NOTES_FILE, memory)
    stack.callback(notes.close)
    return notes
