"""A review's fields taken out of an article's own sections: objective, method, data, main result, conclusion.

    fields = extract_fields(article)            # rqrag.ingest.article.Article
    fields["objective"][0].text, .page, .section     # a sentence of the article, where it is

Without a capable model the review is extractive: every field is one or two of the article's sentences, quoted
with their page and section, so nothing shown can be invented. Each field reads only the sections it belongs to
(`FIELD_SECTIONS`, most likely first) and scores their sentences by

* **cues** — the phrases that state the field ("este trabalho propõe", "o objetivo", "we propose"; "utilizou-se",
  "we trained"; "corpus", "dataset"; a figure with "obteve", "outperforms"; "conclui-se", "in conclusion"),
* **position** — an objective closes the introduction or opens the abstract, a conclusion opens its section,
* **centrality** — how much of its section's vocabulary a sentence shares (TF-IDF cosine to the section's mean),
Only the first of the field's sections the article has is read (an "Objetivos" section before the abstract, the
conclusion before the discussion).

A candidate is a whole sentence of the article's prose (`field_sentences`): a sentence a page break or a footnote
split is joined again first, and a heading, a contents line, a caption, a reference-list entry or a sentence's
second half is never one. A section with no such sentence gives the field nothing, and the next of its sections is
read; a field none of them fills stays empty, and the review says so, rather than quote what is not a sentence.

The weights were chosen on the tuning articles (tests/data/articles/tuning) against their reference sentences,
and measured on the held-out ones (docs/review.md); `scripts/eval_review.py` prints both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rqrag.review.field_sentences import is_field_sentence, joined_paragraphs, prose_sentences
from rqrag.text.text_quality import fold


FIELDS = ("objective", "method", "data", "result", "conclusion")
# The sections a field is read from, the first the most likely.
FIELD_SECTIONS = {
    "objective": ("objectives", "abstract", "introduction"),
    "method": ("method", "abstract"),
    "data": ("method", "abstract", "results"),
    "result": ("results", "abstract", "discussion", "conclusion"),
    "conclusion": ("conclusion", "discussion"),
}
# Phrases that state a field, folded (Portuguese and English).
CUES = {
    "objective": (
        r"\b(este|neste|o presente|nosso) (trabalho|artigo|estudo|projeto|paper)\b.{0,40}\b(propo|apresent|investig|"
        r"avali|analis|desenvolv|descrev|compar|busc|pretend|tem (como|por))|\bobjetivo\b|\bobjetiva\b|"
        r"\bbuscou-se\b|\bpretende-se\b|\bpropomos\b|\bpropoe-se\b|\bthis (paper|work|study|article)\b.{0,30}\b(propos|"
        r"present|investigat|evaluat|introduc|describ|examin|compar|aim)|\bwe (propose|present|investigate|"
        r"set out|aim|introduce|study|examine|ask)\b|\b(our|the) (aim|goal|objective|purpose)\b|\bin this (paper|work)\b"
    ),
    "method": (
        r"\btrata-se de\b|\bestudo (transversal|longitudinal|de caso|experimental|observacional|descritivo)|"
        r"\b(comparamos|usamos|utilizamos|empregamos|adotamos|aplicamos|treinamos|avaliamos|propomos)\b|"
        r"\b(foi|foram) (utilizad|empregad|adotad|aplicad|ajustad|treinad|instalad|comparad|relacionad|"
        r"definid|estimad|avaliad|dividid|mantid|combinad)|\b(utilizou-se|empregou-se|adotou-se|comparou-se|"
        r"avaliou-se|considerou-se)\b|\bpor (meio de )?regressao\b|\bwe (use|used|train|trained|compare|"
        r"compared|build|built|took|take|prompt|prompted|apply|applied|fine-tune|fine-tuned)\b|"
        r"\b(initiali[sz]ed|fine-tuned|trained on|is an? [\w-]+ (model|method|approach))\b|\b(cross-sectional|"
        r"randomi[sz]ed|case study)\b"
    ),
    "data": (
        r"\b(dados|conjunto de dados|corpus|amostra|base de dados|coletad|registros|notificac|participantes|"
        r"documentos|perguntas|questoes|sensores|leituras|entrevistas|dataset|data set|data|sample|records|collected|"
        r"questions|documents|participants|observations|measurements)\b"
    ),
    "result": (
        r"\d+([.,]\d+)?\s*(%|pontos|p\.p\.|points|vezes|times|mm|dias|days)|\b(obtev|alcanc|atingi|supero|melhor|"
        r"reduzi|aument|mostra|indica|revel|result|achiev|outperform|improv|reduc|increas|show|yield|reach)"
    ),
    "conclusion": (
        r"\b(conclui|concluimos|conclusao|portanto|em suma|em sintese|assim,|desse modo|os resultados (indicam|"
        r"sugerem|mostram|evidenciam)|este (trabalho|estudo) (mostrou|demonstrou|indica|evidencia)|we conclude|"
        r"in conclusion|overall|taken together|this (work|study|paper) (shows|showed|demonstrates)|our results|"
        r"these results)"
    ),
}
# What makes a sentence a poor field: future work, a figure's caption, a list of citations.
PENALTIES = r"\b(trabalhos futuros|future work|futuramente|agradec|figura \d|tabela \d|figure \d|table \d)\b"
# Chosen on the tuning articles (scripts/eval_review.py --set tuning --weights: the grid's best, 0.90 of fields right
# against 0.87 for cue phrases alone, 0.47 for centrality alone and 0.33 for the first sentence of the section).
WEIGHTS = {"cue": 0.5, "position": 0.3, "centrality": 0.6, "number": 0.5, "penalty": 1.5}
MIN_WORDS, MAX_WORDS = 6, 70


@dataclass(frozen=True)
class FieldSentence:
    text: str
    page: int | None
    section: str  # the role of the section it was read in (rqrag.ingest.article.SECTION_ROLES)
    heading: str
    score: float


def _candidates(article, field: str) -> list[tuple[str, int | None, str, str, int, int]]:
    """(sentence, page, section role, heading, index among the role's sentences, sentences in the role) of the
    first of the field's section roles the article has field sentences in: a conclusion is read in the conclusion
    when there is one, and in the discussion only when there is none (or it holds no sentence, only a table)."""
    language = article.language
    for role in FIELD_SECTIONS[field]:
        sentences = [
            (sentence.strip(), page, section.heading)
            for section in article.sections
            # the English abstract of a Portuguese article is not what its review quotes
            if section.role == role and not (language and section.language and section.language != language)
            for page, text in joined_paragraphs(section.paragraphs)
            for sentence in prose_sentences(text)
        ]
        out = [
            (text, page, role, heading, index, len(sentences))
            for index, (text, page, heading) in enumerate(sentences)
            if MIN_WORDS <= len(text.split()) <= MAX_WORDS and is_field_sentence(text)
        ]
        if out:
            return out
    return []


def _centrality(texts: Sequence[str]) -> np.ndarray:
    """Each text's TF-IDF cosine to the mean of all of them (0 for one text alone)."""
    if len(texts) < 2:
        return np.zeros(len(texts))
    from sklearn.feature_extraction.text import TfidfVectorizer

    matrix = TfidfVectorizer(preprocessor=fold, token_pattern=r"(?u)\b\w\w\w+\b").fit_transform(texts)
    centre = np.asarray(matrix.mean(axis=0)).ravel()
    norm = np.linalg.norm(centre) or 1.0
    return np.asarray(matrix @ centre).ravel() / norm


def _position(field: str, role: str, index: int, count: int) -> float:
    """How well a sentence's place in its section fits the field (1 best)."""
    if count <= 1:
        return 1.0
    share = index / (count - 1)
    if field == "objective" and role == "introduction":
        return share  # the introduction ends on what the article sets out to do
    if field == "result" and role == "abstract":
        return share
    return 1.0 - share


def score_field(article, field: str, weights: dict[str, float] | None = None) -> list[FieldSentence]:
    """The field's candidate sentences, best first."""
    weights = weights or WEIGHTS
    candidates = _candidates(article, field)
    if not candidates:
        return []
    cue, penalty = re.compile(CUES[field]), re.compile(PENALTIES)
    by_section: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        by_section.setdefault(c[2], []).append(i)
    centrality = np.zeros(len(candidates))
    for members in by_section.values():
        centrality[members] = _centrality([candidates[i][0] for i in members])
    scored = []
    for i, (text, page, role, heading, index, count) in enumerate(candidates):
        folded = fold(text)
        score = (
            weights["cue"] * min(2, len(cue.findall(folded))) / 2
            + weights["position"] * _position(field, role, index, count)
            + weights["centrality"] * float(centrality[i])
            + weights["number"] * float(field in ("result", "data") and bool(re.search(r"\d", text)))
            - weights["penalty"] * float(bool(penalty.search(folded)))
        )
        scored.append(FieldSentence(text, page, role, heading, round(score, 4)))
    return sorted(scored, key=lambda s: -s.score)


def extract_fields(article, per_field: int = 1, weights: dict[str, float] | None = None) -> dict[str, list]:
    """Each field's best `per_field` sentences, no sentence in two fields (the earlier field keeps it)."""
    used: set[str] = set()
    out: dict[str, list[FieldSentence]] = {}
    for field in FIELDS:
        chosen = []
        for candidate in score_field(article, field, weights):
            if candidate.text in used:
                continue
            chosen.append(candidate)
            used.add(candidate.text)
            if len(chosen) >= per_field:
                break
        out[field] = chosen
    return out
