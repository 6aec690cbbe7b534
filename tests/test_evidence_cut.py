"""The decoder cuts passages as the model was trained: `evidence_max_words` comes from the model folder's
resolved_config.yaml (training/sft.py writes it) unless `--evidence_max_words` is given."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from fakes import FakeGenerator

from rqrag.config_loader import make_parser, parse
from rqrag.inference.decoding.decode_config import (
    DEFAULT_EVIDENCE_MAX_WORDS,
    DecodeConfig,
    trained_evidence_max_words,
)
from rqrag.inference.decoding.decoder import TreeDecoder
from rqrag.models import DEFAULT_MODEL, SHIPPED_MODEL
from rqrag.retrieval.base import Hit


def _trained_folder(path, words):
    """A training output folder as training/sft.py leaves it, as far as the decoder looks: its resolved config."""
    path.mkdir()
    record = {"entry_point": "training/sft.py", "ScriptArguments": {"evidence_max_words": words}, "SFTConfig": {}}
    (path / "resolved_config.yaml").write_text(yaml.safe_dump(record))
    return str(path)


def test_a_model_folder_is_decoded_with_the_cut_it_was_trained_with(tmp_path):
    model = _trained_folder(tmp_path / "m17", 17)
    assert DecodeConfig(model=model).evidence_max_words == 17
    decode, _ = parse(make_parser(DecodeConfig), ["--model", model])
    assert decode.evidence_max_words == 17


@pytest.mark.parametrize("given", ["5", "0"])
def test_the_flag_overrides_what_the_model_recorded(tmp_path, given):
    model = _trained_folder(tmp_path / "m17", 17)
    decode, _ = parse(make_parser(DecodeConfig), ["--model", model, "--evidence_max_words", given])
    assert decode.evidence_max_words == int(given)


def test_a_yaml_value_is_given_too(tmp_path):
    model = _trained_folder(tmp_path / "m17", 17)
    (tmp_path / "c.yaml").write_text(f"model: {model}\nevidence_max_words: 0\n")
    decode, _ = parse(make_parser(DecodeConfig), ["--config", str(tmp_path / "c.yaml")])
    assert decode.evidence_max_words == 0


def test_a_model_without_a_record_reads_the_default(tmp_path):
    (tmp_path / "plain").mkdir()
    assert trained_evidence_max_words(str(tmp_path / "plain")) is None
    assert DecodeConfig(model=str(tmp_path / "plain")).evidence_max_words == DEFAULT_EVIDENCE_MAX_WORDS
    assert DecodeConfig(model=DEFAULT_MODEL).evidence_max_words == DEFAULT_EVIDENCE_MAX_WORDS  # a packaged GGUF
    assert DecodeConfig(model="someone/some-hub-model").evidence_max_words == DEFAULT_EVIDENCE_MAX_WORDS


def test_the_shipped_models_are_read_from_their_records():
    assert trained_evidence_max_words(SHIPPED_MODEL) == 60  # models/rqrag-smollm2-135m/resolved_config.yaml
    assert DecodeConfig().evidence_max_words == trained_evidence_max_words(DecodeConfig().model) == 60
    prompted = DecodeConfig(model=SHIPPED_MODEL, prompting="prompted")  # runs the base, which recorded nothing
    assert prompted.evidence_max_words.model == DEFAULT_MODEL


def test_a_copy_for_another_model_reads_that_models_cut_unless_one_was_given(tmp_path):
    m17, m30 = _trained_folder(tmp_path / "m17", 17), _trained_folder(tmp_path / "m30", 30)
    read = DecodeConfig(model=m17)
    assert dataclasses.replace(read, model=m30).evidence_max_words == 30  # an experiment's generator preset
    assert dataclasses.replace(read, max_depth=1).evidence_max_words == 17
    given = DecodeConfig(model=m17, evidence_max_words=5)
    assert dataclasses.replace(given, model=m30).evidence_max_words == 5


class _OnePassage:
    uses_qids = False
    name = "one-passage"

    def batch_search(self, queries, k=3, qids=None):
        return [[Hit("d1", "Kilimanjaro", "one two three four five six seven eight nine ten", 1.0)] for _ in queries]

    def search(self, query, k=3, qid=None):
        return self.batch_search([query], k)[0]


def test_the_decoder_reads_passages_cut_as_its_model_was_trained(tmp_path, smollm2_tokenizer):
    config = DecodeConfig(model=_trained_folder(tmp_path / "m4", 4), prompting="trained")
    decoder = TreeDecoder(
        config, FakeGenerator(smollm2_tokenizer, lambda *_: ("x", 0.9)), smollm2_tokenizer, _OnePassage()
    )
    ((hit,),) = decoder.search([("mountain", None)]).values()
    assert hit.text == "one two three four"
