"""Second held-out set, documents h11-h14: papers whose authors stand one per line with something after the name
(an affiliation after a dash or in parentheses, an e-mail, an ORCID, a mark). Written on 2026-12-07, BEFORE the
reader was tuned on the misses of the first held-out set (h01-h10): it measures that tuning. HELD OUT: do not read
while tuning.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

from paper_body import markdown, must_contain, pdf_pages


H11_TITLE = "Hortas escolares e consumo de hortaliças por crianças do ensino fundamental"
H11_AUTHORS = ["Camila Ventura Prates", "Josué Albuquerque Lins", "Maria Eduarda dos Reis Falcão"]
H11_BODY = {
    "abstract": "Crianças brasileiras consomem menos hortaliças do que o recomendado, e a escola é um dos poucos "
    "lugares em que esse hábito pode mudar. Acompanhamos por um ano letivo doze escolas municipais, seis com horta "
    "cultivada pelos alunos e seis sem horta. Nas escolas com horta, a aceitação das hortaliças servidas na merenda "
    "subiu de 41 % para 63 % das porções.",
    "intro": "A merenda escolar oferece hortaliças todos os dias, mas boa parte das porções volta intacta. O objetivo "
    "deste estudo foi verificar se cultivar uma horta na escola aumenta a aceitação das hortaliças servidas na "
    "merenda pelos próprios alunos.",
    "methods": "Participaram 1.140 alunos do segundo ao quinto ano. A aceitação foi medida pela pesagem das sobras "
    "nos pratos em duas semanas de cada bimestre, sempre com o mesmo cardápio.",
    "results": "A aceitação subiu de 41 % para 63 % nas escolas com horta e de 39 % para 44 % nas demais. O ganho foi "
    "maior para as folhas, que os alunos tinham plantado, do que para os legumes comprados.",
    "conclusions": "Hortas cultivadas pelos alunos aumentam a aceitação das hortaliças da merenda, sobretudo das que "
    "eles próprios plantam, e podem ser adotadas com baixo custo pelas redes municipais.",
    "references": [
        "GOMES, R. Merenda escolar e desperdício. Revista de Nutrição Escolar, 2018.",
        "LEAL, T. Hortas pedagógicas no ensino fundamental. Educação e Ambiente, 2021.",
    ],
}
H11 = {
    "id": "h11", "file": "h11_artigo_pt.md", "kind": "journal", "language": "pt", "format": "md",
    "title": H11_TITLE, "authors": H11_AUTHORS, "year": 2022, "metadata_right": None,
    "traps": ["author_per_line_affiliation_parens", "name_particle", "accented_names", "no_yaml"],
    "text": markdown(
        H11_TITLE,
        ["Camila Ventura Prates (Departamento de Nutrição – Universidade Federal do Agreste Meridional)",
         "Josué Albuquerque Lins (Secretaria Municipal de Educação de Riacho Claro)",
         "Maria Eduarda dos Reis Falcão (Departamento de Nutrição – Universidade Federal do Agreste Meridional)"],
        "Revista de Alimentação e Escola, v. 11, n. 3, 2022", H11_BODY, "pt"),
}  # fmt: skip

H12_TITLE = "Predicting Bus Arrival Delays from Open Transit Feeds with Gradient Boosting"
H12_AUTHORS = ["Hyun-woo Baek", "Oluwaseun Adebanjo", "Margarida Tavares Silva"]
H12_BODY = {
    "abstract": "Riders wait longer than they need to because published bus timetables ignore traffic. We trained "
    "gradient-boosted trees on two years of open real-time feeds from a mid-sized city and predicted arrival delays "
    "at every stop. The model halved the mean absolute error of the schedule's own estimate, from 3.1 to 1.5 minutes.",
    "intro": "Open transit feeds publish where every bus is, yet most stops still show scheduled times. The aim of "
    "this work was to test whether a model trained only on those open feeds can predict arrival delays well enough "
    "for stop displays. Earlier studies relied on loop detectors or on the operator's private data, which most "
    "small cities do not have; a model that needs only the open feed could be copied from city to city. We also "
    "asked which features matter most, so that a city with a poorer feed knows what it gives up.",
    "methods": "We used 41 million vehicle positions from 2021 to 2023, the hour, the weekday, the weather and the "
    "delay at the previous three stops as features, and held out the last three months for testing. Positions were "
    "matched to stops by the shortest distance along the route, and trips with gaps of more than five minutes in "
    "the feed were left out. The baseline was the delay the operator's own schedule implies at each stop, and the "
    "error was measured in minutes at the moment a rider would read the display.",
    "results": "The mean absolute error fell from 3.1 minutes for the schedule to 1.5 for the model, and to 1.1 "
    "minutes within ten stops of the bus. Errors were largest after school hours and in heavy rain.",
    "conclusions": "Open real-time feeds are enough to predict bus arrival delays at stops twice as well as the "
    "timetable, and a city can run such a model without data of its own.",
    "references": [
        "Moreau, L. Real-time transit data standards. Transport Informatics, 2019.",
        "Chen, Y. Boosted trees for travel time. Journal of Urban Mobility, 2022.",
    ],
}
H12 = {
    "id": "h12", "file": "h12_journal_en.pdf", "kind": "journal", "language": "en", "format": "pdf",
    "title": H12_TITLE, "authors": H12_AUTHORS, "year": 2023, "metadata_right": None,
    "traps": ["author_per_line_email", "author_per_line_orcid", "hyphenated_name", "pdf_metadata_empty"],
    "meta": {"creator": "LaTeX with hyperref", "producer": "pdfTeX-1.40.25", "date": "2023-10-14"},
    "must_contain": must_contain("en"),
    "pages": pdf_pages(
        H12_TITLE,
        [("block", ["Hyun-woo Baek, hw.baek@eastmoor.ac.uk, ORCID 0000-0002-3141-5926",
                    "Oluwaseun Adebanjo, o.adebanjo@lagoonpoly.edu.ng, ORCID 0000-0001-2718-2818",
                    "Margarida Tavares Silva, mtsilva@ulitoral.pt, ORCID 0000-0003-1414-2135"], "center")],
        "Journal of Public Transport Analytics, vol. 4, no. 2, pp. 77-91, 2023", H12_BODY, "en"),
}  # fmt: skip

H13_TITLE = "Community Radio and Vaccination Uptake in Remote River Settlements"
H13_AUTHORS = ["Ana Luísa Mourão", "Ibrahim Diallo", "Grace O'Connell-Baptiste"]
H13_BODY = {
    "abstract": "Vaccination campaigns reach remote river settlements late and reach few. We compared settlements "
    "where a community radio station announced the boat clinic's visits with settlements reached only by posters. "
    "Where the radio announced the visits, 71 % of eligible children were vaccinated, against 52 % elsewhere.",
    "intro": "Boat clinics visit river settlements a few days a year, and families often learn of a visit too late. "
    "The aim of this study was to find out whether announcing the visits on community radio raises the share of "
    "children vaccinated.",
    "methods": "Twenty-four settlements along two rivers were paired by size and distance; one of each pair heard "
    "radio announcements for two weeks before each visit. Coverage came from the clinics' own registers.",
    "results": "Coverage reached 71 % with the radio and 52 % without it. The difference was largest in settlements "
    "more than a day's travel from the nearest town.",
    "conclusions": "Announcing boat clinic visits on community radio raises vaccination coverage in remote river "
    "settlements at little cost, most of all in the most isolated ones.",
    "references": [
        "Reis, F. Boat clinics in river basins. Rural Health Review, 2017.",
        "Sow, A. Radio and public health messages. Communication for Development, 2020.",
    ],
}
H13 = {
    "id": "h13", "file": "h13_journal_en.md", "kind": "journal", "language": "en", "format": "md",
    "title": H13_TITLE, "authors": H13_AUTHORS, "year": 2021, "metadata_right": None,
    "traps": ["author_per_line_affiliation_brackets", "author_per_line_mark", "apostrophe_name", "hyphenated_name",
              "accented_names", "no_yaml"],
    "text": markdown(
        H13_TITLE,
        ["Ana Luísa Mourão† [Institute of Tropical Health, University of the Lower Basin]",
         "Ibrahim Diallo [Department of Communication, Sahel Polytechnic]",
         "Grace O'Connell-Baptiste† [Institute of Tropical Health, University of the Lower Basin]"],
        "Journal of Rural Public Health, vol. 15, no. 4, 2021", H13_BODY, "en",
        after=["† These authors contributed equally."]),
}  # fmt: skip

H14_TITLE = "Telhados verdes e escoamento pluvial em bairros densos de uma capital do Nordeste"
H14_AUTHORS = ["Tiago Menezes Brandão", "Luana Cristina de Aragão", "Érico Valadares Nunes"]
H14_BODY = {
    "abstract": "Bairros densos impermeabilizam quase todo o solo, e a chuva intensa vira alagamento em minutos. "
    "Medimos por dois anos o escoamento de doze telhados, seis verdes e seis convencionais, no mesmo bairro. Os "
    "telhados verdes retiveram em média 58 % da chuva de cada evento e atrasaram o pico de vazão em 22 minutos.",
    "intro": "As redes de drenagem das capitais foram dimensionadas para bairros menos densos do que os de hoje. O "
    "objetivo deste trabalho foi medir quanto um telhado verde retém da chuva e quanto atrasa o pico de vazão em um "
    "clima tropical úmido. Os estudos disponíveis vêm quase todos de cidades de clima temperado, em que a chuva é "
    "menos intensa e a evaporação entre os eventos é menor. Também queríamos saber se o substrato raso, o único "
    "que a maioria dos telhados existentes suporta, ainda retém uma parte útil das chuvas mais fortes.",
    "methods": "Cada telhado recebeu um medidor de vazão na calha e um pluviômetro. Foram analisados 143 eventos de "
    "chuva entre 2020 e 2022, separados por intensidade. Os telhados verdes tinham substrato de 10 cm sobre manta "
    "drenante e foram plantados com grama-amendoim; os convencionais eram de telha cerâmica. A retenção de cada "
    "evento foi a diferença entre a chuva medida e o volume escoado pela calha, dividida pela chuva.",
    "results": "A retenção média foi de 58 % nos telhados verdes e de 6 % nos convencionais. Em chuvas acima de "
    "40 mm a retenção caiu para 31 %, mas o atraso do pico se manteve acima de 15 minutos.",
    "conclusions": "Telhados verdes reduzem e atrasam o escoamento pluvial em bairros densos de clima tropical "
    "úmido e podem aliviar a rede de drenagem nas chuvas mais frequentes.",
    "references": [
        "FARIAS, D. Drenagem urbana em capitais do Nordeste. Revista de Recursos Hídricos, 2019.",
        "QUEIROZ, P. Coberturas vegetadas em clima tropical. Ambiente Construído, 2021.",
    ],
}
H14 = {
    "id": "h14", "file": "h14_artigo_pt.pdf", "kind": "journal", "language": "pt", "format": "pdf",
    "title": H14_TITLE, "authors": H14_AUTHORS, "year": 2023, "metadata_right": None,
    "traps": ["author_per_line_affiliation_brackets", "author_per_line_mark", "corresponding_author_note",
              "name_particle", "accented_names", "pdf_metadata_empty"],
    "meta": {"creator": "Writer", "producer": "LibreOffice 7.5", "date": "2023-08-09"},
    "must_contain": must_contain("pt"),
    "pages": pdf_pages(
        H14_TITLE,
        [("block", ["Tiago Menezes Brandão* [Escola Politécnica | Universidade Federal do Litoral Norte]",
                    "Luana Cristina de Aragão [Escola Politécnica | Universidade Federal do Litoral Norte]",
                    "Érico Valadares Nunes [Instituto de Geografia | Universidade Estadual da Serra Azul]"], "center"),
         ("block", ["*Autor correspondente: tiago.brandao@ufln.edu.br"], "small")],
        "Revista de Drenagem Urbana, v. 8, n. 2, p. 101-117, 2023", H14_BODY, "pt"),
}  # fmt: skip

DOCS = [H11, H12, H13, H14]
