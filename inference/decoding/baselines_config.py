"""`BaselinesConfig`: the iterative baselines (IRCoT, Iter-RetGen) that eval runs beside the tree. One concern of `DecodeConfig` (`decode_config.py`), which inherits it, so a field
is still `config.field` and a YAML file a flat mapping; `@concern` gives it its `--help` group."""

from __future__ import annotations

from dataclasses import dataclass, field

from rqrag.config_loader import concern


@concern(
    "baselines", "the iterative baselines: `rqrag eval --systems ircot iter_retgen` (inference/decoding/iterative.py)"
)
@dataclass
class BaselinesConfig:
    ircot_max_steps: int = field(
        default=5,
        metadata={"help": "IRCoT: at most this many thought-then-search steps before the reader answers"},
    )
    iter_retgen_rounds: int = field(
        default=3, metadata={"help": "Iter-RetGen: retrieve-then-answer rounds (FlashRAG's default, 3)"}
    )
