"""Put accents back on their letters: PDF text from LaTeX documents often carries each accent as its own character.

pdflatex with the default OT1 font encoding (no `\\usepackage[T1]{fontenc}`, as in many Brazilian theses and
articles) draws "ç" as a cedilla glyph next to a "c", "ã" as a tilde over an "a", "í" as an acute over a dotless
"ı". Extractors (pypdfium2, pypdf) return those glyphs as spacing characters in front of the letter:

    "Introdu¸c˜ao"  "m´usica"  "Vocˆe"  "ci^encia"        (what the PDF's text layer gives)

and Unicode compatibility normalisation (NFKC, which cleaning applies for ligatures) turns each spacing accent into
a space plus a combining mark, splitting the word for good: "m ́usica" is indexed as "m" and "usica". BM25, the
embedder and the quote scorer then never see "música".

`recompose_accents` joins a spacing or combining accent to the letter it belongs to — the following one, which is
where OT1 text puts it; the preceding one when nothing follows ("c¸" from other producers) — but only when the pair
composes to one precomposed letter (NFC), so a tilde in "~/.bashrc" or an acute quote mark in code stays as it is.
`broken_words` counts what is left to fix: the measure the ingestion tests and `scripts/compare_pdf_extractors.py` report.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable


# Spacing forms of accents, as PDF text layers give them, and the combining mark each stands for.
SPACING_ACCENTS = {
    "\u00b4": "\u0301",  # ´ acute
    "\u02ca": "\u0301",  # ˊ modifier acute
    "\u02cb": "\u0300",  # ˋ modifier grave
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ small tilde
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02da": "\u030a",  # ˚ ring
    "\u02c7": "\u030c",  # ˇ caron
    "\u00af": "\u0304",  # ¯ macron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u02db": "\u0328",  # ˛ ogonek
}
# The ASCII grave is OT1's grave accent too ("`a" for "à"), but also a code quote: only taken as an accent before
# a lone vowel, or "as"/"os" ("à", "às"), never inside a word such as "`apt".
_ASCII_GRAVE = re.compile(r"`([aeiouAEIOU])(?=s?(?![^\W\d_]))")
_COMBINING = "\u0300-\u036f"
_SPACING = "".join(SPACING_ACCENTS)
_LETTER = r"[^\W\d_]"
# accent (spacing, or a combining mark left alone after a space) then the letter it sits on; the dotless i of
# LaTeX's \'{\i} counts as an i
_BEFORE = re.compile(rf"(?:([{_SPACING}])|(?:\s|^)([{_COMBINING}]))\s?({_LETTER})")
_AFTER = re.compile(rf"({_LETTER})\s?([{_SPACING}])")
_ORPHAN = re.compile(rf"[{_SPACING}]|(?:\s|^)[{_COMBINING}]")
# poppler's pdftotext writes OT1's "í" as a dotless i followed by a combining acute ("visı́veis"), a pair NFC keeps
# apart (Unicode has no precomposed dotless i with an accent): the word never matches "visíveis".
_DOTLESS_MARKED = re.compile(rf"\u0131([{_COMBINING}])")


# Marks that also serve as apostrophes or quotes ("rock´n´roll") only compose with the letters they accent in
# Latin-script languages: vowels, and n under a tilde.
_VOWELS = set("aeiouyAEIOUY")
_ONLY_ON = {"\u0301": _VOWELS, "\u0300": _VOWELS, "\u0302": _VOWELS, "\u0308": _VOWELS, "\u0303": _VOWELS | set("nN")}


def _composed(letter: str, mark: str) -> str | None:
    """The single precomposed character of `letter` + combining `mark`, or None when Unicode has none (or when the
    mark does not accent that letter in Latin-script text)."""
    if letter == "\u0131":  # dotless i (LaTeX's \i under an accent)
        letter = "i"
    if mark in _ONLY_ON and letter not in _ONLY_ON[mark]:
        return None
    joined = unicodedata.normalize("NFC", letter + mark)
    return joined if len(joined) == 1 else None


def recompose_accents(text: str) -> str:
    """`text` with separated accents joined to their letters, in NFC. Text without such accents is only NFC'd."""
    if not _ORPHAN.search(text) and "`" not in text and "\u0131" not in text:
        return unicodedata.normalize("NFC", text)

    def before(match: re.Match) -> str:
        mark = SPACING_ACCENTS.get(match.group(1) or "", match.group(2) or "")
        return _composed(match.group(3), mark) or match.group(0)

    def after(match: re.Match) -> str:
        return _composed(match.group(1), SPACING_ACCENTS[match.group(2)]) or match.group(0)

    def grave(match: re.Match) -> str:
        return _composed(match.group(1), "\u0300") or match.group(0)

    text = _DOTLESS_MARKED.sub(lambda m: _composed("\u0131", m.group(1)) or m.group(0), text)
    text = _BEFORE.sub(before, unicodedata.normalize("NFC", text))
    text = _AFTER.sub(after, text)  # what had no letter after it ("c¸ ã" from other producers)
    text = _ASCII_GRAVE.sub(grave, text)
    return unicodedata.normalize("NFC", text)


def broken_words(text: str) -> int:
    """How many accents in `text` stand apart from a letter (a spacing accent, or a combining mark after a space):
    each one is a word split in two for search."""
    return len(_ORPHAN.findall(unicodedata.normalize("NFC", text)))


Box = tuple[float, float, float, float]  # left, bottom, right, top (PDF points, y up)


def stray_accents(text: str) -> list[int]:
    """Indices of spacing accents with no letter right after them (one space allowed): the ones a text layer put
    out of reading order ("E necessário ... con- ´"), which only their position on the page can place."""
    strays = []
    for i, char in enumerate(text):
        if char in SPACING_ACCENTS:
            following = text[i + 1 : i + 3].lstrip(" ")[:1]
            if not (following.isalpha() and _composed(following, SPACING_ACCENTS[char])):
                strays.append(i)
    return strays


def accent_targets(text: str, strays: list[int], box: Callable[[int], Box], reach: int = 300) -> dict[int, int]:
    """For each stray accent, the index of the letter it is drawn on: the letter within `reach` characters whose
    box spans the accent's centre horizontally and lies nearest below it (acute, tilde...) or above it (cedilla,
    ogonek), at most one letter height away. Accents with no such letter are left out."""
    targets = {}
    for i in strays:
        left, bottom, right, top = box(i)
        centre = (left + right) / 2
        below = SPACING_ACCENTS[text[i]] in ("\u0327", "\u0328")  # cedilla and ogonek hang under their letter
        best, best_gap = None, None
        for j in range(max(0, i - reach), min(len(text), i + reach)):
            if j == i or not text[j].isalpha() or not _composed(text[j], SPACING_ACCENTS[text[i]]):
                continue
            l2, b2, r2, t2 = box(j)
            if not l2 <= centre <= r2:
                continue
            gap = (b2 - top) if below else (bottom - t2)
            if -0.5 * (t2 - b2) <= gap <= (t2 - b2) and (best_gap is None or abs(gap) < abs(best_gap)):
                best, best_gap = j, gap
        if best is not None:
            targets[i] = best
    return targets


def place_accents(text: str, targets: dict[int, int], drop: set[int] | frozenset[int] = frozenset()) -> str:
    """`text` with each accent of `targets` removed from where it stood and composed onto its letter, and the
    characters at the `drop` indices left out (indices are the original text's)."""
    chars = list(text)
    for accent, letter in targets.items():
        composed = _composed(chars[letter], SPACING_ACCENTS[text[accent]])
        if composed is not None:
            chars[letter], chars[accent] = composed, ""
    for i in drop:
        chars[i] = ""
    return "".join(chars)
