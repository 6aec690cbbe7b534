"""Chunking and the whole pipeline: size bounds per strategy, page spans, and the real manual end to end.

The semantic strategy runs with the packaged MiniLM (no hub), the others need no model.
"""

from __future__ import annotations

import hashlib
import json
import re
import time

import numpy as np
import pytest
from manual import GOLDEN, MANUAL

from rqrag.ingest.chunking import (
    ChunkingConfig,
    PagedText,
    chunk_pages,
    paragraph_window_spans,
    semantic_spans,
    sentence_spans,
)
from rqrag.ingest.clean import clean_pages, match_form
from rqrag.ingest.extract import Page, extract_pages
from rqrag.ingest.pipeline import ingest_bytes, ingest_path


SEMANTIC_LAST_PAGE = 30


@pytest.fixture(scope="module")
def pages():
    if not MANUAL.is_file():
        pytest.skip(f"shared data not found: {MANUAL}")
    return clean_pages(extract_pages(MANUAL))


class RememberingEncoder:
    """The real MiniLM, with each batch's embeddings kept: the two percentile runs embed the manual once."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.model = getattr(encoder, "model", encoder)  # the SentenceTransformer, whether wrapped or not
        self.batches: dict[tuple[str, ...], object] = {}

    def encode(self, sentences):
        key = tuple(sentences)
        if key not in self.batches:
            self.batches[key] = self.encoder.encode(list(sentences))
        return self.batches[key]


@pytest.fixture(scope="module")
def minilm():
    from rqrag.retrieval.dense import load_encoder, packaged_minilm_path

    return RememberingEncoder(load_encoder(packaged_minilm_path()))


def golden_evidence() -> list[tuple[int, str]]:
    records = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(int(item["page"]), item["quote"]) for record in records for item in record["evidence"]]


def assert_page_spans_are_right(chunks, pages):
    """A one-page chunk lies whole in its page; a longer one starts on its first page and ends on its last."""
    by_number = {page.number: match_form(page.text) for page in pages}
    following = {page.number: nxt.number for page, nxt in zip(pages, pages[1:])}
    following[pages[-1].number] = None
    within_one_page = 0
    for chunk in chunks:
        assert chunk.page_start <= chunk.page_end
        if chunk.page_start == chunk.page_end:
            assert match_form(chunk.text) in by_number[chunk.page_start], chunk
            within_one_page += 1
        elif following[chunk.page_start] == chunk.page_end:
            # Two consecutive pages: the chunk is a tail of the first followed by a head of the second.
            form = match_form(chunk.text)
            cuts = [i for i, char in enumerate(form) if char == " "]
            assert any(
                by_number[chunk.page_start].endswith(form[:i]) and by_number[chunk.page_end].startswith(form[i + 1 :])
                for i in cuts
            ), chunk
        else:
            words = match_form(chunk.text).split()
            assert words[0] in by_number[chunk.page_start] and words[-1] in by_number[chunk.page_end], chunk
    assert within_one_page >= 0.5 * len(chunks)


def quotes_in_chunks(chunks, evidence) -> float:
    """The share of golden quotes lying whole in a chunk whose page span covers the quote's page."""
    forms = [(match_form(chunk.text), chunk.page_start, chunk.page_end) for chunk in chunks]
    found = 0
    for page, quote in evidence:
        quote = match_form(quote)
        found += any(quote in text and start <= page <= end for text, start, end in forms)
    return found / len(evidence)


# ------------------------------------------------------------------------------------------ small texts


def test_paged_text_maps_characters_to_pages():
    pages = [Page(3, "Primeira página termina aqui."), Page(4, "Segunda página continua a frase"), Page(7, "e acaba.")]
    document = PagedText.from_pages(pages)
    assert document.text == "Primeira página termina aqui.\n\nSegunda página continua a frase e acaba."
    assert document.page_at(0) == 3 and document.page_at(28) == 3
    assert document.page_at(31) == 4 and document.page_at(len(document.text) - 1) == 7
    chunk = document.chunk(31, len(document.text))
    assert (chunk.text, chunk.page_start, chunk.page_end) == ("Segunda página continua a frase e acaba.", 4, 7)


def test_sentence_spans_keep_closing_quotes_and_split_lines():
    text = 'Ele disse "pronto." Depois saiu.\nsudo reboot'
    assert [text[a:b] for a, b in sentence_spans(text)] == ['Ele disse "pronto."', "Depois saiu.", "sudo reboot"]


def test_paragraph_windows_respect_word_bounds():
    paragraphs = [" ".join(f"p{i}w{j}" for j in range(n)) + "." for i, n in enumerate([30, 40, 50, 700, 20, 90, 10])]
    text = "\n\n".join(paragraphs)
    config = ChunkingConfig(strategy="paragraph", min_words=100, max_words=500)
    windows = [text[a:b] for a, b in paragraph_window_spans(text, config)]
    sizes = [len(window.split()) for window in windows]
    assert all(size <= 500 for size in sizes), sizes
    assert " ".join(windows).split() == text.split()  # nothing lost, nothing repeated
    assert sizes[0] == 120  # 30 + 40 + 50: grown until it reached 100 words
    assert "p3w0" in windows[1] and sizes[1] == 500  # the 700-word paragraph cut to fit


class TopicCounter:
    """A two-dimensional embedding by hand: how many words of each topic a text has. Cuts are predictable."""

    TOPICS = ({"servidor", "rede", "dhcp", "ldap"}, {"impressora", "papel", "cups", "tinta"})

    def encode(self, sentences):
        rows = [
            [sum(w.strip(".").lower() in topic for w in s.split()) + 1e-3 for topic in self.TOPICS] for s in sentences
        ]
        return np.array(rows, dtype=np.float32)


def test_semantic_cut_falls_between_topics_and_headings_stay_with_their_section():
    network = "O servidor usa a rede. O DHCP da rede vem do servidor. O LDAP fica no servidor. A rede usa LDAP."
    printing = "A impressora usa papel. O CUPS controla a impressora. A tinta e o papel acabam."
    text = f"{network}\n\nImpressoras\n\n{printing}"  # as the cleaner writes a heading: its own paragraph
    spans = semantic_spans(text, TopicCounter(), percentile=80, buffer=0, min_words=3)
    assert [text[a:b] for a, b in spans] == [network, f"Impressoras\n\n{printing}"]
    # Without the minimum, the lone heading is a chunk of its own (it shares no word with either topic).
    alone = semantic_spans(text, TopicCounter(), percentile=80, buffer=0, min_words=0)
    assert [text[a:b] for a, b in alone] == [network, "Impressoras", printing]


def test_config_is_validated():
    with pytest.raises(ValueError, match="unknown chunking strategy"):
        ChunkingConfig(strategy="sentences")
    with pytest.raises(ValueError, match="chunk_overlap"):
        ChunkingConfig(chunk_size=100, chunk_overlap=100)
    with pytest.raises(ValueError, match="semantic strategy needs an embedder"):
        chunk_pages([Page(1, "Uma frase. Outra frase. Mais uma.")], ChunkingConfig(strategy="semantic"))


def test_ingest_bytes_of_a_text_file():
    data = ("Título\n\n" + "Uma frase curta sobre o servidor. " * 80).encode()
    document = ingest_bytes(data, "/tmp/x/notas.txt", ChunkingConfig(chunk_size=500, chunk_overlap=100))
    assert document.doc_id == hashlib.sha256(data).hexdigest()[:16]
    assert (document.name, document.file_type, document.size_bytes, document.page_count) == (
        "notas.txt",
        "text",
        len(data),
        1,
    )
    assert [chunk.docid for chunk in document.chunks][:2] == [f"{document.doc_id}:00000", f"{document.doc_id}:00001"]
    assert all(len(chunk.text) <= 500 for chunk in document.chunks)
    assert document.chunks[0].title == "notas.txt"
    assert document.chunks[0].extra == {
        "doc_id": document.doc_id,
        "file": "notas.txt",
        "page_start": 1,
        "page_end": 1,
        "language": "pt",  # each chunk's own language, which BM25 analyses it in
        "strategy": "recursive",
        "chunk_size": 500,
        "chunk_overlap": 100,
    }


# ------------------------------------------------------------------------------------------- the manual


@pytest.mark.slow
@pytest.mark.parametrize(("size", "overlap"), [(1000, 150), (500, 100), (1000, 200)])
def test_recursive_chunks_on_the_manual(pages, size, overlap):
    chunks = chunk_pages(pages, ChunkingConfig(strategy="recursive", chunk_size=size, chunk_overlap=overlap))
    assert all(0 < len(chunk.text) <= size for chunk in chunks)
    assert sum(len(chunk.text) > size / 2 for chunk in chunks) >= 0.8 * len(chunks)  # packed, not shredded
    # Neighbours share text (the overlap) somewhere in the document.
    assert sum(chunks[i + 1].start < chunks[i].end for i in range(len(chunks) - 1)) > len(chunks) / 4
    assert_page_spans_are_right(chunks, pages)
    assert quotes_in_chunks(chunks, golden_evidence()) >= 0.85


@pytest.mark.slow
def test_paragraph_chunks_on_the_manual(pages):
    config = ChunkingConfig(strategy="paragraph")
    chunks = chunk_pages(pages, config)
    sizes = [len(chunk.text.split()) for chunk in chunks]
    assert max(sizes) <= config.max_words
    assert sum(size >= config.min_words for size in sizes) >= 0.9 * len(sizes), sorted(sizes)[:20]
    assert_page_spans_are_right(chunks, pages)
    assert quotes_in_chunks(chunks, golden_evidence()) >= 0.95


@pytest.fixture(scope="module")
def first_chapters(pages):
    """Pages 1-30 (a quarter of the manual): embedding every sentence of all of it takes minutes on 2 busy cores."""
    return [page for page in pages if page.number <= SEMANTIC_LAST_PAGE]


@pytest.mark.slow
@pytest.mark.parametrize("percentile", [75, 95])
def test_semantic_chunks_on_the_manual(first_chapters, minilm, percentile):
    pages = first_chapters
    tokenizer = minilm.model.tokenizer
    limit = minilm.model.max_seq_length  # 256 word pieces: what MiniLM reads of a chunk
    config = ChunkingConfig(strategy="semantic", percentile=percentile, max_tokens=limit)

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=True, verbose=False)["input_ids"])

    chunks = chunk_pages(pages, config, embedder=minilm, count_tokens=count)
    assert all(count(chunk.text) <= limit for chunk in chunks)
    assert_page_spans_are_right(chunks, pages)
    evidence = [(page, quote) for page, quote in golden_evidence() if page <= SEMANTIC_LAST_PAGE]
    assert len(evidence) >= 10 and quotes_in_chunks(chunks, evidence) >= 0.85


@pytest.mark.slow
def test_higher_percentile_cuts_fewer_times(first_chapters, minilm):
    few = chunk_pages(first_chapters, ChunkingConfig(strategy="semantic", percentile=95), embedder=minilm)
    many = chunk_pages(first_chapters, ChunkingConfig(strategy="semantic", percentile=75), embedder=minilm)
    assert 2 * len(few) < len(many)
    assert len(minilm.batches) == 1  # one embedding pass served both


@pytest.mark.slow
def test_token_guard_splits_long_chunks(pages):
    def words(text: str) -> int:
        return len(text.split())

    config = ChunkingConfig(strategy="paragraph", max_tokens=60)
    chunks = chunk_pages(pages, config, count_tokens=words)
    assert max(words(chunk.text) for chunk in chunks) <= 60
    assert sum(words(chunk.text) > 40 for chunk in chunks) > len(chunks) / 2


@pytest.mark.slow
def test_ingest_the_manual_end_to_end():
    if not MANUAL.is_file():
        pytest.skip(f"shared data not found: {MANUAL}")
    calls = []
    started = time.perf_counter()
    document = ingest_path(MANUAL, ChunkingConfig(), progress=lambda done, total: calls.append((done, total)))
    seconds = time.perf_counter() - started
    assert seconds < 60, seconds
    assert document.doc_id == hashlib.sha256(MANUAL.read_bytes()).hexdigest()[:16]
    assert (document.file_type, document.page_count, document.name) == ("pdf", 104, MANUAL.name)
    assert calls[0] == (1, 104) and calls[-1] == (104, 104) and len(calls) == 104
    assert [page.number for page in document.pages][:3] == [1, 7, 8]
    ids = [chunk.docid for chunk in document.chunks]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(rf"{document.doc_id}:\d{{5}}", i) for i in ids)
    first = document.chunks[0].extra
    assert {"doc_id", "file", "page_start", "page_end", "language", "strategy", "chunk_size", "chunk_overlap"} == set(
        first
    )
    spans = [(chunk.extra["page_start"], chunk.extra["page_end"]) for chunk in document.chunks]
    assert spans == sorted(spans) and spans[-1][1] == 104
