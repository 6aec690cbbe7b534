"""Every YAML under configs/ loads into its stage's dataclass; unknown keys would fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from rqrag.cli.commands.index import IndexBuildConfig
from rqrag.cli.commands.search import SearchConfig
from rqrag.config_loader import load_yaml_config
from rqrag.data_construction.data_config import DataBuildConfig, DataImportConfig
from rqrag.eval.eval_config import EvalConfig
from rqrag.eval.experiments.experiment_config import ExperimentConfig
from rqrag.inference.decoding.decode_config import DecodeConfig
from rqrag.self_training.loop import SelfTrainConfig
from rqrag.serve.serve_config import ServeConfig


CONFIGS = Path(__file__).resolve().parent.parent / "configs"
# configs/<stage>/... -> the dataclass(es) that stage parses
STAGES = {
    "data/self_train.yaml": (DecodeConfig, SelfTrainConfig),  # before "data": the first matching key wins
    "data/released.yaml": (DataImportConfig,),
    "data": (DataBuildConfig,),
    "decode": (DecodeConfig,),
    "eval": (DecodeConfig, EvalConfig),
    "experiments": (DecodeConfig, ExperimentConfig),
    "serve": (DecodeConfig, ServeConfig),
    "retrieval/embedded_hybrid.yaml": (SearchConfig,),
    "retrieval/index_build.yaml": (IndexBuildConfig,),
}


def _train_classes(path: Path):
    from trl import GRPOConfig, ModelConfig, SFTConfig

    if path.name.startswith("grpo_"):  # training/grpo.py's parser
        from rqrag.training.grpo import ScriptArguments as GRPOArguments

        return (GRPOArguments, GRPOConfig, ModelConfig)
    from rqrag.training.sft import ScriptArguments

    return (ScriptArguments, SFTConfig, ModelConfig)


def _classes_for(path: Path):
    relative = path.relative_to(CONFIGS).as_posix()
    for key, classes in STAGES.items():
        if relative == key or relative.startswith(key + "/"):
            return classes
    raise AssertionError(f"{relative}: no dataclass registered for this config; add it to STAGES")


@pytest.mark.parametrize(
    "path",
    sorted(p for p in CONFIGS.rglob("*.yaml") if p.parent.name != "accelerate"),
    ids=lambda p: str(p.relative_to(CONFIGS)),
)
def test_config_loads_into_its_dataclass(path):
    classes = _train_classes(path) if path.parent.name == "train" else _classes_for(path)
    data = load_yaml_config(path, classes)
    fields = {c: {k: v for k, v in data.items() if k in c.__dataclass_fields__} for c in classes}
    for cls, values in fields.items():
        if cls.__name__ in ("SFTConfig", "GRPOConfig") and values.get("bf16"):
            import torch

            if not torch.cuda.is_available():  # TrainingArguments refuses bf16 without a GPU; the keys are checked
                values = {**values, "bf16": False}
        cls(**values)  # runs __post_init__ validation too
    assert path.read_text().startswith("#"), "each config opens with a comment giving its launch command"


@pytest.mark.parametrize("path", sorted((CONFIGS / "accelerate").glob("*.yaml")), ids=lambda p: p.name)
def test_accelerate_config_loads(path):
    from accelerate.commands.config.config_args import ClusterConfig

    config = ClusterConfig.from_yaml_file(str(path))  # unknown keys raise
    assert config.mixed_precision == ("no" if path.stem == "cpu" else "bf16")
    if path.stem == "deepspeed_zero3":
        assert config.deepspeed_config["zero_stage"] == 3 and config.num_processes == 8
    assert path.read_text().startswith("#")
