"""Tuning set, document t05: journal article (en), DOCX, right core props.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T05_TITLE = "Sediment yield under shifting land cover: evidence from a subtropical headwater basin"

T05 = {
    "id": "t05",
    "file": "t05_journal_en.docx",
    "kind": "journal",
    "language": "en",
    "format": "docx",
    "title": T05_TITLE,
    "authors": ["Camila Duarte Reis", "Oliver J. Whitcombe", "Sunita Raghunathan"],
    "year": 2022,
    "metadata_right": True,
    "traps": [
        "journal_line_above_title",
        "article_type_label",
        "running_head",
        "doi_issn",
        "authors_and_list",
        "superscript_affiliations",
        "affiliation_emails",
        "received_accepted_dates",
        "subtitle_after_colon",
        "docx_core_right",
    ],
    "core": {
        "author": "Camila Duarte Reis",
        "title": T05_TITLE,
        "last_modified_by": "Oliver Whitcombe",
        "revision": 17,
        "created": "2021-10-20T14:03:00",
        "modified": "2022-03-01T08:30:00",
    },
    "header": "J. Appl. Watershed Sci. 9(4): 233–249 (2022) · https://doi.org/10.5555/jaws.2022.0914",
    "docx_font": "Calibri",
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [
            ("pn", "Journal of Applied Watershed Science, Vol. 9, No. 4 (2022), pp. 233–249 · ISSN 2811-4407"),
            ("pn", "**ORIGINAL RESEARCH ARTICLE**"),
            ("title", T05_TITLE),
            ("c", "Camila Duarte Reis^a^, Oliver J. Whitcombe^b^ and Sunita Raghunathan^a,c^", ""),
            (
                "block",
                [
                    "^a^ Department of Environmental Engineering, Universidade Federal do Alto Paranapanema, Avaré, "
                    "Brazil",
                    "^b^ School of Geography, University of Eastmoor, Leeds, United Kingdom",
                    "^c^ Institute for Catchment Studies, Pune, India",
                    "Corresponding author: Camila Duarte Reis (camila.reis@ufapn.edu.br)",
                ],
                "small",
            ),
            (
                "block",
                [
                    "Received 3 November 2021; Revised 18 January 2022; Accepted 2 March 2022; Published online "
                    "15 April 2022",
                    "© 2022 The Authors. Published under a CC BY 4.0 licence.",
                ],
                "small",
            ),
            ("h", "Abstract"),
            (
                "pn",
                "Land-cover change in subtropical headwaters alters how much sediment reaches downstream "
                "reservoirs, yet few basins have records long enough to separate land-use effects from rainfall "
                "variability. We combined eleven years (2010–2020) of turbidity-derived suspended sediment data "
                "from the 46 km² Ribeirão das Pedras basin with annual land-cover maps classified from satellite "
                "imagery. A multiple regression with rainfall erosivity, the share of bare soil and unpaved road "
                "density explained 78% of the interannual variance in sediment yield. Unpaved road density had "
                "the largest effect per unit area, ahead of cropland expansion. Improving road drainage may "
                "therefore cut sediment delivery at lower cost than restoring riparian forest alone.",
            ),
            ("pn", "**Keywords:** sediment yield; land-cover change; unpaved roads; headwater catchments"),
        ],
        [
            ("h", "1 Introduction"),
            (
                "p",
                "Small reservoirs in south-eastern Brazil lose storage capacity every year as sediment eroded "
                "from their catchments settles behind the dam. Land-cover change is usually blamed, but rainfall "
                "in the region varies so much from year to year that short monitoring records cannot tell the two "
                "causes apart.",
            ),
            (
                "p",
                "The objective of this study was to quantify how changes in cropland, pasture, forest and unpaved "
                "roads affected the annual sediment yield of a subtropical headwater basin, after accounting for "
                "rainfall erosivity.",
            ),
            ("h", "2 Methods"),
            (
                "p",
                "The Ribeirão das Pedras basin (46 km²) drains into a water-supply reservoir. From 2010 to 2020 a "
                "turbidity sensor at the outlet recorded values every 15 minutes; 212 depth-integrated water "
                "samples were used to convert turbidity into suspended sediment concentration, and discharge was "
                "measured at a rated section.",
            ),
            (
                "p",
                "Land cover was mapped for each year from dry-season satellite images with a random forest "
                "classifier (overall accuracy 0.91), and unpaved roads were digitised from aerial photographs. "
                "Annual sediment yield was regressed on rainfall erosivity, the share of bare soil, cropland and "
                "forest, and road density, with variables selected by cross-validation.",
            ),
            ("h", "3 Results"),
            (
                "p",
                "Annual sediment yield ranged from 38 to 164 t km⁻², with the two highest values in the wettest "
                "years. The selected model (Table 1) explained 78% of the interannual variance. Road density had "
                "the largest standardised coefficient: the 21% increase in unpaved roads between 2012 and 2018 "
                "corresponded to about 19 t km⁻² per year of additional sediment.",
            ),
            (
                "table",
                "Table 1. Standardised coefficients of the selected regression model (n = 11 years).",
                ["Predictor", "Coefficient", "95% CI"],
                [
                    ["Rainfall erosivity", "0.52", "0.31 to 0.73"],
                    ["Unpaved road density", "0.41", "0.18 to 0.64"],
                    ["Share of bare soil", "0.27", "0.02 to 0.52"],
                ],
                None,
            ),
            ("h", "4 Conclusions"),
            (
                "p",
                "After accounting for rainfall, unpaved roads were the land-cover feature most strongly linked to "
                "sediment yield in this headwater basin. Catchment managers should consider road drainage works, "
                "which are cheaper per hectare than riparian restoration, as a first measure to protect small "
                "reservoirs.",
            ),
            ("h", "References"),
            (
                "refs",
                [
                    "Almeida, T. R., & Koenig, P. (2019). Turbidity as a surrogate for suspended sediment in small "
                    "Brazilian rivers. *Hydrology of the Tropics, 14*(2), 88–103.",
                    "Reis, C. D. (2018). *Erosão em estradas rurais não pavimentadas* [Doctoral thesis, Universidade "
                    "Federal do Alto Paranapanema].",
                    "Whitcombe, O. J., & Sandoval, M. (2020). Separating climate and land-use signals in sediment "
                    "records. *Earth Surface Letters, 7*, 1–15.",
                    "Raghunathan, S., Iyer, K., & Reis, C. D. (2021). Road networks and sediment connectivity. "
                    "*Journal of Applied Watershed Science, 8*(1), 12–30.",
                ],
            ),
        ],
    ],
}

DOCS = [T05]
