"""review.md: the literature review as a person reads it, in the review's language, each field marked with
where it comes from (generated and checked, quoted from the document with its pages, or judged by the topic's
words). Written by `rqrag review` from the record `reviewer.review_record` makes.

    from rqrag.review.review_markdown import render_markdown
    Path("review.md").write_text(render_markdown(record))
"""

from __future__ import annotations

from rqrag.retrieval.citations import cite_pages, page_ranges


_LABELS = {
    "en": {
        "title": "Literature review",
        "topic": "Topic",
        "found": "{docs} documents in the top {retrieved} chunks of `{index}` (at most {cap} chunks each); {model}.",
        "summary": "Summary",
        "objectives": "Objectives",
        "conclusions": "Conclusions",
        "relevance": "Relevance",
        "pages": "Pages cited",
        "no_pages": "no page numbers",
        "file": "File",
        "none_stated": "not stated in the excerpts",
        "not_found": "not found in the article",
        "failed": "No review",
        "quoted": "quoted from the document, {pages}",
        "page": "p.",
        "by_words": "judged by the topic's words",
        "levels": {"high": "high", "medium": "medium", "low": "low", "none": "none"},
        "comparison": "Comparison",
        "article": "Article",
        "fields": {
            "objective": "Objective",
            "method": "Method",
            "data": "Data",
            "result": "Main result",
            "conclusion": "Conclusion",
        },
        "section_page": "{section}, p. {page}",
        "generated": "written by the model, checked",
        "defects": "The check found",
        "no_model": "no model: every field quoted from the document",
        "model": "model",
        "authors_year": "{authors} ({year})",
        "texts_note": "Written from the article's own pages; every sentence checked against the page it cites. The "
        "quotes below are the evidence.",
        "text_notes": {
            "not_stated": "the pages read do not say",
            "all_failed": "no sentence passed the check",
            "not_written": "not written (the reply ended before it)",
        },
    },
    "pt": {
        "title": "Revisão de literatura",
        "topic": "Tema",
        "found": "{docs} documentos nos {retrieved} trechos mais próximos em `{index}` (no máximo {cap} por documento); {model}.",
        "summary": "Resumo",
        "objectives": "Objetivos",
        "conclusions": "Conclusões",
        "relevance": "Relevância",
        "pages": "Páginas citadas",
        "no_pages": "sem números de página",
        "file": "Arquivo",
        "none_stated": "não indicado nos trechos",
        "not_found": "não encontrado no artigo",
        "failed": "Sem revisão",
        "quoted": "citado do documento, {pages}",
        "page": "p.",
        "by_words": "avaliada pelas palavras do tema",
        "levels": {"high": "alta", "medium": "média", "low": "baixa", "none": "nenhuma"},
        "comparison": "Comparação",
        "article": "Artigo",
        "fields": {
            "objective": "Objetivo",
            "method": "Método",
            "data": "Dados",
            "result": "Principal resultado",
            "conclusion": "Conclusão",
        },
        "section_page": "{section}, p. {page}",
        "generated": "escrito pelo modelo, verificado",
        "defects": "A verificação encontrou",
        "no_model": "sem modelo: cada campo citado do documento",
        "model": "modelo",
        "authors_year": "{authors} ({year})",
        "texts_note": "Escritos a partir das próprias páginas do artigo; cada frase conferida com a página que cita. "
        "As citações abaixo são a evidência.",
        "text_notes": {
            "not_stated": "as páginas lidas não dizem",
            "all_failed": "nenhuma frase passou na conferência",
            "not_written": "não escrito (a resposta terminou antes)",
        },
    },
}


def render_markdown(record: dict) -> str:
    """review.md: a header, then one section per document in the record's order."""
    words = _LABELS[record["language"]]
    lines = [f"# {words['title']}", "", f"**{words['topic']}:** {record['topic']}", ""]
    lines += [
        words["found"].format(
            docs=len(record["documents"]),
            retrieved=record["chunks_retrieved"],
            index=record.get("index", "?"),
            cap=record.get("per_document", "?"),
            model=f"{words['model']} `{record['model']}`" if record.get("model") else words["no_model"],
        ),
        "",
    ]
    articles = [doc for doc in record["documents"] if doc.get("article")]
    if articles:
        lines += _comparison(articles, words)
    for n, doc in enumerate(record["documents"], start=1):
        if doc.get("article"):
            lines += _article_section(n, doc, words)
            continue
        review = doc["review"]
        level = f" — {words['relevance'].lower()}: {words['levels'][review['relevance']]}" if review else ""
        lines += [f"## {n}. {doc['title']}{level}", ""]
        cited = page_ranges(doc["pages"]) if doc["pages"] else words["no_pages"]
        where = f"**{words['pages']}:** {cited}"
        if doc["file"]:
            where = f"**{words['file']}:** `{doc['file']}` · " + where
        lines += [where, ""]
        if review is None:
            lines += [f"**{words['failed']}:** {doc['error']}", ""]
            continue
        provenance = doc.get("provenance") or {}
        summary = _shown(provenance, "summary", review["summary"])
        lines += [f"**{words['summary']}.**{_mark(provenance, 'summary', words)} {summary}", ""]
        for key in ("objectives", "conclusions"):
            items = [_shown(provenance, key, item) for item in review[key]] or [f"*{words['none_stated']}*"]
            lines += [f"**{words[key]}.**{_mark(provenance, key, words)}", "", *(f"- {item}" for item in items), ""]
        level, reason = words["levels"][review["relevance"]], review["relevance_reason"].strip()
        lines += [f"**{words['relevance']} ({level}).**{_mark(provenance, 'relevance', words)} {reason}", ""]
    return "\n".join(lines)


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"


def _comparison(articles: list[dict], words: dict) -> list[str]:
    """The table across articles: objective, method, data and main result, each the field's first sentence."""
    columns = ("objective", "method", "data", "result")
    lines = [f"## {words['comparison']}", ""]
    lines.append(f"| {words['article']} | " + " | ".join(words["fields"][c] for c in columns) + " |")
    lines.append("|---" * (len(columns) + 1) + "|")
    for doc in articles:
        article = doc["article"]
        name = f"{_cell(article['title'], 80)} ({article['year'] or '?'})"
        # an empty field is said, never left a blank cell a reader takes for a layout fault
        cells = [
            _cell(((article["fields"].get(c) or [{}])[0]).get("text", "")) or f"*{words['not_found']}*"
            for c in columns
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def _article_section(n: int, doc: dict, words: dict) -> list[str]:
    """One article: its real title, authors and year, then each field quoted with its section and page."""
    article, review = doc["article"], doc.get("review") or {}
    level = (
        f" — {words['relevance'].lower()}: {words['levels'][review['relevance']]}" if review.get("relevance") else ""
    )
    lines = [f"## {n}. {article['title']}{level}", ""]
    authors = ", ".join(article["authors"]) or "?"
    lines += [words["authors_year"].format(authors=authors, year=article["year"] or "?"), ""]
    if doc.get("file"):
        lines += [f"**{words['file']}:** `{doc['file']}`", ""]
    lines += _written_texts(article.get("texts"), words)
    for field, label in words["fields"].items():
        quotes = article["fields"].get(field) or []
        if not quotes:  # no sentence of the article's prose fits the field (article_fields): said, not filled
            lines += [f"**{label}.** *{words['not_found']}*", ""]
            continue
        shown = []
        for quote in quotes:
            if quote["origin"] == "generated":
                shown.append(f"{quote['text']} *({words['generated']})*")
            else:
                where = words["section_page"].format(section=quote["heading"] or quote["section"], page=quote["page"])
                shown.append(f"«{quote['text']}» *({where})*")
        lines += [f"**{label}.** " + " ".join(shown), ""]
    if article.get("defects"):
        found = "; ".join(f"{d['field']}: {d['problem']} ({d['detail']})" for d in article["defects"])
        lines += [f"**{words['defects']}:** {found}", ""]
    return lines


def _written_texts(texts: dict | None, words: dict) -> list[str]:
    """The four written texts (review/article_texts.py), each sentence followed by the page(s) it cites."""
    if not texts or texts.get("problem"):
        return []
    lines = []
    for kind, text in texts["texts"].items():
        if text["sentences"]:
            said = " ".join(
                f"{s['text']} ({cite_pages(s['pages'], words['page'], words['page'])})" if s["pages"] else s["text"]
                for s in text["sentences"]
            )
        else:
            said = f"*{words['text_notes'][text['note']]}*"
        lines += [f"**{words[kind]}.** {said}", ""]
    return lines + [f"*{words['texts_note']}*", ""]


def _mark(provenance: dict, key: str, words: dict) -> str:
    """' *(quoted from the document, p. 12)*' after a field the model's text did not hold up for."""
    field = provenance.get(key) or {}
    if field.get("origin") == "quoted":
        # One word for one page or several: "p. 3-5", as the quoted fields have always been marked.
        pages = cite_pages(field["pages"], words["page"], words["page"]) if field.get("pages") else ""
        return f" *({words['quoted'].format(pages=pages).rstrip(', ')})*"
    return f" *({words['by_words']})*" if field.get("origin") == "retrieval" else ""


def _shown(provenance: dict, key: str, text: str) -> str:
    """A quoted field between guillemets, as the document says it; generated text as it is."""
    return f"«{text.strip()}»" if (provenance.get(key) or {}).get("origin") == "quoted" else text.strip()
