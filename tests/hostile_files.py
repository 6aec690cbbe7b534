"""Files made to hurt a document server, for the tests that check it refuses them.

    bomb = docx_bomb(206_000_000)        # a valid DOCX of ~0.7 MB whose document.xml unpacks to 206 MB, in ~0.3 s
    words_docx(2_000_000)                # a DOCX of varied words (compresses ~3:1, like real text)

The bomb is the one reported against the server (a 780 kB .docx that unpacked to 206 MB), built without ever holding
or compressing 206 MB: one block of paragraphs is compressed once, ending on a full flush (which empties the
compressor's dictionary, so the next bytes refer to nothing before them), and that compressed block is repeated.
The archive is written by hand (`zip_archive`) so that a member may also declare a size other than its real one.
"""

from __future__ import annotations

import random
import struct
import zlib


DOCX_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/word/document.xml" '
    b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    b"</Types>"
)
DOCX_RELS = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" Target="word/document.xml" '
    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/>'
    b"</Relationships>"
)
BODY_START = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
)
BODY_END = b"</w:body></w:document>"
SENTENCE = "O servidor principal da escola oferece o diretório, a impressão e o compartilhamento de arquivos."
BLOCK_BYTES = 1 << 20


def paragraph(text: str) -> bytes:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()


def zip_archive(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A ZIP of `(name, raw deflate stream, crc32, declared uncompressed size)` members, written as the format says
    (local headers, central directory, end record), so that the declared size can be anything."""
    out, central = bytearray(), bytearray()
    for name, compressed, crc, size in members:
        encoded = name.encode()
        offset = len(out)
        # version 20, no flags, method 8 (deflate), time 0, date 1980-01-01
        fields = (20, 0, 8, 0, 0x21, crc, len(compressed), size, len(encoded), 0)
        out += struct.pack("<I5H3I2H", 0x04034B50, *fields) + encoded + compressed
        central += struct.pack("<IH5H3I5HII", 0x02014B50, 20, *fields, 0, 0, 0, 0, offset) + encoded
    end = struct.pack("<I4H2IH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0)
    return bytes(out + central + end)


def deflated(data: bytes) -> tuple[bytes, int, int]:
    """(raw deflate stream, crc32, size) of `data`."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(), zlib.crc32(data), len(data)


def repeated(start: bytes, block: bytes, times: int, end: bytes) -> tuple[bytes, int, int]:
    """(raw deflate stream, crc32, size) of `start + block * times + end`, compressing `block` once."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = packer.compress(start) + packer.flush(zlib.Z_FULL_FLUSH)
    middle = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    tail = packer.compress(end) + packer.flush()
    crc = zlib.crc32(start)
    for _ in range(times):
        crc = zlib.crc32(block, crc)
    return head + middle * times + tail, zlib.crc32(end, crc), len(start) + len(block) * times + len(end)


def docx_of(document: tuple[bytes, int, int], declared_size: int | None = None) -> bytes:
    """A DOCX (content types, relationships, word/document.xml) around a compressed document.xml."""
    compressed, crc, size = document
    return zip_archive(
        [
            ("[Content_Types].xml", *deflated(DOCX_CONTENT_TYPES)),
            ("_rels/.rels", *deflated(DOCX_RELS)),
            ("word/document.xml", compressed, crc, size if declared_size is None else declared_size),
        ]
    )


def docx_bomb(uncompressed_bytes: int) -> bytes:
    """A valid DOCX whose document.xml is about `uncompressed_bytes` of one repeated paragraph."""
    one = paragraph(SENTENCE)
    block = one * max(1, min(BLOCK_BYTES, uncompressed_bytes) // len(one))
    return docx_of(repeated(BODY_START, block, max(1, uncompressed_bytes // len(block)), BODY_END))


def words_docx(uncompressed_bytes: int, seed: int = 0) -> bytes:
    """A DOCX of about `uncompressed_bytes` of paragraphs of random words: compresses like real text, not a bomb."""
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyzáéíóãç") for _ in range(rng.randint(2, 11))) for _ in range(5000)
    ]
    parts, size = [BODY_START], len(BODY_START)
    while size < uncompressed_bytes:
        parts.append(paragraph(" ".join(rng.choices(vocabulary, k=60)) + "."))
        size += len(parts[-1])
    parts.append(BODY_END)
    return docx_of(deflated(b"".join(parts)))


def pdf_bomb(inflated_bytes: int) -> bytes:
    """A valid one-page PDF whose content stream is deflated twice (/Filter [/FlateDecode /FlateDecode]) and inflates
    to `inflated_bytes` of spaces (whitespace, valid content): ~2 GB in a file of a few kB. Built without holding the
    inflated bytes: the first layer is compressed 16 MB at a time."""
    first = zlib.compressobj(9)
    block, layer = b" " * (16 << 20), []
    for _ in range(inflated_bytes // len(block)):
        layer.append(first.compress(block))
    layer.append(first.flush())
    stream = zlib.compress(b"".join(layer), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter [/FlateDecode /FlateDecode] >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
