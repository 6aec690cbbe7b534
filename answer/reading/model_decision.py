"""What a person reads when a language model read the evidence (`rqrag.answer.reading.model_reader`).

Three outcomes, and no fourth:

* **answered** — the model's short answer, then the sentence that states it, quoted *whole and as it stands in the
  evidence*, with its page (`kind: generated`). The quote is the first sentence the model cited that holds the
  answer, else the best-ranked sentence it read that holds it; a yes/no is held by the sentences it cited. Holding
  the words is not enough: the model is then asked whether that sentence states the answer to the question, and the
  answer is shown as found only on a yes with p >= VERIFIED_MIN_P ("Lyon" is in a sentence about France, but that
  sentence does not say Lyon is its capital). The check runs for the languages it was measured to help
  (VERIFIED_LANGUAGES: English; in Portuguese it refused right answers and stopped no wrong one).
* **not in the library** — the model said the sentences do not state it, or its answer is in none of them (it
  answered from its own knowledge, or wrote something the evidence does not say): "I found nothing in the sources I
  searched that answers this." (`kind: no_answer`), no quote, no source.
* **its own knowledge, labelled** — with `reader_own_knowledge` (the default), the model is then asked the question
  without evidence; an answer it gives with p >= OWN_KNOWLEDGE_MIN_P is shown first, followed by the fact that no
  source states it (`kind: unsourced`), with no quote and no citation. The threshold was set before any measurement
  and never tuned.

With a *judge* fitted for the reader model (`judge_for`: `models/reader/<model>/verifier.json`, fitted by
rqrag fit decision on training ids, with questions given another question's evidence as the cases the
library does not hold), for questions in a language it was fitted on (its report's `languages`), the yes/no check
above is replaced: a found answer is shown when the judge's calibrated
p(right) over `READING_FEATURES` reaches its threshold, and that p is the confidence shown with it.

A quote is therefore shown only when it holds the answer it is shown under, and the model's words are never
presented as a quotation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from rqrag.answer.extractive import Quote
from rqrag.answer.grounding import GroundedAnswer
from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.answer.reading.model_reader import ModelReading, Numbered
from rqrag.answer.verifier import VERIFIER_FILE, Verifier
from rqrag.text.answer_text import normalize_answer


# Words an answer may add that the sentence need not repeat (articles are gone after normalize_answer already).
_FILLER = frozenset(
    "of in on at to and or by for from with the de da do das dos em no na nos nas e ou por para com".split()
)
MIN_HELD_SHARE = 0.75  # of the answer's content words a sentence must hold
OWN_KNOWLEDGE_MIN_P = 0.5  # the model's own answer is shown (labelled) only when it gives it at least this p
VERIFIED_MIN_P = 0.5  # a found answer is shown only when the model says its quote states it with at least this p
# The languages the yes/no check runs for. On Portuguese held-out set 3 (docs/answers.md) it refused four right
# answers of the first 13 ("cinco segundos", "85") and stopped no wrong one, so Portuguese answers are not asked it.
VERIFIED_LANGUAGES = ("en",)


def _stem(word: str) -> str:
    """A plural's singular, roughly ("Yellowcraigs" -> "yellowcraig", "estados" -> "estado"): the model may inflect
    a name the sentence states."""
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})


def _plain_dashes(text: str) -> str:
    """En and em dashes as hyphens: the model writes "1993-1997" for the page's "1993–1997"."""
    return text.translate(_DASHES)


def holds(answer: str, sentence: str) -> bool:
    """Whether `sentence` states `answer`: the answer's normalised words as a phrase, or at least MIN_HELD_SHARE of
    its content words (singular and plural alike)."""
    norm, text = normalize_answer(_plain_dashes(answer)), f" {normalize_answer(_plain_dashes(sentence))} "
    if not norm:
        return False
    if f" {norm} " in text:
        return True
    words = [_stem(w) for w in norm.split() if w not in _FILLER]
    if not words:
        return False
    stems = {_stem(w) for w in text.split()}
    present = sum(w in stems for w in words)
    return present / len(words) >= MIN_HELD_SHARE


def yes_no_word(answer: str, language: str) -> str | None:
    """Yes or No (Sim or Não) for a yes/no reply, None for anything else."""
    first = normalize_answer(answer).split()[:1]
    if first and first[0] in ("yes", "sim"):
        return "Sim" if language == "pt" else "Yes"
    if first and first[0] in ("no", "nao", "não"):
        return "Não" if language == "pt" else "No"
    return None


def echoes_question(answer: str, question: str) -> bool:
    """Whether the answer only says back words of the question ("Lisbon" for "Which river flows through Lisbon?"),
    unless it is one of the options the question names ("Who is older, A or B?")."""
    from rqrag.answer.answer_types import options

    words = normalize_answer(answer).split()
    asked = set(normalize_answer(question).split())
    named = {normalize_answer(o) for o in options(question)}
    return bool(words) and all(w in asked for w in words) and normalize_answer(answer) not in named


def stating(reading: ModelReading) -> tuple[str, list[Numbered]] | None:
    """(the answer as shown, the sentences that state it) or None when nothing read states the answer (or the answer
    only says the question back)."""
    answer = reading.answer
    if answer is None or (not reading.yes_no and echoes_question(answer, reading.question)):
        return None
    if reading.yes_no:
        word = yes_no_word(answer, reading.language)
        if word is not None:
            return (word, reading.cited[:2]) if reading.cited else None
    held = [s for s in reading.cited if holds(answer, s.text)]
    if not held:
        held = sorted((s for s in reading.sentences if holds(answer, s.text)), key=lambda s: s.rank)[:1]
    return (answer, held[:1]) if held else None


def quote_of(sentences: Sequence[Numbered]) -> Quote:
    """The quoted sentence(s), verbatim, from the first one's passage (a second cited sentence joins it only when
    it comes from the same passage)."""
    first = sentences[0]
    same = [s for s in sentences if s.hit.docid == first.hit.docid]
    return Quote(
        " ".join(s.text for s in same), first.hit.docid, first.hit.title or "", dict(first.hit.extra or {}), 1.0
    )


def question_overlap(question: str, text: str, language: str) -> float:
    """The share of the question's content words (by crude stem) that `text` holds."""
    from rqrag.text.text_quality import content_words, stem

    asked = {stem(w) for w in content_words(question, language)}
    if not asked:
        return 0.0
    return len(asked & {stem(w) for w in content_words(text, language)}) / len(asked)


def decision_features(reading: ModelReading, found: tuple[str, list[Numbered]], verified: float | None) -> dict:
    """The judge's features (`READING_FEATURES`) of a reading whose answer `found` holds: see model_reader."""
    quote = found[1][0] if found[1] else None
    title = (quote.hit.title or "") if quote is not None else ""
    language = reading.language or "en"
    return {
        "quote_overlap": question_overlap(reading.question, f"{title} {quote.text}", language) if quote else 0.0,
        "passage_overlap": question_overlap(reading.question, f"{title} {quote.hit.text}", language) if quote else 0.0,
        "log_p": math.log(max(reading.p, 1e-6)),
        "cited_holds": float(quote is not None and quote in reading.cited),
        "quote_rank": (quote.rank if quote is not None else len(reading.sentences)) / max(1, len(reading.sentences)),
        "verified": 0.5 if verified is None else verified,
        "answer_words": float(min(len(found[0].split()), 12)),
        "yes_no": float(reading.yes_no),
    }


def judge_for(model: str) -> Verifier | None:
    """The judge fitted for reader `model` (models/reader/<model>/verifier.json), or None: the rules above decide."""
    return _judge_for(model.rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=4)
def _judge_for(name: str) -> Verifier | None:
    from rqrag.paths import models_dir

    path = models_dir() / "reader" / name / VERIFIER_FILE
    return Verifier.load(path) if path.is_file() else None


def decide_by_model(
    reading: ModelReading,
    language: str | None,
    *,
    own_knowledge: bool = False,
    path_of=None,
    model: str = "",
    recall=None,
    verify=None,
    judge: Verifier | None = None,
) -> GroundedAnswer:
    """The answer shown for `reading` (module docstring). `path_of(docid)`: the tree path that read a passage (the
    trajectory shown beside the answer), or None; `recall(question, language)`: the model's own (answer, p);
    `verify(question, answer, sentences, language)`: p that the sentences show the answer (None: not checked);
    `judge`: the reader model's fitted judge (`judge_for`), or None."""
    language = reading.language or language or "en"
    if judge is not None and language not in judge.report.get("languages", (language,)):
        judge = None  # fitted on another language's questions: the rules decide here, as measured for them
    described = [reading.to_dict()]
    found = stating(reading)
    rejected = {"reader": "not_in_evidence"} if reading.answer is not None and found is None else {}
    quote = quote_of(found[1]) if found is not None else None
    confidence = reading.p
    checked = None
    if language not in VERIFIED_LANGUAGES:
        verify = None
    if found is not None and verify is not None and (judge is None or "verified" in judge.features):
        # the quote, then the sentences the model pointed at and the two best-ranked: a second hop stands on them
        best = sorted(reading.sentences, key=lambda s: s.rank)[:2]
        support = list(dict.fromkeys([quote.text, *(s.text for s in reading.cited), *(s.text for s in best)]))
        checked = verify(reading.question, found[0], support, language)
        described[0]["verified"] = round(checked, 4)
    if found is not None:
        features = decision_features(reading, found, checked)
        described[0]["features"] = {k: round(v, 4) for k, v in features.items()}
        if judge is not None:
            confidence = judge.probability(features)
            described[0]["judged"] = round(confidence, 4)
            if confidence < judge.threshold:
                found, rejected = None, {"reader": "judged_unlikely"}
        elif checked is not None and checked < VERIFIED_MIN_P:
            found, rejected = None, {"reader": "quote_does_not_state_it"}
    if found is not None:
        text, sentences = found
        cited = [sentences[0].hit]
        return GroundedAnswer(
            text,
            AnswerKind.GENERATED,
            cited,
            path_of(quote.docid) if path_of else None,
            reading.answer,
            {},
            confidence,
            described,
            model,
            quote,
            read_by_model=True,
        )
    if own_knowledge and recall is not None:
        own, p = recall(reading.question, language)
        described.append({"text": own or "", "answer": own, "p": round(p, 4), "own_knowledge": True})
        if own is not None and p >= OWN_KNOWLEDGE_MIN_P:
            text = said(Message.OWN_KNOWLEDGE, language, answer=own)
            return GroundedAnswer(
                text, AnswerKind.UNSOURCED, [], None, own, rejected, p, described, model, read_by_model=True
            )
    text = said(Message.NO_ANSWER, language)
    return GroundedAnswer(
        text, AnswerKind.NO_ANSWER, [], None, reading.answer, rejected, reading.p, described, model, read_by_model=True
    )
