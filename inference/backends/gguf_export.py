"""A Llama-architecture checkpoint folder as a GGUF file, so llama.cpp runs the trained RQ-RAG models.

The trained models are LoRA adapters that also add the RQ-RAG special tokens (`[S_Decomposed_Query]`, `[EOS]`, ...):
a GGUF LoRA cannot grow the vocabulary, so the adapter is merged first (`rqrag.adapters.materialize_adapter`, the
same merged folder the hf and vLLM backends load) and that folder is written here as one GGUF file with every token:

    path = gguf_for_checkpoint(resolve_model("rqrag-smollm2-135m-selftrain"))   # <merged folder>/model-f16.gguf

Written with the `gguf` package (llama.cpp's own writer): tensor names by its `TensorNameMap`, the tokenizer's
tokens, types and merges from `tokenizer.json` (`SpecialVocab` for bos/eos/pad and the chat template). Two things
llama.cpp expects differently from transformers, both facts of the format: q and k projections are stored with
each head's rotary halves interleaved (transformers keeps them as two halves), and 1-D norm weights stay float32
while matrices are float16. The file is written once beside the checkpoint, under a lock, and appears only when
complete; `--backend llamacpp` then reads token ids in and out, so llama.cpp's own text tokeniser is never used.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path


logger = logging.getLogger(__name__)

GGUF_NAME = "model-f16.gguf"
SUPPORTED = ("LlamaForCausalLM",)


class GGUFExportError(ValueError):
    """The folder is not a checkpoint this exporter writes (another architecture, no tokenizer.json)."""


def interleave_rotary(weight, heads: int):
    """transformers' [first half | second half] per head -> llama.cpp's pairs (the inverse of the usual HF
    conversion of Meta's checkpoints): rows of each head re-ordered as (half, index) -> (index, half)."""
    rows = weight.shape[0]
    return weight.reshape(heads, 2, rows // heads // 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)


def _tokens(folder: Path, vocab_size: int):
    """(tokens by id, their GGUF token types): the BPE vocabulary, then the added tokens (special ones as CONTROL),
    padded to the model's embedding rows."""
    import gguf

    data = json.loads((folder / "tokenizer.json").read_text())
    if data["model"].get("type") != "BPE":
        raise GGUFExportError(
            f"{folder}: only byte-level BPE tokenizers are written (got {data['model'].get('type')})"
        )
    by_id: dict[int, tuple[str, int]] = {i: (t, gguf.TokenType.NORMAL) for t, i in data["model"]["vocab"].items()}
    for added in data.get("added_tokens", []):
        kind = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
        by_id[added["id"]] = (added["content"], kind)
    tokens, types = [], []
    for i in range(vocab_size):
        text, kind = by_id.get(i, (f"[PAD{i}]", gguf.TokenType.UNUSED))
        tokens.append(text)
        types.append(kind)
    return tokens, types


def write_gguf(folder: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Write the checkpoint in `folder` (config.json, model.safetensors, tokenizer.json) to `out` as float16 GGUF."""
    import gguf
    import numpy as np
    from safetensors.numpy import load_file

    folder, out = Path(folder), Path(out)
    config = json.loads((folder / "config.json").read_text())
    if not set(config.get("architectures", [])) & set(SUPPORTED):
        raise GGUFExportError(f"{folder}: {config.get('architectures')} is not one of {SUPPORTED}")
    heads, kv_heads, layers = config["num_attention_heads"], config["num_key_value_heads"], config["num_hidden_layers"]
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    rope = (config.get("rope_parameters") or {}).get("rope_theta") or config.get("rope_theta", 10000.0)

    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name(config.get("_model_name_or_path") or folder.name)
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_block_count(layers)
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(float(rope))
    writer.add_layer_norm_rms_eps(float(config["rms_norm_eps"]))
    writer.add_vocab_size(config["vocab_size"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens, types = _tokens(folder, config["vocab_size"])
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm" if "smollm" in json.dumps(config).lower() else "default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_add_bos_token(False)
    gguf.SpecialVocab(folder, load_merges=True, n_vocab=len(tokens)).add_to_gguf(writer)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, layers)
    tensors = load_file(str(folder / "model.safetensors"))
    for hf_name in sorted(tensors):
        if hf_name == "lm_head.weight" and config.get("tie_word_embeddings"):
            continue  # llama.cpp reads the output layer from token_embd when there is none
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            raise GGUFExportError(f"{folder}: no GGUF name for tensor {hf_name}")
        weight = tensors[hf_name].astype(np.float32)
        if hf_name.endswith("self_attn.q_proj.weight"):
            weight = interleave_rotary(weight, heads)
        elif hf_name.endswith("self_attn.k_proj.weight"):
            weight = interleave_rotary(weight, kv_heads)
        writer.add_tensor(name, weight if weight.ndim == 1 else weight.astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file(progress=False)
    writer.close()
    return out


def gguf_for_checkpoint(folder: str | os.PathLike) -> Path:
    """`folder`'s GGUF file (GGUF_NAME inside it), written once under a file lock and renamed into place."""
    from filelock import FileLock

    folder = Path(folder)
    target = folder / GGUF_NAME
    if target.is_file():
        return target
    with FileLock(str(target) + ".lock"):
        if target.is_file():
            return target
        handle, tmp = tempfile.mkstemp(prefix=".model-", suffix=".gguf.part", dir=folder)
        os.close(handle)
        try:
            write_gguf(folder, tmp)
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
    logger.info("wrote %s for llama.cpp", target)
    return target
