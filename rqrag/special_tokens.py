"""Teach any tokenizer and model the trajectory language's special tokens.

Works for every tokenizer class (fast, slow, the generic `TokenizersBackend` of transformers 5): tokens
are added as atomic, unnormalised special tokens, so `[EOS]` is never split or merged with neighbours.
New embedding rows start at the mean of the existing rows rather than at random: a random row can have a
norm far from the trained ones and dominate the first steps of fine-tuning (Hewitt, 2021), while the
mean is a neutral point. Calling it again adds nothing and leaves the weights untouched.
"""

from __future__ import annotations

import logging

from rqrag.trajectory import SPECIAL_TOKENS
from rqrag.trajectory_render import FALLBACK_CHAT_TEMPLATE


logger = logging.getLogger(__name__)


def missing_special_tokens(tokenizer) -> list[str]:
    vocab = tokenizer.get_vocab()
    return [t for t in SPECIAL_TOKENS if t not in vocab]


def add_special_tokens(tokenizer, model=None) -> int:
    """Add the RQ-RAG tokens to `tokenizer` (and grow `model`'s embeddings to match); returns how many were new."""
    from transformers import AddedToken

    missing = missing_special_tokens(tokenizer)
    if missing:
        new = [AddedToken(t, special=True, normalized=False, lstrip=False, rstrip=False) for t in missing]
        try:  # transformers >= 5 names the list "extra_special_tokens"
            tokenizer.add_special_tokens({"extra_special_tokens": new}, replace_extra_special_tokens=False)
        except TypeError:  # transformers 4.x
            tokenizer.add_special_tokens({"additional_special_tokens": new}, replace_additional_special_tokens=False)
    if getattr(tokenizer, "chat_template", None) is None:
        # A base model (e.g. Llama-2 as in the paper) has no template; give it a plain one so the
        # trajectory is framed the same way in training and inference.
        tokenizer.chat_template = FALLBACK_CHAT_TEMPLATE
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if model is not None:
        new_ids = [tokenizer.convert_tokens_to_ids(t) for t in missing]
        resize_embeddings_mean_init(model, len(tokenizer), new_ids)
    return len(missing)


def resize_embeddings_mean_init(model, vocab_size: int, new_ids: list[int]) -> None:
    """Make room for `vocab_size` tokens and set rows `new_ids` to the mean of all other trained rows.

    Never shrinks: models with a padded vocabulary (rows beyond the tokenizer) keep them, and a new id
    that falls into such a spare row is initialised the same way.
    """
    import torch

    input_emb = model.get_input_embeddings()
    old_rows = input_emb.weight.shape[0]
    if vocab_size > old_rows:
        model.resize_token_embeddings(vocab_size, mean_resizing=False)
    if not new_ids:
        return
    new = set(new_ids)
    keep = [i for i in range(min(old_rows, vocab_size)) if i not in new]
    keep_idx = torch.tensor(keep, dtype=torch.long)
    new_idx = torch.tensor(sorted(new), dtype=torch.long)
    tied = bool(getattr(model.config, "tie_word_embeddings", False))
    with torch.no_grad():
        for emb in _embedding_matrices(model, tied):
            weight = emb.weight
            mean = weight[keep_idx].float().mean(dim=0).to(weight.dtype)
            weight[new_idx] = mean
    logger.info("initialised %d new token rows to the mean embedding (tied=%s)", len(new_ids), tied)


def _embedding_matrices(model, tied: bool) -> list:
    matrices = [model.get_input_embeddings()]
    output = model.get_output_embeddings()
    if output is not None and not tied and output.weight is not matrices[0].weight:
        matrices.append(output)
    return matrices
