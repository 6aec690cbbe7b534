"""Assemble a `TreeDecoder` from a `DecodeConfig`: model, generation backend and retriever.

Every entry point that answers questions (`rqrag ask`, the evaluator, the server) goes through here, so
they all load the same things the same way.
"""

from __future__ import annotations

import logging
from pathlib import Path

from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.inference.decoding.decoder import TreeDecoder


logger = logging.getLogger(__name__)


def build_generator(config: DecodeConfig):
    """(generator, tokenizer) for `config.backend`; the model folder is resolved once (materialised if needed)."""
    from rqrag.models import PACKAGED_MODELS, load_tokenizer, resolve_model

    if config.backend == "llamacpp":
        from rqrag.inference.backends.llamacpp import LlamaCppEngine, LlamaCppGenerator

        gguf = gguf_file_for(config.model_to_load)
        engine = LlamaCppEngine(gguf, n_ctx=4096, parallel=min(4, config.max_batch_size))
        if config.model_to_load in PACKAGED_MODELS or (gguf.parent / "tokenizer.json").is_file():
            # its tokenizer as the hf backend loads it (chat template set; a trained model's with its RQ-RAG tokens)
            tokenizer = load_tokenizer(resolve_model(config.model_to_load))
        else:
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        return LlamaCppGenerator(engine, tokenizer, seed=config.seed), tokenizer
    path = resolve_model(config.model_to_load)
    if config.backend == "chat":  # any chat LLM; the local tokenizer only measures prompts and keys identical work
        from rqrag.inference.backends.chat_endpoint import chat_generator

        return chat_generator(config), load_tokenizer(path)
    if config.backend == "remote":
        import os

        from transformers import AutoConfig

        from rqrag.inference.backends.remote import RemoteGenerator

        max_context = config.remote_max_context or getattr(
            AutoConfig.from_pretrained(path), "max_position_embeddings", 4096
        )
        generator = RemoteGenerator(
            config.remote_base_url,
            config.remote_model or config.model,
            api_key=os.environ.get(config.remote_api_key_env) or "not-needed",
            max_context=max_context,
        )
        return generator, load_tokenizer(path)
    if config.backend == "vllm":
        from rqrag.inference.backends.vllm_engine import VLLMGenerator

        return VLLMGenerator(path, seed=config.seed, dtype=config.dtype), load_tokenizer(path)
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.inference.backends.prefix_cache import PrefixCache

    prefix_cache = PrefixCache(config.prefix_cache_tokens) if config.prefix_cache_tokens > 0 else None
    generator = HFGenerator.from_pretrained(
        path, dtype=config.dtype, max_batch_size=config.max_batch_size, seed=config.seed, prefix_cache=prefix_cache
    )
    return generator, generator.tokenizer


def gguf_file_for(model: str):
    """The GGUF file llama.cpp runs for `model`: a packaged base model's own file, a reader model's joined file
    (`rqrag.gguf_files`), a .gguf path, or for a trained model (an adapter, merged as for the hf backend, or a full
    checkpoint folder) a float16 GGUF written once beside its merged weights (`rqrag.inference.backends.gguf_export`)."""

    from rqrag.gguf_files import SPLIT_MODELS, gguf_path
    from rqrag.inference.backends.gguf_export import GGUFExportError, gguf_for_checkpoint
    from rqrag.models import PACKAGED_MODELS, materialized_dir, resolve_model
    from rqrag.models import _packaged_gguf_path as packaged

    if model in PACKAGED_MODELS:
        return packaged(PACKAGED_MODELS[model], materialized_dir(model).parent)
    if model in SPLIT_MODELS or str(model).endswith(".gguf"):
        return gguf_path(model)
    folder = Path(resolve_model(model))
    if not (folder / "config.json").is_file():
        raise ValueError(
            f"--backend llamacpp runs GGUF files: {model!r} is neither a packaged model ({', '.join(PACKAGED_MODELS)}), "
            f"a reader model ({', '.join(SPLIT_MODELS)}), a trained model folder nor a .gguf path"
        )
    try:
        return gguf_for_checkpoint(folder)
    except GGUFExportError as error:
        raise ValueError(f"--backend llamacpp: {error}") from error


def open_index_library(config: DecodeConfig):
    """The document library `--index` names (`rqrag docs add`), or None when it names a plain corpus index or
    none. A library's hits carry file and page for citations, and it records its language."""
    if config.retriever != "corpus" or not config.index or config.index_database_url:
        return None
    from rqrag.ingest.libraries import open_library
    from rqrag.ingest.library import CATALOG_FILE, library_path

    return open_library(config.index) if (library_path(config.index) / CATALOG_FILE).is_file() else None


def retriever_for(config: DecodeConfig, records=None):
    """The configured retriever, made by the core's one factory (`rqrag.retrieval.registry.build_retriever`);
    `records` (benchmark records with their own paragraphs) feed a candidates one. A document library named by
    `--index` is searched as itself (its hits carry file and page) and never cached: it changes with each add."""
    from rqrag.retrieval.registry import build_retriever

    retriever_kind = config.retriever
    library = open_index_library(config)
    return build_retriever(
        retriever_kind,
        mode=config.retrieval_mode,
        index=library,
        index_dir=config.index if retriever_kind == "corpus" else None,
        database_url=config.index_database_url if retriever_kind == "corpus" else None,
        candidates_path=config.candidates_file if retriever_kind == "candidates" and records is None else None,
        records=records if retriever_kind == "candidates" else None,
        cache_path=config.retrieval_cache if library is None else None,
    )


def build_decoder(config: DecodeConfig, retriever=None) -> TreeDecoder:
    generator, tokenizer = build_generator(config)
    decoder = TreeDecoder(config, generator, tokenizer, retriever if retriever is not None else retriever_for(config))
    logger.info(
        "tree decoder ready: prompting %s, %s backend, %s retriever",
        decoder.prompting,
        config.backend,
        config.retriever,
    )
    return decoder
