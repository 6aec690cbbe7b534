"""bf16 autocast only on a CPU that computes in bf16: elsewhere training stays in fp32.

The CPU configs ask for `bf16: true` because on a CPU with AVX512-BF16 (or AMX) it trained 1.7x faster than fp32
(docs/train.md). On a CPU without those instructions PyTorch emulates every bf16 matmul: the 12-step overfit run of
tests/test_training.py took 700 s there instead of about a minute, with nothing said. A user's first machine is
either kind, so the training scripts ask the CPU and turn bf16 off, with a warning, where it would only be slower.
A GPU run is left as configured.
"""

from __future__ import annotations

import logging
import sys

from rqrag.precision import cpu_computes_bf16


logger = logging.getLogger("rqrag.training.cpu_precision")


def trains_on_cpu(training_args) -> bool:
    import torch

    return bool(training_args.use_cpu) or not torch.cuda.is_available()


def bf16_off(training_args, *, cpu_has_bf16: bool | None = None) -> bool:
    """True when `training_args` ask for bf16 on a CPU that would only emulate it."""
    if not training_args.bf16 or not trains_on_cpu(training_args):
        return False
    return not (cpu_computes_bf16() if cpu_has_bf16 is None else cpu_has_bf16)


def parse_with_cpu_precision(parser, argv: list[str] | None = None, *, cpu_has_bf16: bool | None = None) -> tuple:
    """The script's arguments (`TrlParser.parse_args_and_config`), bf16 off where the CPU would emulate it.

    Parsed again with `--bf16 false` rather than edited afterwards: the configs' own checks (GRPOConfig derives its
    generation batch from other fields) then run once, on the final values."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parsed = parser.parse_args_and_config(args=argv)
    training_args = next(part for part in parsed if hasattr(part, "bf16"))
    if not bf16_off(training_args, cpu_has_bf16=cpu_has_bf16):
        return parsed
    logger.warning(
        "bf16 is off for this run: this CPU has no bf16 arithmetic (AVX512-BF16 or AMX), where autocast is several "
        "times slower than fp32. Training runs in fp32; the resolved config records bf16: false."
    )
    return parser.parse_args_and_config(args=[*argv, "--bf16", "false"])
