"""HELD-OUT set, document h06: journal article (en), DOCX, empty core props.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H06_TITLE = "Who Reads the Tide Tables? Survey Evidence on Coastal Hazard Information Use among Small-Scale Fishers"

H06 = {
    "id": "h06",
    "file": "h06_journal_en.docx",
    "kind": "journal",
    "language": "en",
    "format": "docx",
    "title": H06_TITLE,
    "authors": ["Nkechi Adeyemi-Hart", "Rui Manuel Carvalhais", "Siobhán O'Riordan"],
    "year": 2024,
    "metadata_right": None,
    "traps": [
        "journal_line_above_title",
        "article_type_label",
        "running_head",
        "running_head_author_surnames",
        "doi_issn",
        "received_accepted_dates",
        "authors_and_list",
        "superscript_affiliations",
        "affiliation_emails",
        "how_to_cite_block",
        "hyphenated_name",
        "apostrophe_name",
        "accented_names",
        "docx_core_empty",
    ],
    "core": {
        "author": "",
        "title": "",
        "last_modified_by": "",
        "revision": 9,
        "created": "2023-08-20T11:00:00",
        "modified": "2024-01-30T09:45:00",
    },
    "header": "Adeyemi-Hart et al. | Ocean and Coastal Policy Letters 6 (2024) 12–27",
    "docx_font": "Georgia",
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [
            ("pn", "OCEAN AND COASTAL POLICY LETTERS | Volume 6 | Issue 1 | 2024 | ISSN 3012-5568"),
            ("pn", "Research Article · https://doi.org/10.5555/ocpl.2024.0612"),
            ("title", H06_TITLE),
            ("c", "Nkechi Adeyemi-Hart^1^, Rui Manuel Carvalhais^2^ and Siobhán O'Riordan^1,3^", ""),
            (
                "block",
                [
                    "^1^ Centre for Coastal Livelihoods, University of Port Harcastle, Nigeria",
                    "^2^ Instituto de Ciências do Mar, Universidade do Minho Atlântico, Portugal",
                    "^3^ Marine Social Science Unit, Galway Bay Institute, Ireland",
                    "Correspondence: n.adeyemihart@uph.edu.ng",
                ],
                "small",
            ),
            (
                "block",
                [
                    "Received: 29 August 2023 | Accepted: 4 January 2024 | Published: 26 February 2024",
                    "Citation: Adeyemi-Hart N, Carvalhais RM, O'Riordan S (2024) Who reads the tide tables? "
                    "Ocean Coast Policy Lett 6(1): 12–27.",
                ],
                "small",
            ),
            ("h", "Abstract"),
            (
                "pn",
                "Coastal agencies publish tide tables, storm warnings and sea-state forecasts, but little is known "
                "about whether small-scale fishers use them. We surveyed 612 fishers in 18 landing sites in three "
                "countries about the sources of hazard information they consult before going to sea. Only 34% "
                "consulted an official forecast on a typical day, whereas 81% relied on other fishers and their "
                "own observation of the sky and sea. Use of official information was higher among fishers who "
                "owned a smartphone and among those who had lost gear to a storm in the previous two years. "
                "Agencies should deliver forecasts through channels fishers already use, such as voice messages "
                "in local languages.",
            ),
            ("pn", "Keywords: small-scale fisheries; coastal hazards; risk communication; weather forecasts"),
        ],
        [
            ("h", "1 Introduction"),
            (
                "p",
                "Small-scale fishers face weather and sea-state hazards every working day, and accidents at sea "
                "remain a leading cause of death in many fishing communities. Public agencies have invested in "
                "forecasts and warning systems, yet their reach among fishers is rarely measured.",
            ),
            (
                "p",
                "The aim of this study was to describe which sources of hazard information small-scale fishers "
                "consult before going to sea and to identify the factors associated with the use of official "
                "forecasts.",
            ),
            ("h", "2 Methods"),
            (
                "p",
                "A cross-sectional survey was carried out between March and June 2023 in 18 landing sites selected "
                "to cover different vessel types and distances from urban centres in three countries. Trained "
                "enumerators interviewed 612 fishers in their preferred language, using a 32-item questionnaire.",
            ),
            (
                "p",
                "The main outcome was whether the fisher had consulted an official forecast on the last day at "
                "sea. Associations with age, schooling, smartphone ownership, vessel size and previous losses were "
                "estimated with mixed-effects logistic regression, with landing site as a random effect.",
            ),
            ("h", "3 Results"),
            (
                "p",
                "Only 34% of respondents had consulted an official forecast on their last day at sea, while 81% "
                "had asked other fishers and 76% relied on their own observation. Smartphone owners were more "
                "likely to use official forecasts (odds ratio 2.6; 95% CI 1.8–3.7), as were fishers who had lost "
                "gear or a vessel to a storm in the previous two years (odds ratio 1.9; 95% CI 1.3–2.8).",
            ),
            ("h", "4 Conclusions"),
            (
                "p",
                "Official hazard information reaches only a minority of small-scale fishers, who depend mainly on "
                "peers and personal experience. Agencies should distribute forecasts through voice messages, "
                "community radio and landing-site boards in local languages, and evaluate whether these channels "
                "reduce losses at sea.",
            ),
            ("h", "References"),
            (
                "refs",
                [
                    "Carvalhais, R. M. (2020). *Pescadores e previsões: comunicação de risco no litoral norte*. "
                    "Edições Maré, Viana.",
                    "O'Riordan, S., & Keane, P. (2019). Trust in weather warnings among inshore fishers. *Marine "
                    "Policy Review, 11*(2), 55–70.",
                    "Adeyemi-Hart, N., & Bello, T. (2022). Mobile phones and fishing safety in West African canoe "
                    "fisheries. *Coastal Livelihoods Journal, 8*, 101–118.",
                ],
            ),
        ],
    ],
}

DOCS = [H06]
