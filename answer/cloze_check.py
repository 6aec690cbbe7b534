"""A claim checked by asking the source to fill it in: each name and number of a written sentence is blanked out in
turn, and the model, reading only the passage sentence the claim rests on, says what goes in the blank. The claim
stands when every blank comes back as the claim had it.

Asked "does the passage state this? yes/no", the 1.5B separates true from false claims barely better than chance
(AUC 0.57 on our labelled pairs, tests/data/claim_pairs): it says yes to a sentence made of the passage's words.
Reading is what it does well, so it is asked to read: for "Ana Lima founded the project in 2011" against "Rui Costa
founded the project in 2011. Ana Lima joined in 2015", the blank in "___ founded the project in 2011" comes back
"Rui Costa", not "Ana Lima". Swapped roles, wrong dates, places and numbers fail this way; a negation the passage does
not have (or lacks) fails before any model is asked (`negation_differs`).

    ok, filled = cloze_supported("Ana Lima founded the project in 2011.", window, "OpenRider", ask, "en")
    filled  ->  [("Ana Lima", "Rui Costa", False)]
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rqrag.answer.claim_terms import name_runs, ordinal
from rqrag.text.text_quality import content_words, fold, identifiers


MAX_BLANKS = 3  # a sentence's first three names or numbers: enough to pin who, what and when
_NUMBER = re.compile(r"(?<![\w/])\d[\d.,:/\-]*\d\w*|(?<![\w/])\d\w*")  # 1954, 10.0.2.2, 13th
_NEGATION = {
    "en": re.compile(
        r"\b(not|never|no|none|neither|nor|cannot|can't|don't|doesn't|didn't|isn't|wasn't|weren't|aren't|won't)\b",
        re.I,
    ),
    "pt": re.compile(r"\b(não|nao|nunca|nenhum|nenhuma|nem|jamais)\b", re.I),
}
# A people's adjective (Indian, American, Chinese, Scottish): a property, not a name to read back. Asked "Tata is an
# ___ company", the 1.5B says "not stated" as often as "Indian".
_DEMONYM = re.compile(r"^[A-ZÀ-ÖØ-Þ][a-zà-ÿ]+(ian|ean|can|ese|ish)$")
_CAPITALS = re.compile(r"\b[A-ZÀ-ÖØ-Þ]{1,5}\b")  # an operator or acronym: E, OU, LDAP, DNS
_UNKNOWN = re.compile(
    r"^\W*(not stated|unknown|none|n/a|não (consta|diz|está)|nao (consta|diz|esta)|desconhecido)", re.I
)

PROMPTS = {
    "en": {
        "system": "You fill in a blank using only the source. Reply with the exact words from the source that go in "
        "the blank, nothing else. If the source does not say, reply: not stated",
        "task": "Source ({title}): {window}\n\nSentence: {cloze}\n\nWhat goes in the blank ___ according to the source?",
    },
    "pt": {
        "system": "Você preenche uma lacuna usando apenas a fonte. Responda só com as palavras exatas da fonte que vão "
        "na lacuna, nada mais. Se a fonte não diz, responda: não consta",
        "task": "Fonte ({title}): {window}\n\nFrase: {cloze}\n\nO que vai na lacuna ___ segundo a fonte?",
    },
}


def blanks(sentence: str, asked: str = "", known: str = "") -> list[tuple[int, int]]:
    """Spans of the sentence's names and numbers to blank out, in order, at most `MAX_BLANKS`; names the question
    already gives are skipped (they are what the claim is about, not what it claims), and a function word that opens
    the sentence ("The", "Para") is not a name."""
    asked_words = set(content_words(asked))
    spans: list[tuple[int, int]] = []
    runs = name_runs(sentence, known) + [m for m in _CAPITALS.finditer(sentence) if m.start() > 0]
    for match in runs + list(_NUMBER.finditer(sentence)):
        words = content_words(match.group(0)) or [fold(match.group(0))]
        if set(words) <= asked_words or _DEMONYM.match(match.group(0)):
            continue
        if any(s <= match.start() < e or match.start() <= s < match.end() for s, e in spans):
            continue
        spans.append((match.start(), match.end()))
    return sorted(spans)[:MAX_BLANKS]


def negation_differs(sentence: str, window: str, language: str | None) -> bool:
    """Whether the sentence says "not" (never, não, nunca ...) where its window does not, or drops a "not" the window
    puts on what the sentence says: a window's negation counts when one of the sentence's words follows it closely
    ("was not issued" against "was issued"), not when it negates something else of the window ("… (que não permite
    acesso de grupo)" under "a umask do Debian é 022")."""
    pattern = _NEGATION.get(language or "en", _NEGATION["en"])
    if pattern.search(sentence):
        return not pattern.search(window)
    said = {w[:5] for w in content_words(sentence)}
    for match in pattern.finditer(window):
        following = content_words(" ".join(window[match.end() :].split()[:3]))
        if any(w[:5] in said for w in following):
            return True
    return False


def same_thing(claimed: str, filled: str) -> bool:
    """Whether the filled blank names what the claim had: its numbers equal, and its words mostly shared (by their
    first five letters: "Ghana's" is "Ghana")."""
    if _UNKNOWN.match(filled.strip()):
        return False
    want_numbers = {ordinal(t) for t in identifiers(claimed)}
    got_numbers = {ordinal(t) for t in identifiers(filled)}
    if want_numbers and not want_numbers <= got_numbers:
        return False
    want = {w[:5] for w in content_words(claimed) if not w[:1].isdigit()}
    got = {w[:5] for w in content_words(filled) if not w[:1].isdigit()}
    if not want:  # a name made of function words only ("E", "OU" in a manual): spelled the same, or not
        return " ".join(fold(claimed).split()) == " ".join(fold(filled).split())
    return len(want & got) / len(want) >= 0.5


def cloze_supported(
    sentence: str,
    window: str,
    title: str,
    ask: Callable[[list[dict], int], str],
    language: str | None = None,
    question: str = "",
) -> tuple[bool, list[tuple[str, str, bool]]]:
    """(whether every blank came back as claimed, [(claimed, filled, same) ...]); `ask(messages, max_tokens)` is the
    model's greedy reply. A sentence with no name or number to blank passes here (its words were aligned already)."""
    words = PROMPTS.get(language or "en", PROMPTS["en"])
    filled: list[tuple[str, str, bool]] = []
    for start, end in blanks(sentence, question, window):
        cloze = sentence[:start] + "___" + sentence[end:]
        task = words["task"].format(title=title or "-", window=window.strip(), cloze=cloze)
        reply = ask([{"role": "system", "content": words["system"]}, {"role": "user", "content": task}], 16)
        reply = reply.strip().split("\n", 1)[0].strip().strip('"“”.').strip()
        # a name copied from the sentence around the blank is the model reading the cloze, not the source: it tells
        # nothing either way (a swapped role is the order check's to catch, in `ordered_cloze`)
        elsewhere = sentence[:start] + " " + sentence[end:]
        copied = (
            content_words(reply)
            and not _UNKNOWN.match(reply)
            and same_thing(reply, elsewhere)
            and same_thing(reply, window)
        )
        same = same_thing(sentence[start:end], reply) or bool(copied)
        filled.append((sentence[start:end], reply, same))
        if not same:
            break  # one blank read otherwise is enough to refuse: the rest are not asked
    return all(s for _, _, s in filled), filled
