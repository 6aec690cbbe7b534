"""transformers generation backend: batched, prefix-sharing, per-request sampling, logprobs from the same pass.

    from rqrag.inference.backends.hf import HFGenerator
    gen = HFGenerator.from_pretrained(resolve_model(), add_rqrag_tokens=True)
    completions = gen.generate([GenerationRequest(prompt_ids=ids, params=SamplingParams(max_tokens=32))])

On a CPU the cost of RQ-RAG decoding is the prefill of evidence-laden prompts, and siblings in the tree
(every action and sample expanded from one node) share all of their prompt but the last few tokens. So a
batch is processed in three phases:

1. **prefix**: each distinct shared prefix is run once (alone, unpadded) and the caches are stacked;
2. **suffix**: the cache rows are repeated for each request of that prefix and the per-request suffixes
   (e.g. the forced action token) are run in one padded forward;
3. **decode**: one token per step for all live requests, each with its own temperature / top-p / seed /
   stop tokens / max tokens. Finished rows are dropped from the batch and the cache, so short answers do
   not pay for long queries. The log-probability of each emitted token is read from the same logits
   (raw distribution, before temperature), so scoring needs no second pass.

`generate`'s own `GenerationConfig` is one per call, which is why this runs its own small loop. `between_steps`,
when set, is called after every decode step with the call's start (a `time.perf_counter()` reading), on the calling
thread: the server's scheduler uses it to decode the questions a long call holds up in between
(`rqrag.serve.tree_scheduler`); all of a call's state is local, so a `generate` nested in it is safe.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from rqrag.inference.backends.base import TERMINATED, Completion, GenerationRequest, GeneratorStats
from rqrag.inference.backends.prefix_cache import PrefixCache
from rqrag.precision import resolve_dtype


logger = logging.getLogger(__name__)


@dataclass
class _Row:
    """Decoding state of one request inside a chunk."""

    index: int  # position in the caller's request list
    request: GenerationRequest
    generator: torch.Generator | None
    token_ids: list[int]
    logprobs: list[float]
    finish_reason: str | None = None


class HFGenerator:
    """The `Generator` protocol over a transformers causal LM (CPU by default)."""

    def __init__(
        self,
        model,
        tokenizer,
        *,
        max_batch_size: int = 32,
        prefix_sharing: bool = True,
        seed: int = 0,
        prefix_cache: PrefixCache | None = None,
    ):
        self.model = model.eval()
        # Keys and values of prompt blocks kept across calls (`prefix_cache.py`): a deeper path's prompt starts with
        # its parent's. None: each call computes its prefixes whole, in one forward each.
        self.prefix_cache = prefix_cache
        self.tokenizer = tokenizer
        self.max_batch_size = max_batch_size
        self.prefix_sharing = prefix_sharing
        self.seed = seed
        self.stats = GeneratorStats()
        self.between_steps: Callable[[float], None] | None = None  # told the call's start; see the module's docstring
        self._call_started = 0.0  # when the generate call now running began (a nested one keeps its own)
        self.timings = {"prefill": 0.0, "decode": 0.0, "decode_steps": 0}
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        eos = model.generation_config.eos_token_id if model.generation_config is not None else None
        eos = eos if eos is not None else tokenizer.eos_token_id
        self.eos_ids = frozenset(eos if isinstance(eos, list) else [eos]) - {None}

    @classmethod
    def from_pretrained(cls, path: str, *, dtype: str | None = None, add_rqrag_tokens: bool = False, **kwargs):
        """dtype None means float32: CPU kernels are float32-first, and it is the reference numerics of the tests;
        "auto" is bfloat16 where this machine computes it, else float32 (rqrag/precision.py)."""
        from rqrag.models import load_model_and_tokenizer

        model, tokenizer = load_model_and_tokenizer(
            path, dtype=resolve_dtype(dtype), add_rqrag_tokens=add_rqrag_tokens
        )
        return cls(model, tokenizer, **kwargs)

    @property
    def max_context(self) -> int:
        return int(getattr(self.model.config, "max_position_embeddings", 2048))

    # ------------------------------------------------------------------------------------------ API

    @torch.inference_mode()
    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.stats.model_calls += 1
        self.stats.requests += len(requests)
        self.stats.batch_sizes.append(len(requests))
        for r in requests:
            if len(r.prompt_ids) + r.params.max_tokens > self.max_context:
                raise ValueError(
                    f"prompt of {len(r.prompt_ids)} tokens + {r.params.max_tokens} new tokens exceeds the "
                    f"context window of {self.max_context}"
                )
        results: list[Completion | None] = [None] * len(requests)
        interrupted, self._call_started = self._call_started, time.perf_counter()
        try:
            for chunk in self._chunks(requests):
                for row in self._run_chunk(chunk):
                    results[row.index] = self._completion(row)
        finally:
            self._call_started = interrupted
        return results  # type: ignore[return-value]

    # ------------------------------------------------------------------------------------ internals

    def _prefix_len(self, request: GenerationRequest) -> int:
        """How many leading tokens to share; at least one token is always left for the suffix phase."""
        if not self.prefix_sharing:
            return 0
        n = request.shared_prefix_len if request.shared_prefix_len is not None else len(request.prompt_ids) - 1
        return max(0, min(n, len(request.prompt_ids) - 1))

    def _chunks(self, requests: Sequence[GenerationRequest]) -> list[list[tuple[int, GenerationRequest]]]:
        """Split into chunks of at most `max_batch_size` rows, keeping requests of one prefix together
        (and sorting by length so that padding stays small)."""
        groups: dict[tuple[int, ...], list[tuple[int, GenerationRequest]]] = {}
        for i, r in enumerate(requests):
            groups.setdefault(tuple(r.prompt_ids[: self._prefix_len(r)]), []).append((i, r))
        ordered = sorted(groups.values(), key=lambda g: len(g[0][1].prompt_ids))
        chunks: list[list[tuple[int, GenerationRequest]]] = [[]]
        for group in ordered:
            for item in group:
                if len(chunks[-1]) >= self.max_batch_size:
                    chunks.append([])
                chunks[-1].append(item)
        return [c for c in chunks if c]

    def _forward(self, input_ids, attention_mask, position_ids, cache):
        out = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=cache,
            use_cache=True,
            # Only the last position's logits are ever read: skip the LM head (49k-wide on SmolLM2) on
            # every other prompt token.
            logits_to_keep=1,
        )
        return out.logits[:, -1, :], out.past_key_values

    def _run_chunk(self, chunk: list[tuple[int, GenerationRequest]]) -> list[_Row]:
        from rqrag.inference.backends.kv_cache import growable_cache

        started = time.perf_counter()
        device = self.model.device
        prefixes: dict[tuple[int, ...], int] = {}
        row_prefix: list[int] = []
        for _, r in chunk:
            key = tuple(r.prompt_ids[: self._prefix_len(r)])
            row_prefix.append(prefixes.setdefault(key, len(prefixes)))
        unique = list(prefixes)

        # Phase 1: every distinct non-empty prefix once. Each runs alone (no padding: prefixes differ by
        # hundreds of tokens, and padded rows cost as much as real ones), then the caches are stacked
        # right-aligned, i.e. left-padded, with the padding masked out.
        cache = growable_cache()
        width = max(len(p) for p in unique)
        if width > 0:
            mask = torch.zeros((len(unique), width), dtype=torch.long)
            stacked: list[tuple[torch.Tensor, torch.Tensor]] | None = None
            reused_tokens = 0
            for i, p in enumerate(unique):
                if not p:
                    continue
                mask[i, width - len(p) :] = 1
                single, reused = self._prefill(p)
                reused_tokens += reused
                if stacked is None:
                    stacked = [
                        (
                            layer.keys.new_zeros((len(unique), *layer.keys.shape[1:2], width, layer.keys.shape[-1])),
                            layer.values.new_zeros(
                                (len(unique), *layer.values.shape[1:2], width, layer.values.shape[-1])
                            ),
                        )
                        for layer in single.layers
                    ]
                for (keys, values), layer in zip(stacked, single.layers):
                    keys[i, :, width - len(p) :] = layer.keys[0]
                    values[i, :, width - len(p) :] = layer.values[0]
            for layer_idx, (keys, values) in enumerate(stacked):
                cache.update(keys, values, layer_idx)
            self.stats.prompt_tokens_computed += sum(len(p) for p in unique) - reused_tokens
            index = torch.tensor(row_prefix, dtype=torch.long, device=device)
            cache.reorder_cache(index)  # repeat each prefix's keys/values for each of its requests
            mask = mask[index.cpu()]
        else:
            mask = torch.zeros((len(chunk), 0), dtype=torch.long)

        # Phase 2: the per-request suffixes, left-padded inside their own block.
        suffixes = [r.prompt_ids[len(unique[g]) :] for (_, r), g in zip(chunk, row_prefix)]
        s_width = max(len(s) for s in suffixes)
        s_ids = torch.full((len(chunk), s_width), self.pad_id, dtype=torch.long)
        s_mask = torch.zeros((len(chunk), s_width), dtype=torch.long)
        for i, s in enumerate(suffixes):
            s_ids[i, s_width - len(s) :] = torch.tensor(s)
            s_mask[i, s_width - len(s) :] = 1
        mask = torch.cat([mask, s_mask], dim=1)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -s_width:]
        logits, cache = self._forward(s_ids.to(device), mask.to(device), positions.to(device), cache)
        self.stats.prompt_tokens_computed += sum(len(s) for s in suffixes)
        self.stats.prompt_tokens += sum(len(r.prompt_ids) for _, r in chunk)

        self.timings["prefill"] += time.perf_counter() - started
        rows = [_Row(i, r, self._rng(r), [], []) for i, r in chunk]
        started = time.perf_counter()
        done = self._decode(rows, logits, cache, mask.to(device))
        self.timings["decode"] += time.perf_counter() - started
        return done

    def _prefill(self, prompt: tuple[int, ...]):
        """A cache holding the keys and values of `prompt`, and how many of its tokens came from the prefix cache.
        With a prefix cache the prompt runs block by block at the cache's fixed block boundaries (so a block is the
        same whether it was reused or computed: see `prefix_cache.py`), and each full block computed is kept."""
        from rqrag.inference.backends.kv_cache import growable_cache

        device = self.model.device
        cache = growable_cache()
        if self.prefix_cache is None:
            _, cache = self._forward(
                torch.tensor([prompt], device=device), None, self._positions(0, len(prompt)), cache
            )
            return cache, 0
        block = self.prefix_cache.block_tokens
        reused_layers, reused = self.prefix_cache.lookup(prompt)
        done = reused
        if reused_layers is not None:
            for layer_idx, (keys, values) in enumerate(reused_layers):
                cache.update(keys.to(device), values.to(device), layer_idx)
        while done < len(prompt):
            end = min(len(prompt), (done // block + 1) * block)
            ids = torch.tensor([prompt[done:end]], device=device)
            _, cache = self._forward(ids, None, self._positions(done, end), cache)
            if end % block == 0:
                self.prefix_cache.store(
                    prompt[:end],
                    [(layer.keys[:, :, done:end], layer.values[:, :, done:end]) for layer in cache.layers],
                )
            done = end
        return cache, reused

    def _positions(self, start: int, end: int) -> torch.Tensor:
        return torch.arange(start, end, device=self.model.device)[None]

    def _rng(self, request: GenerationRequest) -> torch.Generator | None:
        if request.params.greedy:
            return None
        # Per-request generators make sampling independent of how requests are batched.
        g = torch.Generator(device="cpu")
        g.manual_seed(self.seed if request.seed is None else request.seed)
        return g

    def _decode(self, rows: list[_Row], logits: torch.Tensor, cache, mask: torch.Tensor) -> list[_Row]:
        live = list(range(len(rows)))  # indices into `rows` of the rows still in the batch
        done: list[_Row] = []
        while live:
            raw = torch.log_softmax(logits.float(), dim=-1)
            next_tokens: list[int] = []
            keep: list[int] = []
            for b, row_i in enumerate(live):
                row = rows[row_i]
                token = self._pick(raw[b], row)
                row.token_ids.append(token)
                row.logprobs.append(float(raw[b, token]))
                if token in row.request.stop_token_ids:
                    row.finish_reason = "stop"
                elif token in self.eos_ids:
                    row.finish_reason = "eos"
                elif len(row.token_ids) >= row.request.params.max_tokens:
                    row.finish_reason = "length"
                if row.finish_reason is None:
                    keep.append(b)
                    next_tokens.append(token)
                else:
                    done.append(row)
            self.stats.generated_tokens += len(live)
            self.timings["decode_steps"] += 1
            if not keep:
                break
            if self.between_steps is not None:
                self.between_steps(self._call_started)
            if len(keep) < len(live):  # drop finished rows from the batch and the cache
                index = torch.tensor(keep, dtype=torch.long, device=mask.device)
                cache.reorder_cache(index)
                mask = mask[index]
            live = [live[b] for b in keep]
            mask = torch.cat([mask, torch.ones((len(live), 1), dtype=mask.dtype, device=mask.device)], dim=1)
            positions = mask.sum(-1, keepdim=True) - 1
            ids = torch.tensor(next_tokens, dtype=torch.long, device=mask.device).unsqueeze(1)
            logits, cache = self._forward(ids, mask, positions, cache)
        return done

    def _pick(self, raw_logprobs: torch.Tensor, row: _Row) -> int:
        params = row.request.params
        if len(row.token_ids) < params.min_tokens:
            banned = [*row.request.stop_token_ids, *self.eos_ids]
            raw_logprobs = raw_logprobs.clone()
            raw_logprobs[banned] = -torch.inf  # only for choosing; the recorded logprob stays raw
        if params.greedy:
            return int(raw_logprobs.argmax())
        probs = torch.softmax(raw_logprobs / params.temperature, dim=-1)
        if params.top_p < 1.0:
            sorted_probs, order = probs.sort(descending=True)
            # Keep the smallest set whose mass reaches top_p (the first token is always kept).
            cut = (sorted_probs.cumsum(-1) - sorted_probs) >= params.top_p
            sorted_probs[cut] = 0.0
            probs = torch.zeros_like(probs).scatter_(0, order, sorted_probs)
        # The per-request generator lives on the CPU (seeded samples are the same on every device), and
        # multinomial wants its probabilities on the generator's device: one vocabulary row a token, cheap.
        return int(torch.multinomial(probs.float().cpu(), 1, generator=row.generator))

    def _completion(self, row: _Row) -> Completion:
        ids = row.token_ids
        # The terminating token stays in token_ids (so scores include it) but not in the text.
        shown = ids[:-1] if row.finish_reason in TERMINATED else ids
        text = self.tokenizer.decode(shown, skip_special_tokens=False)
        return Completion(
            text=text, token_ids=tuple(ids), logprobs=tuple(row.logprobs), finish_reason=row.finish_reason
        )
