"""The concerns `DecodeConfig` is made of, one dataclass each: the backend that runs the model, the tree's shape
and sampling, retrieval, how the shown answer is chosen (selection and grounding), and the iterative baselines.

`DecodeConfig` (rqrag.inference.decoding.decode_config) inherits them all, so a field is still `config.field` and a YAML
file still a flat mapping; `@concern` gives each its `--help` group (rqrag.config_loader), and names its `common` fields:
the everyday flags every entry point lists first.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

from rqrag.config_loader import concern, renamed
from rqrag.inference.backends.base import SamplingParams
from rqrag.inference.decoding.select import StrategyName
from rqrag.retrieval.registry import RETRIEVER_KINDS, SEARCH_MODES
from rqrag.trajectory import Action


@concern(
    "backend",
    "the model and where it runs: in process (hf, vllm), a vLLM server (remote) or any chat-completions endpoint "
    "(chat)",
    common=("model", "prompting"),
)
@dataclass
class BackendConfig:
    model: str = field(
        default="rqrag-smollm2-135m-selftrain",
        metadata={
            "help": "rqrag-smollm2-135m-selftrain (the default: the RQ-RAG model after two rounds of self-training, "
            "best on HotpotQA and both Portuguese document sets), rqrag-smollm2-135m (the first trained model; "
            "with --prompting prompted its base is used instead), smollm2-135m-instruct (the plain base), a "
            "training/sft.py output folder, or a hub id (online users)",
        },
    )
    prompting: Literal["auto", "trained", "prompted"] = field(
        default="auto",
        metadata={
            "help": "how the model is asked for each refinement. trained: it emits RQ-RAG special tokens itself; "
            "prompted: a plain instruct model is asked by an instruction; auto: trained if the tokenizer already "
            "has the tokens (--mode is its deprecated former name)",
            **renamed("mode"),
        },
    )
    prompt_format: Literal["auto", "native", "original"] = field(
        default="auto",
        metadata={
            "help": "trained mode: how the model's context is laid out. native: this package's training (the "
            "tokenizer's chat template); original: a model trained by the original RQ-RAG code (github.com/"
            "chanchimin/RQ-RAG, e.g. the released zorowin123/rq_rag_llama2_7B: <|user|> tags, its task system "
            "prompts, stop at [EOS] or </s>); auto: original if the tokenizer has its [S_Response] token"
        },
    )
    backend: Literal["hf", "vllm", "llamacpp", "remote", "chat"] = field(
        default="hf",
        metadata={
            "help": "hf (transformers, in process), vllm (in process), llamacpp (llama.cpp on the model's GGUF file, in "
            "process: a packaged model, a reader model or a .gguf path), remote (an OpenAI-compatible vLLM server, "
            "token ids) or chat (any chat-completions endpoint: hosted APIs, Ollama, llama.cpp, vLLM; prompted "
            "mode only, --model then only names the local tokenizer that measures prompts)"
        },
    )
    remote_base_url: str | None = field(
        default=None, metadata={"help": "remote/chat backend: the server's base URL, e.g. http://gpu-box:8000/v1"}
    )
    remote_model: str | None = field(
        default=None,
        metadata={"help": "remote/chat backend: the model name the server serves (remote default: --model)"},
    )
    remote_api_key_env: str = field(
        default="OPENAI_API_KEY", metadata={"help": "remote/chat backend: env var of its key"}
    )
    remote_max_context: int | None = field(
        default=None,
        metadata={
            "help": "remote/chat backend: the server's context length (default: the model config's; chat: 8192)"
        },
    )
    # chat backend (rqrag.inference.backends.chat_endpoint)
    chat_logprobs: bool = field(
        default=True,
        metadata={
            "help": "chat backend: ask for token logprobs (ppl/confidence selection). false for endpoints without "
            "them: every strategy then selects by answer agreement (rqrag.inference.decoding.select)"
        },
    )
    chat_concurrency: int = field(default=8, metadata={"help": "chat backend: requests in flight at once"})
    chat_timeout: float = field(default=120.0, metadata={"help": "chat backend: seconds per request before a retry"})
    chat_max_retries: int = field(
        default=2, metadata={"help": "chat backend: retries on timeouts, connection errors, 429 and 5xx"}
    )
    dtype: str | None = field(
        default=None,
        metadata={
            "help": "model dtype (default: float32 with hf; with vllm float32 on CPU, auto on GPU); with hf, auto is "
            "bfloat16 where the GPU or CPU computes it and float32 where the CPU would emulate it; what bfloat16 "
            "saves and changes: docs/speed.md"
        },
    )
    max_batch_size: int = field(default=32, metadata={"help": "hf backend: rows decoded together"})
    prefix_cache_tokens: int = field(
        default=0,
        metadata={
            "help": "hf backend: prompt tokens whose keys and values are kept across calls, so a deeper path's prompt "
            "computes only what its parent's did not (0: off, the default: on 2 CPU cores it computes a quarter fewer "
            "prompt tokens but saves no time, docs/speed.md; inference/backends/prefix_cache.py)"
        },
    )

    @property
    def mode(self) -> str:
        """Deprecated: `prompting` under its former name (`mode` means the retrieval mode elsewhere)."""
        warnings.warn("DecodeConfig.mode is deprecated; use DecodeConfig.prompting", DeprecationWarning, stacklevel=2)
        return self.prompting

    @property
    def model_to_load(self) -> str:
        """Prompted mode is for plain instruct models: asked for one of our trained models, it runs their base."""
        from rqrag.models import DEFAULT_MODEL, TRAINED_MODELS

        return DEFAULT_MODEL if self.model in TRAINED_MODELS and self.prompting == "prompted" else self.model


@concern("tree", "the refinement tree's shape, and the sampling of its queries and answers", common=("max_depth",))
@dataclass
class TreeConfig:
    max_depth: int = field(
        default=2,
        metadata={
            "help": "search steps allowed before the answer is forced (paper: 2, or 4 for 2Wiki/MuSiQue)",
        },
    )
    actions: list[str] = field(
        default_factory=lambda: ["rewrite", "decompose", "disambiguate"],
        metadata={"help": "query actions to expand at each depth (the answer action is always available)"},
    )
    width: int = field(default=1, metadata={"help": "samples per query action at each node"})
    answer_at_every_depth: bool = field(
        default=True,
        metadata={"help": "also expand an answer at depths before the last (trajectories of 0..max_depth searches)"},
    )
    max_paths: int = field(
        default=32, metadata={"help": "cap on live paths per question; the lowest-perplexity ones are kept"}
    )
    merge_expansions: bool = field(
        default=True,
        metadata={
            "help": "generate identical expansions (same context, action and sampling parameters; same seed too "
            "when sampling) once and share the completion, e.g. the width samples of a greedy action; the "
            "trajectories are those of the unmerged tree"
        },
    )
    refinement_guards: bool = field(
        default=True,
        metadata={
            "help": "a query that repeats an earlier query of its path, or restates the question once the path or "
            "a sibling searched it, is not searched; one whose hits the path has all read is not extended (the "
            "data filter's tests); the parent's answer stands in for the branch"
        },
    )
    stop_confidence: float | None = field(
        default=None,
        metadata={
            "help": "adaptive expansion: at each depth answer first, and stop a question (no queries at that depth, "
            "no deeper levels) once its best answer's confidence (mean token probability) reaches this; "
            "needs answer_at_every_depth. None: expand every question to max_depth"
        },
    )
    schedule: Literal["batched", "per_action", "sequential"] = field(
        default="batched",
        metadata={
            "help": "batched: one generate call per depth; per_action: one per action per depth (FlashRAG); "
            "sequential: one path at a time (the original code) — the last two exist for benchmarking"
        },
    )
    seed: int = field(default=0, metadata={"help": "base seed; each expansion derives its own from its path id"})
    query_temperature: float = field(default=1.0, metadata={"help": "temperature of refined queries"})
    query_top_p: float = field(default=1.0, metadata={"help": "top-p of refined queries"})
    query_max_tokens: int = field(default=48, metadata={"help": "max new tokens of one query (or IRCoT thought)"})
    answer_temperature: float = field(default=0.0, metadata={"help": "temperature of answers (0 = greedy)"})
    answer_top_p: float = field(default=1.0, metadata={"help": "top-p of answers"})
    answer_max_tokens: int = field(default=48, metadata={"help": "max new tokens of one answer"})

    @property
    def query_actions(self) -> list[Action]:
        return [Action.from_name(a) for a in self.actions]

    def sampling_for(self, action: Action) -> SamplingParams:
        if action is Action.ANSWER:
            return SamplingParams(self.answer_temperature, self.answer_top_p, self.answer_max_tokens)
        return SamplingParams(self.query_temperature, self.query_top_p, self.query_max_tokens)


@concern(
    "retrieval",
    "what is searched, how, and how much of each passage the model reads",
    common=("retriever", "retrieval_mode", "index", "docs_per_search"),
)
@dataclass
class RetrievalConfig:
    retriever: Literal[RETRIEVER_KINDS] = field(
        default="corpus",
        metadata={"help": "corpus (local index), candidates (per-question paragraphs) or web"},
    )
    retrieval_mode: Literal[SEARCH_MODES] = field(
        default="hybrid",
        metadata={"help": "corpus/candidates retrievers: bm25, dense or hybrid (corpus only)"},
    )
    index: str | None = field(default=None, metadata={"help": "corpus index directory (default: the embedded corpus)"})
    index_database_url: str | None = field(
        default=None,
        metadata={"help": "PostgreSQL URL holding the corpus --index names (`rqrag index build --database_url`)"},
    )
    candidates_file: str | None = field(
        default=None,
        metadata={"help": "IRCoT/MuSiQue-format JSONL whose paragraphs the candidates retriever searches"},
    )
    docs_per_search: int = field(default=3, metadata={"help": "documents retrieved per query (paper: 3)"})
    retrieval_cache: str | None = field(default=None, metadata={"help": "SQLite file caching search results"})
    evidence_max_words: int | None = field(
        default=None,
        metadata={
            "help": "cut each retrieved passage to its first N words before the model reads it; 0 keeps whole "
            "passages (the paper). Default: the cut the model was trained with (evidence_max_words in its "
            "folder's resolved_config.yaml, which training/sft.py writes), else 60"
        },
    )


@concern(
    "answer: grounding and selection",
    "which trajectory's answer is shown, and when it is quoted instead",
    common=("answerer",),
)
@dataclass
class SelectionConfig:
    strategy: StrategyName = field(
        default="vote",
        metadata={
            "help": "how the answer is chosen among trajectories (vote: best of six on held-out HotpotQA, docs/models.md)",
        },
    )
    answerer: Literal["model", "extractive", "auto"] = field(
        default="model",
        metadata={
            "help": "model: the tree decoder answers (grounded, see --grounded); extractive: no model at all, the "
            "best sentence of the question's own search is quoted (scripts/eval_document_answers.py compares them); "
            "auto: extractive for a question in a language the model was not trained in (all but English), model "
            "otherwise",
        },
    )
    reader: str = field(
        default="features",
        metadata={
            "help": "who reads the pooled evidence for the answer: features (the logistic span reader, no model); "
            "qwen2.5-0.5b or qwen2.5-1.5b (a language model on llama.cpp writes the short answer and points at the "
            "sentences that state it, or says the library does not hold it; docs/answers.md, 'A reader that is a "
            "language model'); or a path to a .gguf chat model",
        },
    )
    reader_sentences: int = field(
        default=12,
        metadata={
            "help": "a model reader reads this many sentences, the best of the pooled evidence by the feature "
            "reader's sentence score (0: every sentence, capped by its context)",
        },
    )
    reader_own_knowledge: bool = field(
        default=True,
        metadata={
            "help": "when nothing read states the answer, ask the reader model without evidence and show its own "
            "answer first, said to be its own, with no quote and no source (answer_kind unsourced); off: only "
            "'nothing found' (docs/answers.md, 'A reader that is a language model')",
        },
    )
    grounded: bool = field(
        default=True,
        metadata={
            "help": "decide over the whole tree: the verifier's most probable answer, shown as generated when its "
            "calibrated p reaches the verifier's threshold, else the evidence span that answers the question's type, "
            "quoted; --no_grounded shows the strategy's selected answer as written",
        },
    )
    min_confidence: float | None = field(
        default=0.4,
        metadata={
            "help": "show the verifier's best answer as generated from this calibrated p on (0-1), below it a quote "
            "of the evidence; every answer says its p. none: the verifier's own threshold, the lowest p whose "
            "answers are >= 80 %% right on held-back training questions. How often each value is right: "
            "docs/answers.md ('Calibrated, but not sharp')"
        },
    )
    on_topic: bool = field(
        default=True,
        metadata={
            "help": "over a corpus, the web or benchmark candidates (not a user's library, judged before the model): an "
            "answer whose question found nothing close to it (best multilingual e5 cosine with any passage found under "
            "a floor) says nothing found is about it instead of showing the passage (answer_kind not_found; rqrag/answer/on_topic.py); "
            "--no_on_topic shows it",
        },
    )


@concern(
    "baselines", "the iterative baselines: `rqrag eval --systems ircot iter_retgen` (inference/decoding/iterative.py)"
)
@dataclass
class BaselinesConfig:
    ircot_max_steps: int = field(
        default=5,
        metadata={"help": "IRCoT: at most this many thought-then-search steps before the reader answers"},
    )
    iter_retgen_rounds: int = field(
        default=3, metadata={"help": "Iter-RetGen: retrieve-then-answer rounds (FlashRAG's default, 3)"}
    )
