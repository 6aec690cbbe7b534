"""A reader that is a language model: the short answer, and the numbers of the evidence sentences that state it.

The tree finds the right page far more often than a 135M model can say what is on it. Here a larger instruct model
(Qwen2.5-Coder-1.5B or 0.5B, GGUF on llama.cpp: `rqrag.gguf_files`) reads the best sentences of everything found —
every passage any path read and the question's own search, ranked by the extractive answerer's score — numbered,
each after its page's title, and replies in two lines:

    Sentence: 2
    Answer: Paris

or `Answer: none` when the sentences do not state it. What a person reads is decided from that reply
(`rqrag.answer.reading.model_decision`): the answer, then the cited sentence *as it stands in the evidence* (never the
model's words), shown only when that sentence holds the answer; otherwise the library does not hold it.

    reader = ModelReader("qwen2.5-1.5b")
    reading = reader.read("Which river flows through Lisbon?", hits, "en", rank=pipeline.readers.rank_sentences("en"))
    reading.answer, reading.p, reading.cited, reading.seconds

`p` is the probability the model gave its own answer's tokens (greedy, so the most likely answer), the product over
the answer's tokens. Prompts are written for this task in each language the assistant answers in (en, pt); a
question that opens with an auxiliary verb ("Is", "Were", "Did") gets the yes/no wording: asked with a yes/no hint in
the general prompt, the 1.5B answered "yes" to a third of the questions that are not yes/no.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rqrag.retrieval.base import Hit


MAX_SENTENCE_WORDS = 80  # a longer "sentence" (a table, a list run together) is cut for the prompt only
READER_CONTEXT = 4096
READER_MAX_TOKENS = 32
_YES_NO = re.compile(
    r"^(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may|might)\b", re.IGNORECASE
)
_NONE = re.compile(r"^\s*(none|nenhuma|nenhum|n/a|not (stated|given|found|in)|não (consta|há|está))", re.IGNORECASE)

# The instructions, in our own words, per language: the model sees numbered sentences, never whole pages, and one
# worked example of the reply (without it the 0.5B and 1.5B wrote whole sentences and dropped the numbers line).
PROMPTS = {
    "en": {
        "system": "You answer a question from numbered sentences only, never from your own knowledge. Reply in "
        "two lines: first the number of the sentence that states the answer, then the answer itself in as few words "
        "as possible (a name, a date, a number or a short phrase, not a sentence). If no sentence states the "
        "answer, reply with the single line: Answer: none\n\nExample:\nSentences:\n[1] (Kew Gardens) Kew Gardens "
        "is a botanical garden in southwest London.\n[2] (Kew Palace) Kew Palace is the smallest of the British "
        "royal palaces.\nQuestion: In which city is Kew Gardens?\nReply:\nSentence: 1\nAnswer: London",
        "task": "Question: {question}\nReply:",
        "yes_no": "Question: {question}\n(Answer yes or no.)\nReply:",
        "header": "Sentences:",
    },
    "pt": {
        "system": "Você responde a uma pergunta apenas com frases numeradas, nunca com o que você mesmo sabe. "
        "Responda em duas linhas, em português: primeiro o número da frase que dá a resposta, depois a própria "
        "resposta com o mínimo de palavras (um nome, uma data, um número ou uma expressão curta, com as palavras da "
        "frase). Se nenhuma frase dá a resposta, responda com a única linha: Resposta: nenhuma\n\nExemplo:\n"
        "Frases:\n[1] (Manual) Para salvar o arquivo, escolha Arquivo > Salvar.\n[2] (Manual) O menu Exibir "
        "controla as barras.\nPergunta: Como salvo o arquivo?\nResposta em duas linhas:\nFrase: 1\n"
        "Resposta: escolha Arquivo > Salvar",
        "task": "Pergunta: {question}\nResposta em duas linhas:",
        "yes_no": "Pergunta: {question}\n(Responda sim ou não.)\nResposta em duas linhas:",
        "header": "Frases:",
    },
}
# Asked only when nothing read states the answer: the model's own answer, or "unknown".
RECALL = {
    "en": "Answer the question from your own knowledge, in as few words as possible (a name, a date, a number). If "
    "you do not know, reply: unknown",
    "pt": "Responda à pergunta com o que você sabe, com o mínimo de palavras (um nome, uma data, um número), em "
    "português. Se não souber, responda: desconhecido",
}
# The check of a found answer against the sentence that is to be quoted under it, as a yes/no question.
VERIFY = {
    "en": "You check whether sentences answer a question. Reply with one word: yes or no.",
    "pt": "Você verifica se frases respondem a uma pergunta. Responda com uma palavra: sim ou não.",
}
VERIFY_TASK = {
    "en": 'Sentences:\n{sentences}\nQuestion: {question}\nDo these sentences show that the answer is "{answer}"?',
    "pt": 'Frases:\n{sentences}\nPergunta: {question}\nEstas frases mostram que a resposta é "{answer}"?',
}
_UNKNOWN = re.compile(r"^\s*(unknown|desconhecido|i don.t know|não sei)", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^\s*\**\s*(answer|resposta)\s*\**\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_SENTENCES_LINE = re.compile(r"^\s*\**\s*(sentences?|frases?)\s*\**\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Numbered:
    """One sentence as the model sees it: its number, text, and the passage it comes from."""

    number: int
    text: str
    hit: Hit
    rank: int  # its place in the extractive ranking (0: the best)


@dataclass
class ModelReading:
    """The model's reply, parsed: `answer` None when it says the sentences do not state one."""

    question: str
    language: str
    sentences: list[Numbered]
    reply: str
    answer: str | None
    cited: list[Numbered] = field(default_factory=list)
    p: float = 0.0
    yes_no: bool = False
    seconds: float = 0.0
    prompt_tokens: int = 0

    def to_dict(self) -> dict:
        return {
            "text": self.answer or "",  # as a verifier candidate's: the report's calibration reads it
            "answer": self.answer,
            "p": round(self.p, 4),
            "cited": [s.number for s in self.cited],
            "reply": self.reply,
            "sentences_read": len(self.sentences),
            "seconds": round(self.seconds, 3),
        }


def is_yes_no(question: str) -> bool:
    return bool(_YES_NO.match(question.strip()))


def _language(language: str | None) -> str:
    return language if language in PROMPTS else "en"


def number_sentences(hits: Sequence[Hit], ranked: Sequence[tuple[float, str]] | None, limit: int) -> list[Numbered]:
    """The best `limit` sentences (by `ranked`, the extractive answerer's (score, sentence) list, best first; None:
    every sentence in reading order), each once, numbered in reading order: grouped by passage, passages in the order
    the tree read them, so a page's sentences stay together as the page tells them."""
    if ranked is None:
        from rqrag.text.sentences import split_sentences

        ranked = [(0.0, s) for hit in hits for s in split_sentences(hit.text)]
    chosen: list[tuple[int, str, Hit]] = []
    seen: set[str] = set()
    for rank, (_, sentence) in enumerate(ranked):
        if sentence in seen:
            continue
        holder = next((h for h in hits if sentence in h.text), None)
        if holder is None:
            continue
        seen.add(sentence)
        chosen.append((rank, sentence, holder))
        if limit and len(chosen) >= limit:
            break
    order = {h.docid: i for i, h in enumerate(hits)}
    chosen.sort(key=lambda c: (order.get(c[2].docid, len(order)), c[2].text.find(c[1])))
    return [Numbered(k + 1, text, hit, rank) for k, (rank, text, hit) in enumerate(chosen)]


def build_messages(question: str, sentences: Sequence[Numbered], language: str) -> list[dict]:
    words = PROMPTS[_language(language)]
    lines = [words["header"]]
    for s in sentences:
        text = " ".join(s.text.split()[:MAX_SENTENCE_WORDS])
        title = (s.hit.title or "").strip()
        lines.append(f"[{s.number}] ({title}) {text}" if title else f"[{s.number}] {text}")
    task = words["yes_no" if is_yes_no(question) else "task"].format(question=question.strip())
    return [
        {"role": "system", "content": words["system"]},
        {"role": "user", "content": "\n".join(lines) + "\n" + task},
    ]


def parse_reply(reply: str, sentences: Sequence[Numbered]) -> tuple[str | None, list[Numbered]]:
    """(answer or None, cited sentences) from the model's two lines; a reply without an `Answer:` line is read as
    the answer itself on its first line."""
    found = _ANSWER_LINE.search(reply)
    answer = (found.group(2) if found else reply.strip().split("\n", 1)[0]).strip().strip("*").strip()
    answer = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]\s*$", "", answer).rstrip(" .;").strip()  # a trailing "[2]"
    numbers = []
    cited_line = _SENTENCES_LINE.search(reply)
    if cited_line:
        numbers = [int(n) for n in re.findall(r"\d+", cited_line.group(2))]
    by_number = {s.number: s for s in sentences}
    cited = [by_number[n] for n in dict.fromkeys(numbers) if n in by_number]
    if not answer or _NONE.match(answer):
        return None, cited
    return answer, cited


def answer_probability(reply_tokens, answer: str | None) -> float:
    """exp(sum of logprobs) over the tokens that spell the answer after `Answer:`/`Resposta:` (0 when none)."""
    if not answer or not reply_tokens:
        return 0.0
    text = ""
    spans = []
    for token in reply_tokens:
        spans.append((len(text), token))
        text += token.text
    colon = text.find(":")
    begin = text.find(answer, colon + 1 if colon >= 0 else 0)
    if begin < 0:
        return 0.0
    end = begin + len(answer)
    logprob = sum(t.logprob for at, t in spans if at < end and at + len(t.text) > begin)
    return math.exp(logprob)


class ModelReader:
    """Reads a question's pooled evidence with a GGUF chat model (module docstring). `model`: a key of
    `rqrag.gguf_files.SPLIT_MODELS` or a .gguf path; `sentences`: how many of the best sentences it reads."""

    def __init__(self, model: str = "qwen2.5-1.5b", sentences: int = 12, engine=None):
        self.model = model
        self.sentences = sentences
        self._engine = engine

    @property
    def engine(self):
        if self._engine is None:
            self._engine = _engine(self.model)
        return self._engine

    @property
    def name(self) -> str:
        return self.model.rsplit("/", 1)[-1]

    def read(
        self,
        question: str,
        hits: Sequence[Hit],
        language: str | None,
        rank: Callable[[str, Sequence[Hit]], list[tuple[float, str]] | None] | None = None,
    ) -> ModelReading:
        language = _language(language)
        ranked = rank(question, hits) if rank is not None and hits else None
        sentences = number_sentences(hits, ranked, self.sentences)
        if not sentences:
            return ModelReading(question, language, [], "", None, yes_no=is_yes_no(question))
        started = time.perf_counter()
        reply = self.engine.chat(build_messages(question, sentences, language), max_tokens=READER_MAX_TOKENS)
        answer, cited = parse_reply(reply.text, sentences)
        return ModelReading(
            question,
            language,
            sentences,
            reply.text,
            answer,
            cited,
            answer_probability(reply.tokens, answer),
            is_yes_no(question),
            time.perf_counter() - started,
            reply.prompt_tokens,
        )

    def verify(self, question: str, answer: str, sentences: Sequence[str], language: str | None) -> float:
        """p(yes) that `sentences` (the quote first, then what else the answer stands on) show `answer` to be the
        answer to `question`, asked of the same model: an answer that is merely *in* a sentence ("Lyon" in a sentence
        about France's second city) is not thereby its answer."""
        language = _language(language)
        listed = "\n".join(f"- {' '.join(s.split()[:MAX_SENTENCE_WORDS])}" for s in sentences)
        task = VERIFY_TASK[language].format(question=question.strip(), sentences=listed, answer=answer)
        messages = [{"role": "system", "content": VERIFY[language]}, {"role": "user", "content": task}]
        reply = self.engine.chat(messages, max_tokens=2)
        first = next((t for t in reply.tokens if t.text.strip()), None)
        if first is None:
            return 0.0
        p = math.exp(first.logprob)
        said_yes = first.text.strip().lower().strip(".") in ("yes", "sim")
        return p if said_yes else 1.0 - p

    def recall(self, question: str, language: str | None) -> tuple[str | None, float]:
        """(the model's own short answer or None when it says it does not know, its probability): asked without
        evidence, for a question nothing read answers (`model_decision`: shown labelled, never as found)."""
        language = _language(language)
        messages = [{"role": "system", "content": RECALL[language]}, {"role": "user", "content": question.strip()}]
        reply = self.engine.chat(messages, max_tokens=16)
        text = reply.text.strip().split("\n", 1)[0].strip().rstrip(".").strip()
        if not text or _UNKNOWN.match(text):
            return None, 0.0
        return text, math.exp(sum(t.logprob for t in reply.tokens if t.text.strip()))


@functools.lru_cache(maxsize=2)
def _engine(model: str):
    """One llama.cpp engine per reader model per process (loading the 1.5B takes ~1 s from the page cache)."""
    from rqrag.gguf_files import gguf_path
    from rqrag.inference.backends.llamacpp import LlamaCppEngine

    return LlamaCppEngine(gguf_path(model), n_ctx=READER_CONTEXT, parallel=1)
