"""An answer as a terminal prints it (`rqrag ask`): the answer first, then what it stands on, in the answer's own
language, every phrase from the message table (`messages.py`).

    print("\n".join(headline(answer)))      # an answer the tree decided
    print("\n".join(written_lines(answer))) # a written answer: short answer, checked sentences, their sources

A quoted answer is a passage no model confirmed (the verifier found no answer sure enough to state), so it is
printed as the closest passage, never after the answer's label: a person must not read "He represents Paris…" as
the answer to "What is the capital of France?".
"""

from __future__ import annotations

from rqrag.answer.messages import AnswerKind, Message, said
from rqrag.retrieval.citations import cite_pages


def cite_source(source: dict) -> str:
    """A source dict's name (its file for a chunk of the user's documents), with its page span when it has one."""
    name = source.get("file") or source.get("title") or source.get("docid", "")
    if "page_start" not in source:
        return name
    return f"{name} {cite_pages(range(source['page_start'], source['page_end'] + 1))}"


def headline(answer) -> list[str]:
    """What is printed first for an answer the model decided: the answer and what it stands on."""
    language = getattr(answer, "language", None)
    cited = next((s for s in answer.sources if s.get("cited")), None)
    where = f" — {cite_source(cited)}" if cited else ""
    chance = "" if answer.confidence is None else f"{answer.confidence:.0%}"
    guess = repr(answer.grounded.generated if answer.grounded else None)
    if answer.kind is AnswerKind.WRITTEN:
        return written_lines(answer)
    if answer.kind is AnswerKind.QUOTED:
        return [
            said(Message.CLOSEST_PASSAGE, language),
            f"  “{answer.text}”{where}",
            "  " + said(Message.TOO_UNSURE, language, guess=guess, chance=chance),
        ]
    lines = [said(Message.ANSWER_LINE, language, answer=answer.text)]
    quote = answer.grounded.quote_dict() if answer.grounded else None
    if quote and quote["text"] != answer.text:  # the sentence that states it, read after the short answer
        lines.append(f"  “{quote['text']}” — {cite_source(quote)}")
    if answer.kind is AnswerKind.GENERATED and answer.grounded and answer.grounded.read_by_model:
        note = said(Message.READ_BY_MODEL, language, model=answer.grounded.verifier, where=where, chance=chance)
    elif answer.kind is AnswerKind.GENERATED:
        note = said(Message.VERIFIED, language, chance=chance, where=where)
    elif answer.kind is AnswerKind.UNSOURCED:
        note = said(Message.OWN_KNOWLEDGE_NOTE, language, chance=chance)
    else:
        note = said(Message.TREE_GUESS, language, guess=guess, chance=chance)
    return [*lines, "  " + note]


def written_lines(answer) -> list[str]:
    """A written answer: the short answer first, the checked sentences with their [n] marks, then each cited
    source's sentence, verbatim, with where it is."""
    language = getattr(answer, "language", None)
    lines = [said(Message.ANSWER_LINE, language, answer=answer.short_answer), ""] if answer.short_answer else []
    body = answer.text.split("\n\n", 1)[-1] if answer.short_answer else answer.text
    lines.append(body)
    for number, source in enumerate(answer.sources, 1):
        if source.get("cited") and source.get("quote"):
            lines.append(f"  [{number}] “{source['quote']}” — {cite_source(source)}")
    lines.append("  " + said(Message.WRITTEN_NOTE, language))
    return lines


def quoted_without_model(answer) -> list[str]:
    """An answer quoted from the evidence with no model run (`--answerer extractive`)."""
    language = getattr(answer, "language", None)
    lines = [said(Message.ANSWER_LINE, language, answer=answer.text)]
    cited = next((s for s in answer.sources if s.get("cited")), None)
    if cited:
        lines.append("  " + said(Message.QUOTED_WITHOUT_MODEL, language, where=cite_source(cited)))
    return lines
