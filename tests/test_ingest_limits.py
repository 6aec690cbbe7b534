"""What one file may cost the ingestion (`rqrag.ingest.limits`): archives judged by their central directory before
anything is unpacked, and a cap on the chunks of one document.

    python -m pytest tests/test_ingest_limits.py -q

The bomb is the one reported against the server: a ~0.8 MB DOCX whose document.xml unpacks to 206 MB (it became
200,000 chunks, took the server from 1.26 to 4.57 GB and would have taken ~29 h to embed).
"""

from __future__ import annotations

import io
import time
import tracemalloc

import pytest
from hostile_files import BODY_END, BODY_START, SENTENCE, docx_bomb, docx_of, paragraph, repeated, words_docx

from rqrag.ingest.chunking import ChunkingConfig
from rqrag.ingest.extract import CORRUPT, IngestError
from rqrag.ingest.limits import ARCHIVE_TOO_LARGE, COMPRESSION_RATIO, TOO_MANY_CHUNKS, IngestLimits, check_archive
from rqrag.ingest.pipeline import ingest_bytes


def _reason(call) -> IngestError:
    with pytest.raises(IngestError) as caught:
        call()
    return caught.value


def test_the_reported_bomb_is_refused_from_its_directory_without_unpacking_it():
    bomb = docx_bomb(206_000_000)
    assert len(bomb) < 1_000_000
    tracemalloc.start()
    started = time.perf_counter()
    error = _reason(lambda: check_archive(bomb, "relatorio.docx", IngestLimits()))
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert error.reason == COMPRESSION_RATIO
    assert "relatorio.docx" in error.message and "word/document.xml" in error.message
    assert seconds < 0.5 and peak < 5_000_000, (seconds, peak)  # read the directory, inflated nothing


def test_an_archive_over_the_uncompressed_limit_is_refused_whatever_its_ratio():
    document = words_docx(2_000_000)  # varied words: ~2.3:1, an ordinary ratio
    check_archive(document, "notas.docx", IngestLimits())  # the defaults take it
    error = _reason(lambda: check_archive(document, "notas.docx", IngestLimits(max_uncompressed_bytes=1_000_000)))
    assert error.reason == ARCHIVE_TOO_LARGE and "notas.docx" in error.message


def test_a_word_processors_own_docx_passes_the_default_limits():
    import docx

    document = docx.Document()  # python-docx's template: styles.xml compresses ~30:1, like Word's
    for _ in range(200):
        document.add_paragraph(SENTENCE)
    out = io.BytesIO()
    document.save(out)
    check_archive(out.getvalue(), "carta.docx", IngestLimits())
    assert ingest_bytes(out.getvalue(), "carta.docx", limits=IngestLimits()).chunks


def test_limits_apply_only_to_zip_archives():
    check_archive(b"%PDF-1.7\n" + bytes(5000), "a.pdf", IngestLimits(max_uncompressed_bytes=10))
    check_archive(SENTENCE.encode() * 100, "a.txt", IngestLimits(max_uncompressed_bytes=10))


def test_a_member_that_understates_its_size_is_damaged_and_not_inflated_past_it():
    # The directory says 5,000 bytes, the stream holds ~10 MB: the ratio looks harmless, so the check passes, and the
    # reader stops at the declared size (Python's zipfile never returns more), then finds the CRC wrong.
    document = repeated(BODY_START, paragraph(SENTENCE) * 1000, 100, BODY_END)
    liar = docx_of(document, declared_size=5000)
    check_archive(liar, "mentira.docx", IngestLimits())
    error = _reason(lambda: ingest_bytes(liar, "mentira.docx", limits=IngestLimits()))
    assert error.reason == CORRUPT


def test_the_pipeline_refuses_a_bomb_before_extracting_it():
    error = _reason(lambda: ingest_bytes(docx_bomb(206_000_000), "bomba.docx", limits=IngestLimits()))
    assert error.reason == COMPRESSION_RATIO


TEXT = "\n\n".join(f"{i}. {SENTENCE} {SENTENCE} {SENTENCE}" for i in range(60)).encode()  # ~18,000 characters


def test_a_document_over_the_chunk_cap_is_refused_before_it_is_chunked():
    error = _reason(lambda: ingest_bytes(TEXT, "longo.txt", limits=IngestLimits(max_chunks=5)))
    assert error.reason == TOO_MANY_CHUNKS and "longo.txt" in error.message
    # 15,000 non-space characters: at least 15 chunks of 1,000 (the estimate is a lower bound: 20 are made).
    assert "would make at least 15 chunks, more than the 5 a document may have" in error.message
    assert len(ingest_bytes(TEXT, "longo.txt").chunks) == 20
    paragraphs = ChunkingConfig(strategy="paragraph", min_words=10, max_words=40)
    error = _reason(lambda: ingest_bytes(TEXT, "longo.txt", paragraphs, limits=IngestLimits(max_chunks=5)))
    assert error.reason == TOO_MANY_CHUNKS and "would make at least" in error.message


def test_the_chunk_cap_also_counts_the_chunks_made():
    # ~3,000 non-space characters: at least 3 chunks of 1,000, but the overlap between neighbours makes it 4.
    text = ((SENTENCE + " ") * 35).encode()
    assert len(ingest_bytes(text, "a.txt").chunks) == 4
    error = _reason(lambda: ingest_bytes(text, "a.txt", limits=IngestLimits(max_chunks=3)))
    assert error.reason == TOO_MANY_CHUNKS and "a.txt makes 4 chunks, more than the 3" in error.message
    assert len(ingest_bytes(text, "a.txt", limits=IngestLimits(max_chunks=4)).chunks) == 4
