"""Keys and values of prompt blocks kept across generate calls: a path's prompt at depth d+1 starts with its prompt at
depth d, and every question's prompt starts with the same chat template, so that much is computed once.

    cache = PrefixCache(max_tokens=16_384, block_tokens=128)
    layers, n = cache.lookup(prompt_ids)      # the cached keys/values of its first n tokens (n a multiple of 128)
    cache.store(prompt_ids[:end], block)      # after computing a full block ending at `end`

A prompt is cut into blocks of `block_tokens` at fixed positions (0-127, 128-255, ...), as vLLM's prefix cache does,
and the hf backend always runs a prompt's prefill block by block. That is what makes reuse exact: a block's keys and
values are computed by the same forward (the same tokens, attending to the same earlier blocks) whether the earlier
blocks came from the cache or were just computed, so a question's tree does not depend on what else was decoded
before it (the scheduler's tests check the same greedy trees whatever the arrival order). Only full blocks are kept;
a prompt's last, partial block is computed each time.

A block is addressed by every token up to its end (causal attention: its keys and values depend on nothing else),
and blocks are evicted least recently used first once more than `max_tokens` are held. On SmolLM2-135M in bfloat16
a token's keys and values take 23 kB over the 30 layers, so the default 16k tokens hold ~370 MB.

What it saves (`scripts/bench_prefix_cache.py`, docs/speed.md): on 2 CPU cores a quarter of the prompt tokens and
no time, because each extra block-sized forward pays a fixed cost; hence `prefix_cache_tokens` is 0 by default.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import torch


Layers = list[tuple[torch.Tensor, torch.Tensor]]  # per layer: keys, values of shape [1, heads, tokens, head_dim]


@dataclass
class PrefixCacheStats:
    lookups: int = 0
    tokens_reused: int = 0  # prompt tokens whose keys and values came from the cache
    blocks_stored: int = 0
    blocks_evicted: int = 0


class PrefixCache:
    def __init__(self, max_tokens: int = 16_384, block_tokens: int = 128):
        if block_tokens < 1 or max_tokens < 0:
            raise ValueError("block_tokens >= 1 and max_tokens >= 0 are required")
        self.max_tokens = max_tokens
        self.block_tokens = block_tokens
        self.stats = PrefixCacheStats()
        self._blocks: OrderedDict[tuple[int, ...], Layers] = OrderedDict()  # prefix up to the block's end -> block

    @property
    def tokens_held(self) -> int:
        return len(self._blocks) * self.block_tokens

    def lookup(self, prompt_ids: Sequence[int]) -> tuple[Layers | None, int]:
        """The keys and values of the longest run of cached blocks that `prompt_ids` starts with, concatenated per
        layer, and how many tokens they cover (None, 0 when its first block is not cached)."""
        self.stats.lookups += 1
        found: list[Layers] = []
        end = self.block_tokens
        while end <= len(prompt_ids):
            key = tuple(prompt_ids[:end])
            block = self._blocks.get(key)
            if block is None:
                break
            self._blocks.move_to_end(key)
            found.append(block)
            end += self.block_tokens
        if not found:
            return None, 0
        covered = len(found) * self.block_tokens
        self.stats.tokens_reused += covered
        if len(found) == 1:
            return found[0], covered
        layers = [
            (torch.cat([b[i][0] for b in found], dim=2), torch.cat([b[i][1] for b in found], dim=2))
            for i in range(len(found[0]))
        ]
        return layers, covered

    def store(self, prefix_ids: Sequence[int], block: Layers) -> None:
        """Keep the block that ends `prefix_ids` (its length a multiple of `block_tokens`)."""
        if len(prefix_ids) % self.block_tokens or not prefix_ids:
            raise ValueError(f"a block ends at a multiple of {self.block_tokens} tokens, not at {len(prefix_ids)}")
        if self.max_tokens < self.block_tokens:
            return
        key = tuple(prefix_ids)
        if key in self._blocks:
            self._blocks.move_to_end(key)
            return
        self._blocks[key] = [(k.clone(), v.clone()) for k, v in block]  # not views of a cache that keeps growing
        self.stats.blocks_stored += 1
        while self.tokens_held > self.max_tokens:
            self._blocks.popitem(last=False)
            self.stats.blocks_evicted += 1
