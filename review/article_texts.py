"""Four texts per article, written from its own passages and checked sentence by sentence.

So that a researcher can pre-select articles without reading them, each article of a review gets a summary (at most
200 words), its objectives (100), its conclusions (100) and why it matters to the researcher's topic (100), in the
article's language. One call per article writes all four, under their heading lines, from a few numbered passages
of the article named by page and section (`review/article_passages.py`):

    Summary:
    The study measured soil water under three inter-row managements over four seasons. [1]
    ...
    Relevance:
    The article compares cover crops with bare soil in dry vineyards. [3]

Every sentence ends with the numbers of its passages and goes through the same check as a written answer's
(`rqrag.answer.writer.judge_sentence`: the check judges the claim against the passage, not the words); one that fails
is not shown, and a text with no sentence left says so. The marks a person reads are pages of the article. The reply
is read as it streams and stopped once the text it is writing is full or it repeats itself; the texts it had not
reached are asked for again (`ArticleWriter.write`), so no token is spent on what would not be shown.

    writer = ArticleWriter(*model_and_check(config))
    texts = writer.write(topic, article_title, article_passages(document, "pt"), "pt")   # review/article_passages.py
    texts.texts["summary"].shown
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from rqrag.answer.writer import WrittenSentence, judge_sentence, parse_line
from rqrag.retrieval.base import Hit


KINDS = ("summary", "objectives", "conclusions", "relevance")
MAX_WORDS = {"summary": 200, "objectives": 100, "conclusions": 100, "relevance": 100}
# Three sentences for objectives and conclusions: an article states three objectives or conclusions in about 100 words
# (the hand references hold three facts each), and two copied sentences could not hold them. Six for the summary: the
# 1.5B copies the abstract from its first sentence, which is background; the findings come fifth or sixth.
MAX_SENTENCES = {"summary": 6, "objectives": 3, "conclusions": 3, "relevance": 2}
HEADINGS = {
    "en": {"summary": "Summary", "objectives": "Objectives", "conclusions": "Conclusions", "relevance": "Relevance"},
    "pt": {"summary": "Resumo", "objectives": "Objetivos", "conclusions": "Conclusões", "relevance": "Relevância"},
}
_HEADING = re.compile(
    r"^\W*(summary|objectives?|conclusions?|relevance|resumo|objetivos?|conclus(?:ões|oes|ão|ao)|relev[âa]ncia)"
    r"\W*?\s*:[*_\s]*(.*)$",
    re.IGNORECASE,
)
_NOT_STATED = re.compile(r"^\W*(not stated|não (?:está )?(?:dito|informad|declarad)|nao informad|n/a)", re.I)

# Our own words. The worked example is a turn of its own (asked, then answered) rather than part of the instructions:
# written inside them, the 1.5B wrote it back under the headings of one tuning article in five (pt_latex).
PROMPTS = {
    "en": {
        "system": "You help a researcher decide which articles to read. Using only the numbered passages of one "
        "article, write four short texts, each under its own heading line: 'Summary:' (at most six sentences: what "
        "the article studied, how, and what it found), 'Objectives:' (at most three sentences: what it set out to "
        "do, from the abstract or the passage of its objectives), 'Conclusions:' (at most three sentences: what it "
        "concludes, from the passage of its conclusion section), 'Relevance:' (at most two sentences: what in the "
        "article bears on the researcher's topic). Each passage names its page and its section. Put each sentence "
        "on its own line, keep the passage's own words and order where you can, and end it with the numbers of the "
        "passages that state it, like [1] or [2][3]. Say nothing the passages do not say; under a heading the "
        "passages say nothing about, write: not stated.",
        "example": "Topic: water use of crops\nArticle: Drip irrigation of tomatoes\nPassages:\n[1] (p. 1, "
        "Abstract) We compared drip and furrow irrigation of tomatoes over two seasons. Drip irrigation used 40 % "
        "less water.\n[2] (p. 2, Introduction) The aim was to test whether drip irrigation keeps yields while saving "
        "water.\n[3] (p. 6, Conclusions) Drip irrigation saves water without lowering tomato yields.\nTexts:",
        "answer": "Summary:\nWe compared drip and furrow irrigation of tomatoes over two seasons. [1]\nDrip "
        "irrigation used 40 % less water. [1]\nObjectives:\nThe aim was to test whether drip irrigation keeps "
        "yields while saving water. [2]\nConclusions:\nDrip irrigation saves water without lowering tomato yields. "
        "[3]\nRelevance:\nDrip irrigation used 40 % less water. [1]",
        "task": "Topic: {topic}\nArticle: {title}\nPassages:\n{passages}\nTexts:",
        "only": "Write only these texts now, each under its heading line: {headings}\nTexts:",
    },
    "pt": {
        "system": "Você ajuda um pesquisador a decidir quais artigos ler. Usando apenas os trechos numerados de um "
        "artigo, escreva em português quatro textos curtos, cada um abaixo da sua linha de título: 'Resumo:' (no "
        "máximo seis frases: o que o artigo estudou, como e o que encontrou), 'Objetivos:' (no máximo três frases: "
        "o que o artigo se propôs a fazer, a partir do resumo ou do trecho dos seus objetivos), 'Conclusões:' (no "
        "máximo três frases: o que conclui, a partir do trecho da sua seção de conclusão), 'Relevância:' (no máximo "
        "duas frases: o que no artigo interessa ao tema do pesquisador). Cada trecho indica sua página e sua seção. "
        "Escreva cada frase em sua linha, com as palavras e a ordem do próprio trecho sempre que puder, terminando "
        "com os números dos trechos que a afirmam, como [1] ou [2][3]. Não diga nada que os trechos não digam; "
        "abaixo de um título sobre o qual os trechos nada dizem, escreva: não informado.",
        "example": "Tema: uso de água na agricultura\nArtigo: Irrigação por gotejamento do tomate\nTrechos:\n[1] (p. "
        "1, Resumo) Comparamos a irrigação por gotejamento e por sulcos do tomate em duas safras. O gotejamento usou "
        "40 % menos água.\n[2] (p. 2, Introdução) O objetivo foi verificar se o gotejamento mantém a produtividade "
        "economizando água.\n[3] (p. 6, Conclusões) O gotejamento economiza água sem reduzir a produtividade do "
        "tomate.\nTextos:",
        "answer": "Resumo:\nComparamos a irrigação por gotejamento e por sulcos do tomate em duas safras. [1]\nO "
        "gotejamento usou 40 % menos água. [1]\nObjetivos:\nO objetivo foi verificar se o gotejamento mantém a "
        "produtividade economizando água. [2]\nConclusões:\nO gotejamento economiza água sem reduzir a "
        "produtividade do tomate. [3]\nRelevância:\nO gotejamento usou 40 % menos água. [1]",
        "task": "Tema: {topic}\nArtigo: {title}\nTrechos:\n{passages}\nTextos:",
        "only": "Escreva agora apenas estes textos, cada um abaixo da sua linha de título: {headings}\nTextos:",
    },
}


@dataclass
class ArticleText:
    """One of the four texts: the sentences shown (each passed the check) and those dropped, with why."""

    kind: str
    shown: list[WrittenSentence] = field(default_factory=list)
    dropped: list[WrittenSentence] = field(default_factory=list)
    stated: bool = True  # False: the model said the passages do not state it
    written: bool = False  # its heading was reached (a reply cut at max_tokens may not reach the last texts)
    filled: bool = False  # a sentence would have passed its word limit: nothing more is read into it

    @property
    def note(self) -> str | None:
        """Why nothing is shown, when nothing is: not_written (the reply never reached it), not_stated (the model
        said the passages do not say it, or wrote nothing under it) or all_failed (no sentence passed the check)."""
        if self.shown:
            return None
        if not self.written:
            return "not_written"
        return "not_stated" if not self.stated or not self.dropped else "all_failed"


@dataclass
class ArticleTexts:
    texts: dict[str, ArticleText]
    passages: list[Hit]
    reply: str = ""
    seconds: float = 0.0
    problem: str | None = None  # failed: the writer could not be reached; nothing written

    def to_dict(self) -> dict:
        def sentence(s: WrittenSentence) -> dict:
            cited = [self.passages[n - 1] for n in s.cites if 1 <= n <= len(self.passages)]  # a dropped one may not
            pages = sorted({h.extra.get("page_start") for h in cited} - {None})
            return {**s.to_dict(), "pages": pages}

        return {
            "texts": {
                kind: {"sentences": [sentence(s) for s in text.shown], "note": text.note,
                       "dropped": [sentence(s) for s in text.dropped]}
                for kind, text in self.texts.items()
            },
            "passages": [{"number": n, "page": h.extra.get("page_start"), "text": h.text}
                         for n, h in enumerate(self.passages, 1)],
            "seconds": round(self.seconds, 2), "problem": self.problem, "reply": self.reply,
        }  # fmt: skip


def language_of(language: str | None) -> str:
    return language if language in PROMPTS else "en"


def article_messages(
    topic: str, title: str, passages: Sequence[Hit], language: str | None, only: Sequence[str] = ()
) -> list[dict]:
    """The writer's messages; `only`: the kinds the reply must write now (the first reply never reached them)."""
    words = PROMPTS[language_of(language)]
    numbered = "\n".join(f"[{n}] {_label(h)}{' '.join(h.text.split())}" for n, h in enumerate(passages, 1))
    user = words["task"].format(topic=" ".join(topic.split()), title=title, passages=numbered)
    if only:
        names = ", ".join(f"'{HEADINGS[language_of(language)][kind]}:'" for kind in only)
        user = user.removesuffix(words["task"].rsplit("\n", 1)[-1]) + words["only"].format(headings=names)
    return [{"role": "system", "content": words["system"]}, {"role": "user", "content": words["example"]},
            {"role": "assistant", "content": words["answer"]}, {"role": "user", "content": user}]  # fmt: skip


def _label(passage: Hit) -> str:
    """ "(p. 4, Conclusão) ": where the passage is, as the writer is told to read it."""
    where = [f"p. {passage.extra['page_start']}" if passage.extra.get("page_start") else "",
             passage.extra.get("section") or ""]  # fmt: skip
    where = [w for w in where if w]
    return f"({', '.join(where)}) " if where else ""


def heading(line: str) -> tuple[str, str] | None:
    """("summary" | "objectives" | "conclusions" | "relevance", the rest of the line) for a heading line."""
    found = _HEADING.match(line.strip().strip("*#").strip())
    if not found:
        return None
    word = found.group(1).lower()
    kind = next(k for k, stem in (("summary", "summ"), ("summary", "resu"), ("objectives", "obj"),
                                  ("conclusions", "conc"), ("relevance", "relev")) if word.startswith(stem))  # fmt: skip
    return kind, found.group(2).strip()


class ArticleWriter:
    # 768: at 480 the reply was cut inside the summary for two tuning articles of five (their abstracts' sentences
    # are long and the model copies them), and the later texts were never written.
    def __init__(self, model, check, max_tokens: int = 768):
        """`model`: a chat model of `rqrag.answer.writer_models`; `check`: a `ClaimCheck` (module docstring)."""
        self.model, self.check, self.max_tokens = model, check, max_tokens

    def write(self, topic: str, title: str, passages: Sequence[Hit], language: str | None) -> ArticleTexts:
        started = time.perf_counter()
        passages = list(passages)
        texts = {kind: ArticleText(kind) for kind in KINDS}
        reading = _Reading(self.check, texts, passages, topic, language, KINDS)
        try:
            reply = self._ask(article_messages(topic, title, passages, language), reading)
        except Exception as error:  # noqa: BLE001 - an endpoint away: the article keeps its quoted fields
            return ArticleTexts(texts, passages, problem=f"failed: {type(error).__name__}: {error}"[:300])
        # A reply that ended, or was stopped, before some headings (the 1.5B often stops after the summary, or copies
        # a whole abstract under one heading): one more call asks for those alone, as long as each call writes one.
        # Its prompt is the first one with a line added at the end, so a prompt cache keeps the rest.
        for _ in range(len(KINDS) - 1):
            missing = [kind for kind in KINDS if not texts[kind].written]
            if not missing or not reply.strip():
                break
            reading = _Reading(self.check, texts, passages, topic, language, missing)
            try:
                more = self._ask(article_messages(topic, title, passages, language, only=missing), reading)
            except Exception:  # noqa: BLE001 - what was written stands; the rest says not_written
                more = ""
            reply = f"{reply}\n\n{more}" if more else reply
            if all(not texts[kind].written for kind in missing):
                break  # the call wrote none of them: asking again would not either
        return ArticleTexts(texts, passages, reply, time.perf_counter() - started)

    def _ask(self, messages: list[dict], reading: _Reading) -> str:
        """The reply, each line read (and its sentences checked) as it is written; the writing is stopped as soon as
        the texts asked for are full or the reply repeats itself, so no token is spent on what is not shown."""
        if not hasattr(self.model, "stream"):  # a model that only answers whole
            reply = self.model.complete(messages, self.max_tokens)
            for line in reply.splitlines():
                reading.line(line)
            return reply
        pieces, buffer = [], ""
        stream = self.model.stream(messages, self.max_tokens)
        try:
            for piece in stream:
                pieces.append(piece)
                buffer += piece
                while "\n" in buffer and not reading.finished:
                    line, buffer = buffer.split("\n", 1)
                    reading.line(line)
                # A line that copies a whole abstract: its finished sentences are read before the line ends, so the
                # writing stops as soon as its text is full instead of copying the rest of the abstract.
                done = _SENTENCE_END.search(buffer) if reading.current and not reading.finished else None
                if done:
                    reading.line(buffer[: done.end()])
                    buffer = buffer[done.end() :]
                if reading.finished:
                    return "".join(pieces)
            reading.line(buffer)
        finally:
            stream.close()
        return "".join(pieces)


# the last sentence end inside a line, before the next sentence's capital ("… 9,7%. [1] Os resultados …")
_SENTENCE_END = re.compile(r"(?s:.*)[.!?](?:\s*\[[\d,;\s]+\])*\s+(?=[A-ZÀ-Ö])")


class _Reading:
    """One reply read line by line: its headings, its sentences checked under the kinds asked for, and when to stop."""

    def __init__(self, check, texts: dict, passages: list[Hit], topic: str, language, kinds):
        self.check, self.texts, self.passages = check, texts, passages
        self.topic, self.language, self.kinds = topic, language, tuple(kinds)
        self.current: str | None = None
        self.seen: set[tuple] = set()
        self.looping = False  # a line said again: a small model that starts repeating does not stop by itself

    @property
    def finished(self) -> bool:
        """Nothing more of this reply will be shown: it repeats itself, or the text it is writing is full (what it
        has not reached yet is asked for again, alone), or it wrote every text asked for."""
        if self.looping or (self.current is not None and self.full(self.current)):
            return True
        return all(self.texts[k].written for k in self.kinds) and self.current is None

    def full(self, kind: str) -> bool:
        text = self.texts[kind]
        return text.filled or len(text.shown) >= MAX_SENTENCES[kind] or not text.stated

    def line(self, line: str) -> None:
        """The reply's sentences under the headings of `kinds`, each checked; other headings' lines are skipped."""
        said = (self.current, " ".join(line.split()).lower())  # the same sentence may serve two texts, not one twice
        if len(said[1]) > 20 and said in self.seen:
            self.looping = True
            return
        self.seen.add(said)
        found = heading(line)
        if found:
            self.current, line = found
            if self.current not in self.kinds:
                self.current = None
                return
            self.texts[self.current].written = True
        if self.current is None or not line.strip() or self.full(self.current):
            return
        text = self.texts[self.current]
        if _NOT_STATED.match(line):
            text.stated = False
            return
        kind, value = parse_line(line)
        if kind != "sentence":
            return
        for sentence in value:
            words = sum(len(s.text.split()) for s in text.shown) + len(sentence.text.split())
            if self.full(self.current) or words > MAX_WORDS[self.current]:
                text.filled = True  # the text is full: what follows is not shown (nor checked)
                return
            sentence.verdict = judge_sentence(self.check, sentence, self.passages, self.topic, self.language)
            (text.shown if sentence.verdict.ok else text.dropped).append(sentence)
