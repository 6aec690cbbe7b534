"""The languages the assistant writes in, and the one rule for a text whose language cannot be told.

    question_language("Qual é o endereço IP do servidor?")             ->  "pt"
    question_language("10.0.2.2")                                       ->  "en"  (DEFAULT_LANGUAGE)
    question_language("10.0.2.2", default="pt")                         ->  "pt"
    question_language("¿Dónde está el servidor de la escuela?")         ->  "es"
    question_language("¿Dónde está el servidor de la escuela?", default="pt", among=ANSWER_LANGUAGES)  ->  "pt"

Two sets of languages, on purpose:

- `ANSWER_LANGUAGES`: the languages the assistant has wording for — prompted mode's instructions
  (`rqrag.inference.decoding.prompt_text`), the not-found message, the memory decision's prompts and date words
  (`rqrag.serve.memory`), the literature review's instructions. Each of those tables has one entry per code here.
- BM25's analyzers (`rqrag.retrieval.bm25.SUPPORTED_LANGUAGES`): the languages a library's text can be indexed in,
  and so the languages `rqrag.ingest.language` may detect in a document. A library in Swedish is indexed as Swedish
  and answered with English wording.

The fallback rule: when a text's language cannot be told (too short, no function words, a language without
wording), the caller's `default` is used, and that default is DEFAULT_LANGUAGE unless the caller passes its own.
English is the default because the trained models, BM25's analyzer without a language and every benchmark are
English. A caller that knows its users better says so explicitly (the chat's memory prompts default to Portuguese,
the language of the chat page's users), so the rule is visible at the call instead of hidden in a constant.
"""

from __future__ import annotations

from collections.abc import Collection

from rqrag.text.text_quality import guess_language


DEFAULT_LANGUAGE = "en"
ANSWER_LANGUAGES = ("pt", "en")


def question_language(
    text: str,
    given: str | None = None,
    default: str = DEFAULT_LANGUAGE,
    among: Collection[str] | None = None,
) -> str:
    """The language to answer `text` in: `given` when the caller was told one (a setting, the library's language),
    else the one its function words show (`rqrag.text.text_quality.guess_language`), else `default`. With `among`, a
    language outside it (one with no wording) also gives `default`."""
    language = given or guess_language(text) or default
    if among is not None and language not in among:
        return default
    return language
