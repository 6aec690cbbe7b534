"""Extraction: type detection from the bytes, page texts, and a clear `IngestError` for every unreadable file.

The PDF cases use the real Debian Edu manual (shared data) and PDFs made on the spot with pypdf.
"""

from __future__ import annotations

import io
import zipfile

import pytest
from manual import MANUAL

from rqrag.ingest.extract import (
    CORRUPT,
    EMPTY,
    ENCODING,
    ENCRYPTED,
    UNSUPPORTED,
    IngestError,
    detect_file_type,
    extract_pages,
    extract_pdf_pages,
)


PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"

needs_manual = pytest.mark.skipif(not MANUAL.is_file(), reason=f"shared data not found: {MANUAL}")


def _pdf_bytes(text_page: bool = False, password: str | None = None) -> bytes:
    """A one-page PDF made with pypdf: blank, or a copy of the manual's page 8 (which has text)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    if text_page:
        writer.add_page(PdfReader(MANUAL).pages[7])
    else:
        writer.add_blank_page(width=595, height=842)
    if password:
        writer.encrypt(user_password=password, owner_password=password + "-owner")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _docx_bytes(paragraphs: list[str]) -> bytes:
    import docx

    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Servidor"
    table.rows[0].cells[1].text = "tjener"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


HTML_PAGE = """<!DOCTYPE html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Guia</title></head>
<body>
<nav><ul><li><a href="/">Início</a></li><li><a href="/sobre">Sobre nós</a></li><li><a href="/loja">Loja virtual</a></li></ul></nav>
<main><article>
<h1>Como configurar o servidor principal</h1>
<p>O servidor principal recebe por padrão o endereço IP 10.0.2.2 e oferece os serviços de rede para toda a escola,
incluindo o diretório LDAP, o Kerberos e o compartilhamento de arquivos pelas estações de trabalho.</p>
<p>Depois da instalação, entre como administrador e verifique se o serviço de impressão está ativo antes de
adicionar as impressoras das salas de aula; a página de administração fica na porta 631.</p>
</article></main>
<footer><p>Copyright 2024 Exemplo Ltda. Todos os direitos reservados. Política de privacidade.</p></footer>
</body></html>
"""


# --------------------------------------------------------------------------------------- detect_file_type


@needs_manual
def test_detect_kind_reads_the_content_not_the_extension():
    assert detect_file_type(MANUAL.read_bytes()[:4096], "manual.txt") == "pdf"
    assert detect_file_type(HTML_PAGE.encode(), "page.txt") == "html"
    assert detect_file_type(b"<html><body>oi</body></html>", "x") == "html"
    assert detect_file_type("# Título\n\nTexto em português.".encode(), "notas.md") == "markdown"
    assert detect_file_type("# Título\n\nTexto em português.".encode(), "notas.pdf") == "text"
    assert detect_file_type(_docx_bytes(["Olá"]), "relatorio.pdf") == "docx"


def test_png_renamed_pdf_is_refused_by_name():
    with pytest.raises(IngestError) as caught:
        detect_file_type(PNG_HEADER + bytes(64), "scan.pdf")
    assert caught.value.reason == UNSUPPORTED
    assert "PNG image" in str(caught.value) and "scan.pdf" in str(caught.value)


def test_zip_that_is_not_docx_and_binary_junk_are_unsupported():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data.csv", "a,b\n1,2\n")
    with pytest.raises(IngestError, match="ZIP archive, not a Word document") as caught:
        detect_file_type(archive.getvalue(), "dados.docx")
    assert caught.value.reason == UNSUPPORTED
    with pytest.raises(IngestError, match="neither a known document format nor UTF-8") as caught:
        detect_file_type(bytes(range(128, 256)) * 4, "x.txt")
    assert caught.value.reason == UNSUPPORTED


def test_empty_file():
    with pytest.raises(IngestError, match="empty") as caught:
        detect_file_type(b"", "vazio.txt")
    assert caught.value.reason == EMPTY


# -------------------------------------------------------------------------------------------------- PDFs


@needs_manual
def test_manual_pages_are_physical_and_one_based():
    pages = extract_pages(MANUAL)
    assert [page.number for page in pages] == list(range(1, 105))
    assert "O projeto Skolelinux foi fundado em 2 de julho de 2001" in " ".join(pages[7].text.split())


@needs_manual
def test_progress_reports_every_page():
    calls = []
    extract_pages(_pdf_bytes(text_page=True), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 1)]


@needs_manual
def test_encrypted_pdf():
    data = _pdf_bytes(text_page=True, password="segredo")
    with pytest.raises(IngestError, match="password-protected") as caught:
        extract_pages(data, filename="privado.pdf")
    assert caught.value.reason == ENCRYPTED
    assert "privado.pdf" in str(caught.value)


def test_corrupt_pdf():
    data = b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n" + bytes(range(256)) * 8
    with pytest.raises(IngestError, match="damaged PDF") as caught:
        extract_pages(data, filename="quebrado.pdf")
    assert caught.value.reason == CORRUPT


def test_blank_pdf_has_no_text():
    with pytest.raises(IngestError, match="no extractable text.*OCR") as caught:
        extract_pages(_pdf_bytes(), filename="digitalizado.pdf")
    assert caught.value.reason == EMPTY


@needs_manual
@pytest.mark.parametrize("backend", ["pypdf", "pymupdf"])
def test_other_backends_read_the_same_page_and_refuse_the_same_files(backend):
    pytest.importorskip(backend)
    pages = extract_pdf_pages(_pdf_bytes(text_page=True), backend=backend)
    assert "Skolelinux foi fundado" in " ".join(pages[0].text.split())
    with pytest.raises(IngestError) as caught:
        extract_pdf_pages(_pdf_bytes(text_page=True, password="segredo"), backend=backend)
    assert caught.value.reason == ENCRYPTED
    with pytest.raises(IngestError) as caught:
        extract_pdf_pages(b"%PDF-1.7\n" + bytes(range(256)) * 8, backend=backend)
    assert caught.value.reason == CORRUPT


# ------------------------------------------------------------------------------------------ other kinds


def test_html_boilerplate_is_removed():
    pages = extract_pages(HTML_PAGE.encode(), filename="guia.html")
    assert len(pages) == 1 and pages[0].number == 1
    text = pages[0].text
    assert "endereço IP 10.0.2.2" in text and "porta 631" in text
    for boilerplate in ("Loja virtual", "Sobre nós", "Todos os direitos reservados", "Política de privacidade"):
        assert boilerplate not in text


def test_docx_paragraphs_and_tables():
    pages = extract_pages(_docx_bytes(["Primeiro parágrafo.", "Segundo parágrafo."]), filename="notas.docx")
    assert pages[0].text == "Primeiro parágrafo.\n\nSegundo parágrafo.\n\nServidor | tjener"


def test_text_and_markdown_are_one_page():
    text = "Instalação\n\nUse o perfil “Servidor Principal”.\n"
    assert extract_pages(text.encode("utf-8"), filename="a.txt")[0].text == text
    assert extract_pages(("\ufeff" + text).encode("utf-8"), filename="a.md")[0].text == text  # BOM dropped


def test_text_that_is_not_utf8_says_so():
    with pytest.raises(IngestError, match=r"not UTF-8 text \(byte 0xe7 at position 7\)") as caught:
        extract_pages("Instalação".encode("latin-1"), file_type="text", filename="latin.txt")
    assert caught.value.reason == ENCODING


def test_whitespace_only_text_is_empty():
    with pytest.raises(IngestError, match="no extractable text") as caught:
        extract_pages(b"  \n\n\t \n", filename="branco.txt")
    assert caught.value.reason == EMPTY
