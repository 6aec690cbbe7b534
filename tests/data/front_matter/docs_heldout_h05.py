"""HELD-OUT set, document h05: preprint (en), PDF, right metadata.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H05_TITLE = "Estimating Pollinator Decline from Citizen-Science Photographs with Weak Labels"

H05 = {
    "id": "h05",
    "file": "h05_preprint_en.pdf",
    "kind": "preprint",
    "language": "en",
    "format": "pdf",
    "font": "sans",
    "title": H05_TITLE,
    "authors": ["Marisol Quintero-Vega", "Adebayo Okonkwo", "Pedro Henrique da Cunha Lins", "Eleanor Fitzgerald"],
    "year": 2025,
    "metadata_right": True,
    "traps": [
        "arxiv_stamp",
        "preprint_line",
        "hyphen_at_line_break_in_title",
        "superscript_affiliations",
        "affiliation_emails",
        "hyphenated_name",
        "name_particle",
        "pdf_metadata_right",
    ],
    "meta": {
        "title": H05_TITLE,
        "author": "Marisol Quintero-Vega; Adebayo Okonkwo; Pedro Henrique da Cunha Lins; Eleanor Fitzgerald",
        "creator": "LaTeX with hyperref",
        "producer": "pdfTeX-1.40.26",
        "date": "2025-02-11",
    },
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [
            ("block", ["arXiv:2502.07731v1 [q-bio.PE] 11 Feb 2025"], "small"),
            ("space", 10),
            ("title", H05_TITLE),
            (
                "c",
                "Marisol Quintero-Vega^1†^, Adebayo Okonkwo^2†^, Pedro Henrique da Cunha Lins^1,2^, "
                "Eleanor Fitzgerald^3^",
                "",
            ),
            (
                "block",
                [
                    "^1^Centro de Ecología Computacional, Universidad del Altiplano Sur, Bolivia",
                    "^2^School of Biosciences, Lakeshore University of Technology, Kenya",
                    "^3^Department of Statistics, Queen's College Harrowgate, United Kingdom",
                    "^†^Equal contribution. Correspondence to: m.quintero@uas.edu.bo",
                ],
                "center",
            ),
            ("c", "*Preprint. Under review.*", "small"),
            ("h", "Abstract"),
            (
                "pn",
                "Citizen-science platforms collect millions of insect photographs, but most carry only a coarse "
                'label such as "bee" or "fly", which limits their use for monitoring individual pollinator '
                "groups. We trained an image classifier for 14 pollinator groups with weak labels derived from "
                "the platforms' community identifications and then used its predictions to estimate trends in "
                "detection rates. On 212,000 photographs from three regions taken between 2012 and 2023, the "
                "classifier reached a macro-F1 of 0.83, and the estimated trends agreed in sign with structured "
                "transect surveys for 11 of 14 groups. Weakly labelled citizen-science photographs can thus "
                "complement, but not replace, structured pollinator monitoring.",
            ),
            ("h", "1 Introduction"),
            (
                "p",
                "Evidence for pollinator decline comes mostly from structured surveys that are expensive and cover "
                "few regions. Photographs uploaded by volunteers are far more numerous and widespread, but they are "
                "opportunistic and often identified only to a coarse level.",
            ),
            (
                "p",
                "Our objective is to test whether a classifier trained on weak, community-derived labels can turn "
                "these photographs into trend estimates that agree with structured surveys.",
            ),
        ],
        [
            ("h", "2 Methods"),
            (
                "p",
                "We downloaded 212,000 research-grade photographs of flower visitors from three regions with "
                "long-running transect schemes. Weak labels were assigned from the most specific identification "
                "agreed by at least two community members; 6,400 photographs checked by experts served as the "
                "test set.",
            ),
            (
                "p",
                "An image classifier pre-trained on general images was fine-tuned with a noise-robust loss. Yearly "
                "detection rates per group were modelled with a generalised additive model that accounts for "
                "observer effort, and trends were compared with those from the transect surveys.",
            ),
            ("h", "3 Results"),
            (
                "p",
                "The classifier reached a macro-F1 of 0.83 on the expert-checked test set, with the lowest scores "
                "for small solitary bees (0.61). Trend estimates from photographs agreed in sign with the transect "
                "surveys for 11 of 14 groups, and the correlation between the two sets of slopes was 0.72. "
                "Disagreements concerned groups whose photographs were concentrated in urban gardens.",
            ),
            (
                "table",
                "Table 1: Agreement between photograph-based and transect-based trends.",
                ["Region", "Groups", "Same sign", "Slope correlation"],
                [["Region A", "14", "12", "0.78"], ["Region B", "14", "11", "0.70"], ["Region C", "14", "10", "0.66"]],
                None,
            ),
            ("h", "4 Conclusions"),
            (
                "p",
                "Weakly labelled citizen-science photographs, combined with effort-aware trend models, reproduce "
                "most trends seen in structured surveys at a fraction of the cost. They are best used to extend "
                "monitoring to regions and years that surveys do not cover, with care for groups photographed "
                "mainly in gardens.",
            ),
            ("h", "References"),
            (
                "refs",
                [
                    "Fitzgerald, E., & Osei, K. (2021). Effort correction for opportunistic records. *Journal of "
                    "Ecological Statistics*, 9(3), 144–162.",
                    "Okonkwo, A. (2022). Community identifications as noisy labels. In *Proceedings of the Workshop "
                    "on Machine Learning for Biodiversity* (pp. 31–39).",
                    "Quintero-Vega, M., & Lins, P. H. C. (2023). Pollinator transects in the southern Andes, "
                    "2010–2022. *Andean Ecology Letters*, 4, 1–18.",
                ],
            ),
        ],
    ],
}

DOCS = [H05]
