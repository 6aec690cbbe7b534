"""The short answers a sentence can give: every name, title, date, number and quoted phrase in it, as verbatim spans.

The reader (`rqrag.answer.reading.span_reader`) scores these spans; it never writes text of its own, so whatever it shows is
in the evidence word for word. What counts as a span is deliberately generous, and the learned span scorer decides:

* a **name run** — capitalised words, joined by the small words names hold ("Chief of Protocol of the United
  States", "Universidade de São Paulo"), and every shorter run of it that starts and ends on a capitalised word
  ("Chief of Protocol", "United States");
* a **date** — "August 16, 1954", "16 de julho de 2001", "March 1990", a year;
* a **number** — digits with what they count ("3.5 million", "120 species", "R$ 3,50"), or a number word;
* a **quoted phrase** — "Kiss and Tell", «Ferramentas»;
* an **identifier** — an address, a path, a version, a command's option: what a manual's answers often are.

    candidate_spans("Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.")
    # -> ["Kiss", "Kiss and Tell", "1945", "American", "Shirley Temple", "Corliss Archer", ...]
"""

from __future__ import annotations

import re

from rqrag.text.text_quality import IDENTIFIER, fold


# Small words inside names, titles and positions (en, pt, and the particles of European names).
CONNECTORS = frozenset(
    "of the and for on in at to von van der den de da do das dos e y la le les du del della di".split()
)
# A sentence's first word is capitalised because it opens the sentence: these never start a name there.
_OPENERS = frozenset(
    """the a an in on at it its he she they this that these those his her their there as after before during
    when while however although o a os as um uma no na nos nas em ele ela eles elas este esta isso isto esse essa
    seu sua para por com quando depois antes""".split()
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro"
)
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:de\s+)?(?:{_MONTHS})(?:,?\s+(?:de\s+)?\d{{4}})?"
    rf"|(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    rf"|(?:{_MONTHS})(?:\s+de)?\s+\d{{4}}"
    r"|\d{4}s?)\b",
    re.I,
)
_SCALE = (
    r"million|billion|thousand|hundred|percent|per cent|milhões|milhão|mil|bilhões|por cento|%|km|kilometres|"
    r"kilometers|miles|metres|meters|m|feet|ft|kg|people|inhabitants|habitantes|species|espécies|years|anos|"
    r"episodes|seasons|members|students|copies|votes|acres|hectares|square miles|sq mi|km2|km²|gb|mb|kb|minutes|"
    r"minutos|horas|hours|seconds|segundos|dias|days|caracteres|characters"
)
# A minus sign belongs to the number ("a timeout of -1"), a hyphen between numbers ("10-20") does not.
_NUMBER = re.compile(rf"(?:(?:US)?\$|R\$|€|£)?\s?(?:(?<![\w.-])[-−](?=\d))?\b\d[\d,.]*(?:\s+(?:{_SCALE})\b)?", re.I)
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"dois|duas|três|tres|quatro|cinco|seis|sete|oito|nove|dez)\b(?:\s+(?:" + _SCALE + r")\b)?"
    # Portuguese "um"/"uma" is the article far more often than the number: a number only before what it counts
    r"|\b(?:um|uma)\s+(?:" + _SCALE + r")\b",
    re.I,
)
_QUOTED = re.compile(r"[\"“«]([^\"”»]{2,80})[\"”»]")
_WORD = re.compile(r"[\w'’.&-]+", re.UNICODE)
MAX_NAME_WORDS = 10  # a run longer than this is a heading or a list of names, not one answer


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def name_runs(sentence: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of each run of capitalised words (with connectors inside) in `sentence`."""
    tokens = [(m.start(), m.end(), m.group().rstrip(".,'’")) for m in _WORD.finditer(sentence)]
    runs: list[tuple[int, int]] = []
    current: list[tuple[int, int, str]] = []

    def close():
        while current and not _capitalised(current[-1][2]):
            current.pop()  # a run ends on a name word, not on "of"
        if current:
            runs.append((current[0][0], current[0][0] + len(sentence[current[0][0] : current[-1][1]].rstrip(".,"))))
        current.clear()

    for index, (start, end, word) in enumerate(tokens):
        gap = sentence[tokens[index - 1][1] : start] if index else ""
        if current and gap.strip():  # punctuation between words ends a name ("Paris, France" is two)
            close()
        if _capitalised(word) and not (index == 0 and fold(word) in _OPENERS):
            current.append((start, end, word))
        elif current and fold(word) in CONNECTORS:
            current.append((start, end, word))
        else:
            close()
    close()
    return runs


def _sub_runs(text: str) -> list[str]:
    """Every run of `text`'s words that starts and ends on a capitalised word (itself included)."""
    words = text.split()
    if len(words) > MAX_NAME_WORDS:
        return []
    capital = [i for i, w in enumerate(words) if _capitalised(w)]
    out = []
    for a in capital:
        for b in capital:
            if b >= a:
                out.append(" ".join(words[a : b + 1]))
    return out


def candidate_spans(sentence: str, title: str = "") -> list[str]:
    """Every short answer `sentence` can give (module docstring), verbatim, each once, in order of appearance;
    plus the passage's `title` when the sentence names it (a passage's subject is often the answer)."""
    found: list[tuple[int, str]] = []
    for start, end in name_runs(sentence):
        for span in _sub_runs(sentence[start:end]):
            found.append((start + sentence[start:end].find(span), span))
    for pattern in (_DATE, _NUMBER, _NUMBER_WORDS):
        for m in pattern.finditer(sentence):
            found.append((m.start(), m.group().strip(" ,.")))
    for m in _QUOTED.finditer(sentence):
        found.append((m.start(1), m.group(1).strip()))
    for m in IDENTIFIER.finditer(sentence):
        token = m.group().strip(" ,;:.()\"'“”")
        if len(token) > 1:
            found.append((m.start(), token))
    if title and fold(title) in fold(sentence):
        found.append((fold(sentence).find(fold(title)), title))
    seen: dict[str, str] = {}
    for _, span in sorted(found, key=lambda p: p[0]):
        key = fold(span)
        if span and key not in seen and len(span) <= 120:
            seen[key] = span
    return list(seen.values())
