"""Tuning set, document t07: preprint (en), PDF, right metadata.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T07_TITLE = "Query Rewriting Helps Small Retrievers on Portuguese Legal Questions"

T07 = {
    "id": "t07",
    "file": "t07_preprint_en.pdf",
    "kind": "preprint",
    "language": "en",
    "format": "pdf",
    "title": T07_TITLE,
    "authors": ["Lucas Matheus Bragança", "Yuki Tanabe", "Fernanda de Castro Villela"],
    "year": 2024,
    "metadata_right": True,
    "pdf_stamp": "arXiv:2405.11873v2  [cs.CL]  21 May 2024",
    "traps": [
        "arxiv_stamp",
        "preprint_line",
        "superscript_affiliations",
        "affiliation_emails",
        "name_particle",
        "accented_names",
        "pdf_metadata_right",
    ],
    "meta": {
        "title": T07_TITLE,
        "author": "Lucas Matheus Bragança, Yuki Tanabe, Fernanda de Castro Villela",
        "creator": "LaTeX with hyperref",
        "producer": "pdfTeX-1.40.25",
        "date": "2024-05-21",
    },
    "must_contain": ["Abstract", "1 Introduction", "2 Method", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [
            ("fill",),
            ("space", 8),
            ("title", T07_TITLE),
            ("space", 4),
            (
                "c",
                "**Lucas Matheus Bragança**^1^      **Yuki Tanabe**^2^      **Fernanda de Castro Villela**^1,3^",
                "",
            ),
            (
                "block",
                [
                    "^1^Department of Computer Science, Universidade Federal do Triângulo Norte, Brazil",
                    "^2^Institute for Language Technology, Hokuriku University of Science, Japan",
                    "^3^Laboratório de Direito Computacional, Brasília, Brazil",
                    "{lucas.braganca, fernanda.villela}@dcc.uftn.br, tanabe@ilt.hus.ac.jp",
                ],
                "center",
            ),
            ("c", "**Abstract**", "gap"),
            (
                "pn",
                "Retrieval-augmented generation for legal questions depends on a retriever that often fails when a "
                "citizen's question uses everyday words instead of statutory terms. We study whether rewriting the "
                "question with a small instruction-tuned language model before retrieval helps compact retrievers "
                "on Brazilian Portuguese legal questions. On a new set of 1,150 questions paired with articles of "
                "consumer-protection and tenancy law, rewriting raised recall@10 of a BM25 retriever from 0.48 to "
                "0.61 and of a 110M-parameter dense retriever from 0.55 to 0.64. Gains were largest for questions "
                "that mentioned no legal term at all, which suggests that rewriting is a cheap way to make small "
                "retrievers competitive with much larger ones.",
            ),
            ("h", "1 Introduction"),
            (
                "p",
                "Citizens rarely phrase legal questions the way statutes are written. A tenant asks whether the "
                "landlord can keep the deposit, while the relevant article speaks of guarantees and contractual "
                "termination. Lexical retrievers miss such matches, and small dense retrievers trained mostly on "
                "English data do only slightly better.",
            ),
            ("push",),
            ("block", ["Preprint. Under review."], "small"),
        ],
        [
            (
                "p",
                "This paper asks whether a small model that rewrites the question into legal vocabulary before "
                "retrieval closes part of this gap. Our contributions are a test set of everyday legal questions in "
                "Brazilian Portuguese and a controlled comparison of retrieval with and without rewriting.",
            ),
            ("h", "2 Method"),
            (
                "p",
                "We collected 1,150 questions from a public legal-aid forum, removed personal data, and asked two "
                "law graduates to link each question to the articles that answer it (Cohen's κ = 0.81). The "
                "retrieval corpus contains 4,912 articles from consumer-protection and tenancy legislation.",
            ),
            (
                "p",
                "The rewriter is a 0.5B-parameter instruction-tuned model prompted with four examples to restate "
                "the question using legal terms. We compare BM25 and a 110M-parameter dense retriever with the "
                "original question, the rewritten question, and both concatenated, reporting recall@10 and "
                "MRR@10.",
            ),
            ("h", "3 Results"),
            (
                "p",
                "Rewriting helped both retrievers (Table 1). Concatenating the original and rewritten questions "
                "was best, raising BM25 recall@10 from 0.48 to 0.61. For the 412 questions without any legal term, "
                "the gain was 0.19 for BM25 and 0.14 for the dense retriever; for questions that already used legal "
                "terms, it was below 0.03.",
            ),
            (
                "table",
                "Table 1: Recall@10 on 1,150 questions.",
                ["Retriever", "Original", "Rewritten", "Both"],
                [["BM25", "0.48", "0.57", "0.61"], ["Dense (110M)", "0.55", "0.60", "0.64"]],
                None,
            ),
            ("h", "4 Conclusions"),
            (
                "p",
                "A small rewriter makes compact retrievers markedly better on everyday legal questions, at the cost "
                "of one short generation per query. The test set will be released with the camera-ready version.",
            ),
            ("h", "References"),
            (
                "refs",
                [
                    "Castro Villela, F. de, & Moura, A. (2022). Plain-language access to consumer law. *Revista de "
                    "Direito e Tecnologia*, 5(1), 33–52.",
                    "Okada, R., & Tanabe, Y. (2023). Small rewriters for retrieval. In *Proceedings of the Workshop "
                    "on Efficient Retrieval* (pp. 14–22).",
                    "Bragança, L. M. (2023). *Recuperação de informação jurídica em português* [Master's "
                    "dissertation, Universidade Federal do Triângulo Norte].",
                ],
            ),
        ],
    ],
}

DOCS = [T07]
