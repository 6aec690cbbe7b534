"""The answer, written: the model that read the evidence writes what a person reads, every sentence cited.

The writer reads a few numbered passages — the best of everything the question found, each cut around its best
sentences (`choose_passages`) — and replies, in the question's language:

    Kiss and Tell stars Shirley Temple as Corliss Archer. [2]
    As an adult, Shirley Temple served as Chief of Protocol of the United States. [1]
    Answer: Chief of Protocol

at most three sentences, one per line, each ending with the numbers of the passages that state it, then the short
answer (shown first: it is written last because a small model reaches it better through the facts). Each sentence is checked (`rqrag.answer.claim_check`) as soon as its line is complete, while the next
is written, and handed to `on_sentence` only when it passes: what streams to a person has been checked.

    writer = AnswerWriter(LocalChatModel("qwen2.5-1.5b"), ClaimCheck(judge=...))
    written = writer.write(question, passages, "pt", on_sentence=print)
    written.short, written.shown, written.dropped, written.passages

A reply that is only citation marks, or whose sentences all cite passages it was not given, is asked for once more
with a reminder; a reply that says the passages do not answer (`Answer: not found`) writes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from rqrag.answer.claim_check import ClaimCheck, ClaimVerdict
from rqrag.retrieval.base import Hit
from rqrag.text.text_quality import fold, new_content


MAX_SENTENCES = 3
_ENUMERATED = re.compile(r"^(?:\d{1,2}[.)]|[-•*])\s+")  # "1. ", "- ": a list the model made of its sentences
_MARKS = re.compile(r"\s*((?:\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]\s*)+)[.;]?\s*$")
_ANSWER = re.compile(r"^\s*\**\s*(answer|resposta|short answer|resposta curta)\s*\**\s*:\s*(.*)$", re.IGNORECASE)
NOT_FOUND_REPLY = re.compile(
    r"^\s*(not found|none|unknown|n/a|não encontrad|nao encontrad|nenhuma|desconhecid)", re.IGNORECASE
)

# Our own instructions, one worked example each: without the example the 1.5B put the marks on a line of their own.
# Our own instructions, one worked example each. The facts come before the short answer: asked for the short answer
# first, the 1.5B said "not found" to the demo's two-hop question with both pages in front of it; writing the cited
# facts first, it reached the answer (the page still shows the short answer first).
PROMPTS = {
    "en": {
        "system": "You answer a question using only the numbered passages you are given. First write at most three "
        "sentences, each on its own line, each stating one fact from the passages that leads to the answer in the "
        "passage's own words and order (you may shorten it, and put a name for 'he', 'she' or 'it') and ending with "
        "the numbers of the passages that state it, like [1] or [2][3]. The answer often takes two passages: one "
        "says who or what the question is about, another gives the fact asked. Then write the line 'Answer:' followed "
        "by the short answer (a name, date, number or short phrase; yes or no for a yes/no question). Say nothing the "
        "passages do not say. If the passages do not answer the question, write only: Answer: not found\n\nExample:\n"
        "Passages:\n[1] (Marta Reyes) Marta Reyes is a Chilean novelist. In 2004 she received the Neruda Prize.\n"
        "[2] (The Salt Road) The Salt Road is a 1998 novel by Marta Reyes, set in Valparaiso.\n[3] (Valparaiso) "
        "Valparaiso is a port city in Chile.\nQuestion: Which prize did the author of The Salt Road receive?\nReply:\n"
        "The Salt Road is a novel by Marta Reyes. [2]\nMarta Reyes received the Neruda Prize in 2004. [1]\n"
        "Answer: the Neruda Prize",
        "header": "Passages:",
        "task": "Question: {question}\nReply:",
        "again": "Write the reply as in the example: sentences that end with the numbers of their passages, between 1 "
        "and {n}, then the line 'Answer: ...'.",
    },
    "pt": {
        "system": "Você responde a uma pergunta usando apenas os trechos numerados que recebe, em português. Primeiro "
        "escreva no máximo três frases, cada uma em sua linha, cada uma afirmando um fato dos trechos que leva à "
        "resposta com as palavras e a ordem do próprio trecho (pode encurtá-lo) e terminando com os números dos "
        "trechos que o afirmam, como [1] ou [2][3]. Depois escreva a linha "
        "'Resposta:' seguida da resposta curta (um nome, uma data, um número, um comando, um menu ou uma expressão "
        "curta; sim ou não para uma pergunta de sim ou não). Não diga nada que os trechos não digam. Se os trechos "
        "não respondem à pergunta, escreva apenas: Resposta: não encontrada\n\nExemplo:\nTrechos:\n[1] (Manual, "
        "p. 30) O menu Exibir controla as barras.\n[2] (Manual, p. 12) Para salvar o arquivo, escolha Arquivo > "
        "Salvar. O atalho é Ctrl+S.\nPergunta: Como eu salvo meu arquivo rápido?\nResposta:\nPara salvar o "
        "arquivo, use o atalho Ctrl+S. [2]\nTambém é possível escolher Arquivo > Salvar. [2]\nResposta: Ctrl+S",
        "header": "Trechos:",
        "task": "Pergunta: {question}\nResposta:",
        "again": "Escreva como no exemplo: frases que terminam com os números dos seus trechos, entre 1 e {n}, depois "
        "a linha 'Resposta: ...'.",
    },
}


@dataclass
class WrittenSentence:
    """One sentence of the reply: its text without marks, the passages it cites (1-based) and its check."""

    text: str
    cites: tuple[int, ...]
    verdict: ClaimVerdict | None = None

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "cites": list(self.cites),
            "check": self.verdict.to_dict() if self.verdict else None,
        }


@dataclass
class Written:
    """The writer's outcome: the short answer, the sentences shown (all passed) and dropped (with why)."""

    short: str | None
    shown: list[WrittenSentence]
    dropped: list[WrittenSentence]
    passages: list[Hit]
    reply: str = ""
    problem: str | None = None  # only_marks | no_sentences | not_found | failed: why nothing was written
    seconds: float = 0.0
    first_sentence_seconds: float | None = None
    attempts: int = 1
    timings: dict = field(default_factory=dict)


def language_of(language: str | None) -> str:
    return language if language in PROMPTS else "en"


def build_messages(question: str, passages: Sequence[Hit], language: str | None, again: bool = False) -> list[dict]:
    words = PROMPTS[language_of(language)]
    lines = [words["header"]]
    for number, hit in enumerate(passages, 1):
        title = _title(hit)
        text = " … ".join(" ".join(part.split()) for part in hit.text.split("\n") if part.strip())
        lines.append(f"[{number}] ({title}) {text}" if title else f"[{number}] {text}")
    user = "\n".join(lines) + "\n" + words["task"].format(question=" ".join(question.split()))
    messages = [{"role": "system", "content": words["system"]}, {"role": "user", "content": user}]
    if again:
        messages[1]["content"] += "\n" + words["again"].format(n=len(passages))
    return messages


def _title(hit: Hit) -> str:
    """The passage's title as the writer reads it: with its page (a document) or its day (a memory)."""
    where = hit.extra.get("page_start")
    if where:
        return f"{hit.title}, p. {where}" if hit.title else f"p. {where}"
    day = hit.extra.get("date") if hit.extra.get("origin") == "memory" else None
    if day:
        return f"{hit.title}, {day}" if hit.title else str(day)
    return (hit.title or "").strip()


def parse_line(line: str) -> tuple[str, str | list[WrittenSentence] | None]:
    """One line of the reply: ("short", text), ("sentence", [WrittenSentence, ...]) or ("other", None). A line of
    several sentences gives each its own marks, or the line's final marks when a sentence has none of its own."""
    text = _ENUMERATED.sub("", line.strip().strip("*").strip())
    if not text or text.startswith(("Escreva como no exemplo", "Write the reply as in the example")):
        return "other", None  # the reminder of a second attempt said back
    found = _ANSWER.match(text)
    if found:
        return "short", _MARKS.sub("", found.group(2)).strip().rstrip(".").strip()
    from rqrag.text.sentences import split_sentences

    text = _MARK_AFTER_STOP.sub(lambda m: f" {m.group(2).strip()}{m.group(1)} ", text).strip()
    parts = [_marked(s) for s in split_sentences(_MARK_THEN_SPACE.sub(r"\1. ", text)) if s.strip(" .")]
    line_marks = parts[-1].cites if parts else ()
    sentences = [WrittenSentence(p.text, p.cites or line_marks) for p in parts if p.text.strip(" .")]
    if not sentences and _MARKS.search(text + " "):
        return "sentence", [WrittenSentence("", _marked(text).cites)]  # only marks: judged as such
    return "sentence", sentences


# "… in 1840. [1] She …": the marks go before the stop ("… in 1840 [1]. She …") so that they stay with their sentence;
# "… in 1840 [1] She …": a mark inside a line ends its sentence, so the sentence splitter sees the boundary.
_MARK_AFTER_STOP = re.compile(r"([.!?…])\s*((?:\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]\s*)+)")
_MARK_THEN_SPACE = re.compile(r"((?:\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\])+)\.?\s+(?=[A-ZÀ-ÖØ-Þ])")


def _marked(sentence: str) -> WrittenSentence:
    text = sentence.strip().rstrip(".").strip()
    marks = _MARKS.search(text + " ")
    if marks is None:
        return WrittenSentence(sentence.strip(), ())
    numbers = tuple(dict.fromkeys(int(n) for n in re.findall(r"\d+", marks.group(1))))
    body = text[: marks.start()].strip()
    if body and body[-1] not in ".!?…":
        body += "."
    return WrittenSentence(body, numbers)


class AnswerWriter:
    def __init__(self, model, check: ClaimCheck, max_tokens: int = 200, max_sentences: int = MAX_SENTENCES):
        """`model`: a chat model of `rqrag.answer.writer_models`; `check`: how each sentence is judged."""
        self.model, self.check = model, check
        self.max_tokens, self.max_sentences = max_tokens, max_sentences

    def write(
        self,
        question: str,
        passages: Sequence[Hit],
        language: str | None,
        on_sentence: Callable[[WrittenSentence], None] | None = None,
    ) -> Written:
        """The checked answer to `question` from `passages` (module docstring); `on_sentence` is called with each
        sentence that passed, as soon as it has."""
        started = time.perf_counter()
        passages = list(passages)
        written = self._attempt(question, passages, language, on_sentence, started, again=False)
        if written.problem in ("only_marks", "no_sentences") and not written.shown:
            retry = self._attempt(question, passages, language, on_sentence, started, again=True)
            retry.attempts = 2
            written = retry
        written.seconds = time.perf_counter() - started
        return written

    def _attempt(self, question, passages, language, on_sentence, started, again: bool) -> Written:
        written = Written(None, [], [], passages)
        pending: list[tuple[WrittenSentence, Future]] = []
        written_so_far = [0]
        reply: list[str] = []
        buffer = ""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="claim-check") as checks:

            def take(line: str) -> None:
                kind, value = parse_line(line)
                if kind == "short" and written.short is None:
                    written.short = value
                elif kind == "sentence":
                    for sentence in value:
                        if written_so_far[0] < self.max_sentences:
                            written_so_far[0] += 1
                            pending.append(
                                (sentence, checks.submit(self._judge, sentence, passages, question, language))
                            )

            def flush_ready() -> None:
                # in order: a sentence is shown once it and every one before it is decided
                while pending and pending[0][1].done():
                    sentence, future = pending.pop(0)
                    self._decided(sentence, future.result(), written, on_sentence, started)

            for piece in self.model.stream(build_messages(question, passages, language, again), self.max_tokens):
                reply.append(piece)
                buffer += piece
                while "\n" in buffer:
                    line, buffer = buffer.split("\n", 1)
                    take(line)
                flush_ready()
            take(buffer)
            for sentence, future in pending:
                self._decided(sentence, future.result(), written, on_sentence, started)
        written.reply = "".join(reply)
        written.problem = _problem(written)
        return written

    def _judge(self, sentence: WrittenSentence, passages: Sequence[Hit], question: str, language) -> ClaimVerdict:
        return judge_sentence(self.check, sentence, passages, question, language)

    @staticmethod
    def _decided(sentence, verdict, written: Written, on_sentence, started) -> None:
        sentence.verdict = verdict
        if verdict.ok:
            written.shown.append(sentence)
            if written.first_sentence_seconds is None:
                written.first_sentence_seconds = round(time.perf_counter() - started, 3)
            if on_sentence is not None:
                on_sentence(sentence)
        else:
            written.dropped.append(sentence)


def judge_sentence(
    check: ClaimCheck, sentence: WrittenSentence, passages: Sequence[Hit], question: str, language
) -> ClaimVerdict:
    """A written sentence's check against the passages it cites. A sentence whose marks are missing, out of range or
    point at the wrong passage (the 1.5B often cites [4] for what [1] says) is checked against each other passage
    alone, and cites the one that supports it: the marks a person reads are the check's, not the model's.
    `question`: what the sentence answers (a question; a review's topic), whose words it may repeat."""
    if not _words(sentence.text):
        return ClaimVerdict(False, "only_marks")
    if not new_content(sentence.text, question, language):
        # "A faixa reservada para o DHCP é." — the question said back, with the answer missing
        return ClaimVerdict(False, "says_nothing")
    valid = bool(sentence.cites) and all(1 <= n <= len(passages) for n in sentence.cites)
    verdict = ClaimVerdict(False, "no_citation" if not sentence.cites else "unknown_passage")
    if valid:
        verdict = check.check(sentence.text, [passages[n - 1] for n in sentence.cites], question, language)
    if verdict.ok or verdict.reason == "judged_unsupported":
        return verdict  # a claim the judge refused is not shopped around other passages
    for number, passage in enumerate(passages, 1):
        if valid and number in sentence.cites:
            continue
        other = check.check(sentence.text, [passage], question, language)
        if other.ok:
            sentence.cites = (number,)
            return other
    return verdict


def model_and_check(config) -> tuple:
    """The chat model a `WritingConfig` names and the claim check it configures (the model reads its cloze or
    judges where the check asks it to)."""
    from rqrag.answer.writer_models import chat_model

    model = chat_model(config.writer, config.writer_base_url, config.writer_model, config.writer_api_key_env)
    judge = model.yes_probability if config.claim_check in ("judge", "align_judge") else None
    ask = model.complete if config.claim_check.endswith("cloze") else None
    return model, ClaimCheck(judge, config.claim_check, config.claim_min_p, ask=ask)


def _words(text: str) -> bool:
    return bool(re.search(r"\w", fold(re.sub(r"\[\s*\d+[^\]]*\]", "", text))))


def _problem(written: Written) -> str | None:
    if written.shown:
        return None
    if written.short is not None and NOT_FOUND_REPLY.match(written.short):
        return "not_found"
    everything = written.dropped
    if everything and all(s.verdict and s.verdict.reason == "only_marks" for s in everything):
        return "only_marks"
    if not everything and written.short is not None and not _words(written.short):
        return "only_marks"
    if not everything:
        return "no_sentences"
    return "all_failed"


def choose_passages(
    question: str,
    hits: Sequence[Hit],
    ranked: Sequence[tuple[float, str]] | None,
    limit: int = 4,
    max_words: int = 90,
    sentences: int = 0,
) -> list[Hit]:
    """The passages the writer reads: those holding the best-ranked sentences (`ranked`: the extractive answerer's
    (score, sentence), best first; None: the hits in order), at most `limit`. Each is cut to about `max_words` words
    around its best sentence, so a long chunk does not crowd the others out of a short prompt; or, with `sentences`,
    to its own sentences among the best `sentences` of all (in reading order, a line between two that are not
    neighbours on the page: `windows` never joins those)."""
    order: list[Hit] = []
    best_sentence: dict[str, str] = {}
    chosen: dict[str, list[str]] = {}
    for _, sentence in ranked or []:
        holder = next((h for h in hits if sentence in h.text), None)
        if holder is None:
            continue
        if holder.docid not in best_sentence and len(order) < limit:
            best_sentence[holder.docid] = sentence
            order.append(holder)
        if holder.docid in best_sentence and sum(map(len, chosen.values())) < sentences:
            chosen.setdefault(holder.docid, []).append(sentence)
        if len(order) >= limit and (not sentences or sum(map(len, chosen.values())) >= sentences):
            break
    for hit in hits:  # too few ranked: the rest in the order found
        if len(order) >= limit:
            break
        if hit.docid not in {h.docid for h in order}:
            order.append(hit)
    if sentences:
        return [_only(h, chosen[h.docid]) if h.docid in chosen else cut_passage(h, None, max_words) for h in order]
    return [cut_passage(h, best_sentence.get(h.docid), max_words) for h in order]


def _only(hit: Hit, sentences: Sequence[str]) -> Hit:
    """`hit` with only `sentences`, in the passage's order: neighbours joined by a space, a gap by a line break."""
    placed = sorted(dict.fromkeys(sentences), key=hit.text.find)
    text = placed[0]
    for before, sentence in zip(placed, placed[1:]):
        between = hit.text[hit.text.find(before) + len(before) : hit.text.find(sentence)]
        text += (" " if not between.strip() else "\n") + sentence
    return replace(hit, text=text)


def cut_passage(hit: Hit, around: str | None, max_words: int) -> Hit:
    """`hit` with its text cut to about `max_words` words, from the sentence before `around` on (whole sentences)."""
    from rqrag.text.sentences import split_sentences

    if len(hit.text.split()) <= max_words:
        return hit
    sentences = split_sentences(hit.text)
    at = next((i for i, s in enumerate(sentences) if around and (s in around or around in s)), 0)
    start = max(at - 1, 0)
    kept: list[str] = []
    for sentence in sentences[start:]:
        if kept and sum(len(s.split()) for s in kept) + len(sentence.split()) > max_words:
            break
        kept.append(sentence)
    return replace(hit, text=" ".join(kept))
