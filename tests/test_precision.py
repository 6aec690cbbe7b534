"""`dtype: auto` (rqrag/precision.py): bfloat16 where the hardware computes it, float32 where a CPU would emulate it;
the shipped decoding and serving configs ask for it, and a model loaded with it is in the dtype this machine gets."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import yaml

from rqrag.precision import auto_dtype, cpu_computes_bf16, resolve_dtype


REPO = Path(__file__).resolve().parent.parent


def test_auto_is_bfloat16_only_where_the_hardware_computes_it():
    assert auto_dtype(on_gpu=True, cpu_has_bf16=False) == "bfloat16"
    assert auto_dtype(on_gpu=False, cpu_has_bf16=True) == "bfloat16"
    assert auto_dtype(on_gpu=False, cpu_has_bf16=False) == "float32"


def test_explicit_dtypes_are_kept_and_unset_is_float32():
    assert resolve_dtype(None) == "float32"
    assert resolve_dtype("bfloat16", on_gpu=False, cpu_has_bf16=False) == "bfloat16"  # the user's choice stands
    assert resolve_dtype("float16", on_gpu=True) == "float16"
    assert resolve_dtype("auto", on_gpu=False, cpu_has_bf16=False) == "float32"
    assert resolve_dtype("auto", on_gpu=False, cpu_has_bf16=True) == "bfloat16"


@pytest.mark.parametrize("config", ["configs/decode/rqrag_trained.yaml", "configs/serve/default.yaml"])
def test_the_shipped_cpu_configs_ask_for_auto(config):
    assert yaml.safe_load((REPO / config).read_text())["dtype"] == "auto"


@pytest.mark.slow
def test_a_model_loaded_with_auto_is_in_this_machines_dtype():
    from rqrag.inference.backends.hf import HFGenerator
    from rqrag.models import DEFAULT_MODEL, resolve_model

    generator = HFGenerator.from_pretrained(resolve_model(DEFAULT_MODEL), dtype="auto")
    expected = torch.bfloat16 if torch.cuda.is_available() or cpu_computes_bf16() else torch.float32
    assert next(generator.model.parameters()).dtype == expected
