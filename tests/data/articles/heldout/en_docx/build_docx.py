"""Build article.docx (fictional English energy article, HELD-OUT test data, CC BY 4.0).

Run with the project venv:  ../../../../../.venv/bin/python build_docx.py
then convert:               soffice --headless --convert-to pdf article.docx
"""

import datetime
from pathlib import Path

from docx import Document
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm, Pt


HERE = Path(__file__).resolve().parent

TITLE = "Soiling Losses in Small Rooftop Photovoltaic Systems: Twelve Months of Paired Monitoring in a Semi-Arid City"
AUTHORS = ["Daniel Kwame Osei-Mensah", "Laura Brennan Whitfield", "Arjun Ramesh Iyer"]

ABSTRACT = (
    "Dust deposited on photovoltaic modules reduces their output, yet small rooftop systems are rarely monitored for "
    "soiling. "
    "We measured soiling losses on six residential rooftop arrays in a semi-arid city for twelve months using paired "
    "clean and soiled reference modules, and used the measured rates to evaluate the economics of manual cleaning. "
    "Mean soiling rates were 0.15% per day in the dry season and 0.04% per day in the wet season, and annual energy "
    "losses ranged from 1.8% to 4.3% depending on tilt and proximity to unpaved roads. "
    "A cost model based on local tariffs and cleaning prices gave optimal cleaning intervals of 48 to 96 days, longer "
    "than the typical gap between effective rain events for five of the six systems. "
    "We conclude that paid manual cleaning is economically justified only for the most exposed low-tilt arrays."
)
KEYWORDS = "photovoltaics; soiling; rooftop solar; cleaning schedule; semi-arid climate"

INTRO = [
    "Small rooftop photovoltaic (PV) systems have become the fastest-growing segment of electricity generation in many "
    "semi-arid regions, where high irradiance makes them attractive even without subsidies. "
    "The same climates, however, tend to be dry and dusty, and particles deposited on the module glass reduce the "
    "light reaching the cells. "
    "This effect, known as soiling, is well documented for utility-scale plants, where operators measure it routinely "
    "and schedule cleaning by contract (Hassan and Verlaine, 2018). "
    "Households and small businesses rarely monitor soiling at all, and their cleaning decisions are usually based on "
    "appearance or habit (Ndlovu and Carter, 2021).",
    "Soiling rates vary widely with local dust sources, tilt angle, rainfall pattern and the occurrence of dew, which "
    "can cement particles to the glass (Moreau et al., 2019). "
    "Published values range from less than 0.05% to more than 1% of energy lost per day, so figures obtained at one "
    "site transfer poorly to another.",
    "The aim of this work is to quantify soiling losses on residential rooftop arrays in a semi-arid city over a full "
    "year and to identify the cleaning interval that minimises the combined cost of lost energy and cleaning. "
    "We set out to answer two questions. "
    "First, how large are soiling losses on low-tilt rooftop modules, and how do they differ between the dry and wet "
    "seasons? "
    "Second, at what interval, if any, does paid manual cleaning pay for itself at current household tariffs?",
]

BACKGROUND = [
    "The soiling ratio is defined as the ratio of the power output of a soiled module to that of an identical clean "
    "module under the same irradiance and temperature (Kimura and Adeyemi, 2020). "
    "Its daily decrease during dry periods is called the soiling rate. "
    "Two measurement approaches are common. "
    "Dedicated soiling stations compare a module that is cleaned daily with one that is left to accumulate dust, "
    "whereas model-based approaches infer soiling from the deviation between expected and measured yield.",
    "Cleaning schedules are often derived from a simple trade-off: each cleaning restores output but has a fixed "
    "cost, whereas losses grow roughly linearly between rain events (Patel and Ortega, 2017). "
    "Under these assumptions the optimal interval is proportional to the square root of the ratio between the cost "
    "of one cleaning and the daily increase in the value of lost energy. "
    "The approach has rarely been tested with measured data from small systems, for which the cleaning cost per "
    "kilowatt installed is much higher than in large plants.",
]

METHODS = [
    (
        "3.1 Site and monitoring set-up",
        [
            "The study was carried out in Ardenvale, an inland city with a semi-arid climate, a mean annual rainfall of "
            "412 mm and a pronounced dry season from May to October (Ardenvale Municipal Weather Service, 2021). "
            "We monitored six rooftop systems between 1 November 2020 and 31 October 2021, ranging from 3.2 to 6.5 kWp "
            "and installed at tilt angles between 8° and 15°. "
            "Each system was fitted with a pair of reference modules of the same model as the array, mounted side by side "
            "in the plane of the array. "
            "One module of each pair was cleaned with deionised water every morning before 7:00 by a trained member of the "
            "household, and the other was never cleaned during the study. "
            "Short-circuit current and back-of-module temperature of both reference modules were logged every five "
            "minutes.",
        ],
    ),
    (
        "3.2 Data processing",
        [
            "Data were screened to remove periods with plane-of-array irradiance below 300 W/m², shading, logger failures "
            "and days on which the daily cleaning was not carried out, as recorded in a paper logbook. "
            "After screening, 1,874 valid system-days remained out of a possible 2,190, or 85.6%. "
            "The daily soiling ratio was computed as the median, over the valid five-minute intervals between 10:00 and "
            "14:00, of the temperature-corrected short-circuit current of the soiled module divided by that of the clean "
            "module (Fernández et al., 2016). "
            "Soiling rates were estimated by robust linear regression of the soiling ratio against time within each dry "
            "interval longer than 14 days, following Kimura and Adeyemi (2020).",
        ],
    ),
    (
        "3.3 Cleaning cost model",
        [
            "To estimate an economically optimal cleaning interval, we combined the measured dry-season soiling rate of each "
            "system with its mean daily yield of 4.8 kWh per kWp and a household tariff of $0.25 per kWh. "
            "The cost of a professional cleaning visit was taken as $20 per system, the median of quotes obtained from four "
            "local providers. "
            "For each system we computed the optimal interval as the square root of twice the cleaning cost divided by the "
            "daily increase in the value of lost energy, and compared it with the observed gaps between effective rain "
            "events, defined as days with more than 2 mm of rainfall.",
        ],
    ),
]

RESULTS_1 = (
    "Soiling losses were strongly seasonal (Table 1). "
    "During the dry season the soiling ratio declined steadily between the rare rain events, with a mean soiling rate "
    "of 0.15% per day across the six systems. "
    "In the wet season frequent rainfall kept the modules relatively clean and the mean rate fell to 0.04% per day. "
    "The lowest soiling ratio recorded was 0.846, on system S4 after 71 days without effective rain, which "
    "corresponds to a loss of 15.4% of potential output."
)
TABLE_1 = (
    "Table 1. Characteristics of the monitored systems, measured soiling rates, annual energy loss due to soiling "
    "and optimal dry-season cleaning interval.",
    [
        "System",
        "Size (kWp)",
        "Tilt (°)",
        "Dry-season rate (%/day)",
        "Wet-season rate (%/day)",
        "Annual loss (%)",
        "Optimal interval (days)",
    ],
    [
        ["S1", "3.2", "10", "0.12", "0.03", "2.4", "93"],
        ["S2", "4.0", "15", "0.09", "0.02", "1.8", "96"],
        ["S3", "4.5", "8", "0.17", "0.05", "3.4", "66"],
        ["S4", "6.5", "8", "0.22", "0.06", "4.3", "48"],
        ["S5", "5.0", "12", "0.14", "0.03", "2.8", "69"],
        ["S6", "3.6", "12", "0.16", "0.05", "3.1", "76"],
        ["Mean", "4.5", "10.8", "0.15", "0.04", "3.0", "74.7"],
    ],
)
RESULTS_2 = (
    "Annual energy losses attributable to soiling ranged from 1.8% on system S2 to 4.3% on system S4, with a mean of "
    "3.0%. "
    "The two systems with the lowest tilt, S3 and S4, showed the highest soiling rates in both seasons, and S4, "
    "located 40 m from an unpaved road, lost more than twice as much energy as S2. "
    "Light rain events below 2 mm did not restore the soiling ratio and in several cases lowered it further, "
    "apparently because moisture made the dust adhere more firmly to the glass."
)
RESULTS_3 = (
    "The cost model yielded optimal cleaning intervals between 48 and 96 days, with a median of 72.5 days. "
    "Because the median gap between effective rain events in the dry season was 58 days, natural cleaning would in "
    "most cases occur before a scheduled manual cleaning became worthwhile. "
    "Only for S4 was the optimal interval clearly shorter than the typical gap between effective rains; for this "
    "system, two additional cleanings per dry season would recover an estimated 1.9% of annual output, worth about "
    "$54 per year, against a cost of $40."
)

DISCUSSION = [
    "The dry-season soiling rates measured here fall within the range reported for ground-mounted plants in "
    "comparable climates (Moreau et al., 2019), but the spread between systems only a few kilometres apart was large. "
    "Tilt and local dust sources explained most of this variation: the two systems at 8° lost considerably more energy "
    "than the system at 15°, consistent with the greater ability of steeper modules to shed particles under wind and "
    "light rain. "
    "This suggests that generic soiling figures published for a region may substantially misjudge the losses of "
    "individual rooftops.",
    "The economic analysis runs against common practice. "
    "Many installers in the region recommend monthly cleaning, yet our results show that for typical household "
    "systems this would cost more than the energy it recovers. "
    "The balance changes for larger arrays, lower tilt angles and sites close to unpaved roads, where soiling "
    "accumulates fast enough for cleaning to pay off. "
    "Because the optimal interval scales with the inverse square root of system size and soiling rate, doubling "
    "either shortens it by only about 30%, so the decision depends more on site exposure than on fine-tuning the "
    "schedule.",
    "Our study has limitations. "
    "Reference modules measure short-circuit current, which responds to uniform soiling but may underestimate losses "
    "caused by localised deposits such as bird droppings, which can activate bypass diodes. "
    "The monitoring covered a single year, and rainfall in 2021 was 9% above the long-term mean, so losses in a drier "
    "year would probably be higher.",
]

CONCLUSIONS = [
    "Soiling reduced the annual output of small rooftop PV systems in a semi-arid city by between 1.8% and 4.3%, with "
    "losses concentrated in the dry season and strongly dependent on tilt angle and nearby dust sources. "
    "Paid manual cleaning was economically justified only for the largest and most exposed low-tilt array, while for "
    "the other five systems rainfall removed enough dust to make scheduled cleaning unprofitable at current prices. "
    "Households and installers should therefore base cleaning decisions on site exposure rather than on fixed "
    "calendars, and a pair of reference modules offers an affordable way to make that assessment.",
]

REFERENCES = [
    "Ardenvale Municipal Weather Service (2021). Annual Climatological Summary 2021. Ardenvale: AMWS.",
    "Fernández, L., Grant, P. and Yusuf, A. (2016). Temperature correction of short-circuit current for reference "
    "cells and modules. Photovoltaic Measurement Letters, 2(2), 51–58.",
    "Hassan, R. and Verlaine, M. (2018). Operational soiling monitoring at utility-scale photovoltaic plants in arid "
    "regions. Solar Field Operations, 11(2), 145–158.",
    "Kimura, T. and Adeyemi, O. (2020). A robust method for estimating soiling rates from paired reference devices. "
    "Progress in Field Photovoltaics, 6(4), 301–314.",
    "Moreau, C., Lindqvist, E. and Dlamini, S. (2019). Dew, dust and cementation: drivers of soiling on photovoltaic "
    "glass. Journal of Arid Energy Research, 4(1), 22–39.",
    "Ndlovu, B. and Carter, J. (2021). Household attitudes to rooftop solar maintenance: a survey in three inland "
    "cities. Energy and Society Review, 15, 410–426.",
    "Patel, N. and Ortega, J. (2017). Optimal cleaning schedules for photovoltaic arrays under linear soiling. Energy "
    "Systems Economics, 9(3), 88–97.",
]


def setup_page_and_styles(doc):
    """Set US Letter page geometry, base fonts, header and footer."""
    sec = doc.sections[0]
    sec.page_height, sec.page_width = Cm(27.94), Cm(21.59)  # US Letter
    sec.left_margin = sec.right_margin = Cm(2.3)
    sec.top_margin = sec.bottom_margin = Cm(2.2)

    normal = doc.styles["Normal"]
    normal.font.name = "DejaVu Sans"
    normal.font.size = Pt(10)
    normal.paragraph_format.space_after = Pt(6)
    normal.paragraph_format.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
    for name in ("Title", "Heading 1", "Heading 2"):
        doc.styles[name].font.name = "DejaVu Serif"
        doc.styles[name].paragraph_format.alignment = WD_ALIGN_PARAGRAPH.LEFT

    hdr = sec.header.paragraphs[0]
    hdr.text = "Journal of Applied Solar Field Studies (fictional) · Vol. 7 · 2022"
    hdr.runs[0].font.size = Pt(8)
    ftr = sec.footer.paragraphs[0]
    ftr.text = "Osei-Mensah, Whitfield and Iyer · Rooftop PV soiling"
    ftr.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    ftr.runs[0].font.size = Pt(8)


def add_title_block(doc):
    """Add the title, authors, affiliations and correspondence line."""
    doc.add_paragraph(TITLE, style="Title")

    p = doc.add_paragraph()
    for i, (name, aff) in enumerate(zip(AUTHORS, ["a", "b", "a"])):
        p.add_run(name).bold = True
        p.add_run(aff).font.superscript = True
        if i < len(AUTHORS) - 1:
            p.add_run(", ")
    for tag, text in (
        ("a", "Centre for Distributed Energy, Lowmoor University, Ardenvale"),
        ("b", "Department of Mechanical Engineering, Ardenvale Polytechnic, Ardenvale"),
    ):
        q = doc.add_paragraph()
        q.paragraph_format.space_after = Pt(0)
        s = q.add_run(tag)
        s.font.superscript = True
        r = q.add_run(text)
        r.font.size = Pt(9)
    q = doc.add_paragraph()
    r = q.add_run(
        "Correspondence: d.osei-mensah@lowmoor.example.edu · Received 14 March 2022 · Accepted 2 August 2022"
    )
    r.font.size = Pt(9)
    r.italic = True


def add_abstract(doc):
    """Add the indented abstract and keywords paragraphs."""
    ab = doc.add_paragraph()
    ab.paragraph_format.left_indent = Cm(0.8)
    ab.paragraph_format.right_indent = Cm(0.8)
    ab.add_run("Abstract").bold = True
    ab.add_run(" — " + ABSTRACT)
    kw = doc.add_paragraph()
    kw.paragraph_format.left_indent = Cm(0.8)
    kw.add_run("Keywords: ").italic = True
    kw.add_run(KEYWORDS)


def add_section(doc, heading, paragraphs):
    """Add a level-1 heading followed by plain paragraphs."""
    doc.add_heading(heading, level=1)
    for t in paragraphs:
        doc.add_paragraph(t)


def add_methods(doc):
    """Add the methods section with its level-2 subsections."""
    doc.add_heading("3 Data and Methods", level=1)
    for sub, paras in METHODS:
        doc.add_heading(sub, level=2)
        for t in paras:
            doc.add_paragraph(t)


def add_table_1(doc):
    """Add the caption and the centred, small-type Table 1."""
    caption, header, rows = TABLE_1
    cap = doc.add_paragraph(caption)
    cap.runs[0].font.size = Pt(9)
    cap.runs[0].italic = True
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Light List Accent 1"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for cell, text in zip(table.rows[0].cells, header):
        cell.text = text
    for row in rows:
        for cell, text in zip(table.add_row().cells, row):
            cell.text = text
    for row in table.rows:
        for cell in row.cells:
            for par in cell.paragraphs:
                par.paragraph_format.space_after = Pt(0)
                par.alignment = WD_ALIGN_PARAGRAPH.CENTER
                for run in par.runs:
                    run.font.size = Pt(8.5)


def add_results(doc):
    """Add the results section: text, Table 1, and the remaining text."""
    doc.add_heading("4 Results", level=1)
    doc.add_paragraph(RESULTS_1)
    add_table_1(doc)
    doc.add_paragraph()
    doc.add_paragraph(RESULTS_2)
    doc.add_paragraph(RESULTS_3)


def add_back_matter(doc):
    """Add the acknowledgements and the hanging-indent reference list."""
    ack = doc.add_paragraph()
    ack.add_run("Acknowledgements. ").bold = True
    ack.add_run("We thank the six households that hosted the monitoring equipment and kept the cleaning logbooks.")

    doc.add_heading("References", level=1)
    for t in REFERENCES:
        r = doc.add_paragraph(t)
        r.paragraph_format.left_indent = Cm(0.6)
        r.paragraph_format.first_line_indent = Cm(-0.6)
        r.paragraph_format.space_after = Pt(3)
        r.paragraph_format.alignment = WD_ALIGN_PARAGRAPH.LEFT
        r.runs[0].font.size = Pt(9)


def set_core_properties(doc):
    """Set fixed document metadata so the output is reproducible."""
    cp = doc.core_properties
    cp.author = "; ".join(AUTHORS)
    cp.title = TITLE
    cp.language = "en-GB"
    cp.created = datetime.datetime(2022, 9, 5, 14, 0, 0)
    cp.modified = datetime.datetime(2022, 9, 5, 14, 0, 0)
    cp.last_modified_by = AUTHORS[0]


def main():
    """Build the article and save it as article.docx next to this script."""
    doc = Document()
    setup_page_and_styles(doc)
    add_title_block(doc)
    add_abstract(doc)
    add_section(doc, "1 Introduction", INTRO)
    add_section(doc, "2 Background", BACKGROUND)
    add_methods(doc)
    add_results(doc)
    add_section(doc, "5 Discussion", DISCUSSION)
    add_section(doc, "6 Conclusions", CONCLUSIONS)
    add_back_matter(doc)
    set_core_properties(doc)
    doc.save(HERE / "article.docx")


if __name__ == "__main__":
    main()
