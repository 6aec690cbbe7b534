"""Tuning set, document t10: workshop paper (en), DOCX, empty core props.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T10_TITLE = "Cheap Annotation Pays Off: Active Learning for Named Entity Recognition in Cape Verdean Creole"

T10 = {
    "id": "t10",
    "file": "t10_workshop_en.docx",
    "kind": "conference",
    "language": "en",
    "format": "docx",
    "title": T10_TITLE,
    "authors": ["Beatriz Lopes Semedo", "Arjun Malhotra", "Henrik Dahl-Sørensen"],
    "year": 2023,
    "metadata_right": None,
    "traps": [
        "proceedings_header",
        "running_head",
        "authors_one_line_comma",
        "affiliation_block",
        "affiliation_emails",
        "table_header_like_title",
        "subtitle_after_colon",
        "hyphenated_name",
        "accented_names",
        "docx_core_empty",
    ],
    "core": {
        "author": "",
        "title": "",
        "last_modified_by": "",
        "revision": 3,
        "created": "2023-08-14T10:00:00",
        "modified": "2023-09-01T16:20:00",
    },
    "header": "LRST 2023 · Proceedings of the 9th Workshop on Low-Resource Speech and Text",
    "docx_font": "Times New Roman",
    "must_contain": ["Abstract", "1 Introduction", "2 Method", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [
            ("pn", "Proceedings of the 9th Workshop on Low-Resource Speech and Text (LRST 2023), pages 57–66"),
            ("pn", "Lisbon, Portugal, 12 October 2023. ©2023 The authors, released under CC BY 4.0."),
            ("title", T10_TITLE),
            ("c", "Beatriz Lopes Semedo, Arjun Malhotra, Henrik Dahl-Sørensen", "b"),
            (
                "block",
                [
                    "Instituto Superior de Tecnologias da Praia, Cabo Verde",
                    "Nordic Centre for Language Computing, Aarhus, Denmark",
                    "bsemedo@istp.cv, {arjun.malhotra, hdahl}@nclc.dk",
                ],
                "center",
            ),
            ("h", "Abstract"),
            (
                "pn",
                "Named entity recognition (NER) for Cape Verdean Creole has no public training data, and "
                "annotators who speak the language are few. We ask how much annotation an active-learning loop "
                "saves compared with annotating sentences in random order. Starting from 200 labelled sentences, "
                "we annotated news and radio transcripts in rounds of 100 sentences chosen by model uncertainty. "
                "With 1,200 actively selected sentences the tagger reached an F1 of 0.78, a score that random "
                "selection only matched with 2,300 sentences. Active learning thus roughly halves the annotation "
                "effort for a new low-resource language.",
            ),
            ("h", "1 Introduction"),
            (
                "p",
                "Cape Verdean Creole is spoken by about a million people in the archipelago and the diaspora, yet "
                "almost no annotated text exists for it. The corpora we could use, summarised in Table 1, are "
                "small and were collected for other purposes.",
            ),
            (
                "table",
                "Table 1: Corpora used in this work.",
                ["Language", "Tokens", "Entities", "Annotators", "Source", "Licence"],
                [
                    ["Kabuverdianu (Santiago)", "41,200", "3,118", "2", "Radio transcripts", "CC BY"],
                    ["Kabuverdianu (São Vicente)", "18,950", "1,402", "1", "Online news", "CC BY-SA"],
                    ["Portuguese (transfer)", "310,000", "21,877", "—", "Public NER corpus", "CC BY"],
                ],
                None,
            ),
            (
                "p",
                "The objective of this paper is to measure how much annotation effort active learning saves when "
                "building a first NER tagger for Cape Verdean Creole, and which selection strategy works best "
                "with so few annotators.",
            ),
        ],
        [
            ("h", "2 Method"),
            (
                "p",
                "A multilingual transformer encoder was first fine-tuned on the Portuguese corpus and then on 200 "
                "randomly chosen Creole sentences. In each round the model tagged the unlabelled pool, and the 100 "
                "sentences with the highest token entropy were sent to two native-speaker annotators.",
            ),
            (
                "p",
                "We compared entropy sampling with random sampling and with a diversity-based strategy, running "
                "each for twelve rounds with three random seeds. Performance was measured by entity-level F1 on a "
                "fixed test set of 600 sentences annotated by both annotators (agreement F1 = 0.91).",
            ),
            ("h", "3 Results"),
            (
                "p",
                "Entropy sampling reached an F1 of 0.78 after 1,200 annotated sentences, while random sampling "
                "needed 2,300 sentences for the same score. The diversity-based strategy was in between and had "
                "the highest variance across seeds. Person and place names were learned fastest; organisation "
                "names remained the main source of errors.",
            ),
            ("h", "4 Conclusions"),
            (
                "p",
                "For a language with very few annotators, an uncertainty-driven active-learning loop roughly halves "
                "the annotation needed to reach a usable NER tagger. We release the annotation guidelines and the "
                "selection code so that the loop can be reused for other creole languages.",
            ),
            ("h", "References"),
            (
                "refs",
                [
                    "Dahl-Sørensen, H., & Lund, M. (2021). Uncertainty sampling for sequence labelling in small "
                    "languages. In *Proceedings of the 7th Workshop on Low-Resource Speech and Text* (pp. 12–21).",
                    "Malhotra, A. (2022). Cross-lingual transfer from Portuguese to Atlantic creoles. *Journal of "
                    "Creole Language Technology, 3*(2), 77–95.",
                    "Semedo, B. L., & Tavares, J. (2020). *Kriolu ortográfiku: guia prátiku*. Edisons Ilha, Praia.",
                ],
            ),
        ],
    ],
}

DOCS = [T10]
