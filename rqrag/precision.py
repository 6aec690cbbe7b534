"""Which float type a model runs in on this machine: `dtype: auto` is bfloat16 where the hardware computes it, float32
where it would only emulate it.

bfloat16 halves the weights and, on a CPU with bf16 arithmetic (AVX512-BF16 or AMX tiles) or a GPU, decodes the
shipped model 1.2-1.5x faster than float32 with answers level on 100 held-out questions (docs/speed.md). On a CPU
without those instructions PyTorch emulates every bf16 matmul: the shipped tree answered three questions 2.7x slower
in bf16 than in float32 on an AVX2 EPYC (measured side by side, docs/speed.md). A user's first machine is either kind,
so the shipped configs say `auto` and this module asks the hardware once. An explicit dtype is always kept.
"""

from __future__ import annotations

import functools
import logging


logger = logging.getLogger(__name__)

AUTO = "auto"


@functools.cache
def cpu_computes_bf16() -> bool:
    """True when this CPU has bf16 arithmetic (AVX512-BF16 or AMX tiles), which PyTorch's CPU kernels use."""
    import torch

    return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


def auto_dtype(*, on_gpu: bool, cpu_has_bf16: bool | None = None) -> str:
    """bfloat16 on a GPU or a CPU with bf16 arithmetic; float32 on a CPU that would emulate it."""
    if on_gpu:
        return "bfloat16"
    return "bfloat16" if (cpu_computes_bf16() if cpu_has_bf16 is None else cpu_has_bf16) else "float32"


def resolve_dtype(dtype: str | None, *, on_gpu: bool | None = None, cpu_has_bf16: bool | None = None) -> str:
    """The torch dtype name to load a model in: float32 when unset (the tests' reference numerics), `auto` resolved
    for this machine, anything else as given."""
    if not dtype:
        return "float32"
    if dtype != AUTO:
        return dtype
    if on_gpu is None:
        import torch

        on_gpu = torch.cuda.is_available()
    chosen = auto_dtype(on_gpu=on_gpu, cpu_has_bf16=cpu_has_bf16)
    logger.info("dtype auto: %s (%s)", chosen, "GPU" if on_gpu else f"CPU bf16 arithmetic: {chosen == 'bfloat16'}")
    return chosen
