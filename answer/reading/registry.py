"""Who reads what the tree found, for one answer pipeline: the feature reader, the language-model readers
(`--reader MODEL`), the verifier of the tree's candidates, and the extractive ranking of sentences they share.
Each is made on first need and kept.

    readers = Readers(ExtractiveQuoter(), model="rqrag-smollm2-135m-selftrain")
    readers.features                      # the shipped feature reader (rqrag.answer.reading.span_reader), or None
    readers.model_reader(settings)        # a ModelReader when settings.decode.reader names one, else None
    readers.read_by_model(reader, question, hits, "en", settings)   # the GroundedAnswer a person reads
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rqrag.answer.grounding import GroundedAnswer, Quoter
from rqrag.answer.results import AnswerSettings
from rqrag.retrieval.base import Hit


class Readers:
    def __init__(self, quoter: Quoter, model: str | None, verifier=None, features=None):
        """`features`: a feature reader, None for the shipped one, or False for none; `verifier`: the tree's
        verifier, None for the one saved beside `model`."""
        self.quoter = quoter
        self._model = model
        self._verifier = verifier
        self._features = features
        self._model_readers: dict[tuple[str, int], object] = {}

    @property
    def features(self):
        """The reader of everything found (`rqrag.answer.reading.span_reader`): the shipped one unless given; None when no
        reader is shipped or the pipeline was made with `reader=False` (the tree's answers and the quoter alone
        decide)."""
        if self._features is False:
            return None
        if self._features is None:
            from rqrag.answer.reading.span_reader import Reader

            self._features = Reader.default()
        return self._features if self._features.model is not None else None

    def model_reader(self, settings: AnswerSettings):
        """The language model that reads the pooled evidence (`rqrag.answer.reading.model_reader`) when the settings name
        one (`--reader qwen2.5-1.5b`), made once per model and sentence count; None for the feature reader."""
        name = settings.decode.reader
        if name in ("features", "", None):
            return None
        key = (name, settings.decode.reader_sentences)
        if key not in self._model_readers:
            from rqrag.answer.reading.model_reader import ModelReader

            self._model_readers[key] = ModelReader(name, settings.decode.reader_sentences)
        return self._model_readers[key]

    def read_by_model(self, reader, question: str, hits, language: str, settings, path_of=None) -> GroundedAnswer:
        """The answer decided over what the model reader says of `hits` (`rqrag.answer.reading.model_decision`)."""
        from rqrag.answer.reading.model_decision import decide_by_model, judge_for

        reading = reader.read(question, hits, language, rank=self.rank_sentences(language))
        return decide_by_model(
            reading,
            language,
            own_knowledge=settings.decode.reader_own_knowledge,
            path_of=path_of,
            model=reader.name,
            recall=reader.recall,
            verify=reader.verify,
            judge=judge_for(reader.model),
        )

    @property
    def verifier(self):
        if self._verifier is None:
            from rqrag.answer.verifier import Verifier

            self._verifier = Verifier.for_model(self._model)
        return self._verifier

    def rank_sentences(self, language: str) -> Callable[[str, Sequence[Hit]], list[tuple[float, str]] | None]:
        """`rank(question, hits)`: (score, sentence) for every quotable sentence of the hits, as the verifier's
        sentence features read them (`Quoter.rank_sentences`; None with a caller's own quoter)."""
        return lambda question, hits: self.quoter.rank_sentences(question, hits, language)
