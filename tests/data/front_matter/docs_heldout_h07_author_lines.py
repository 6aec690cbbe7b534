"""Held-out set, documents h07-h10: journal papers whose authors stand one per line, each followed on its line by
an affiliation in brackets or parentheses, an ORCID, an e-mail or a mark. HELD OUT: do not read while tuning.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

from paper_body import markdown, must_contain, pdf_pages


H07_TITLE = "Cover Crops and Soil Water in Rainfed Vineyards of a Dry Inland Valley"
H07_AUTHORS = ["Tomasz Wieczorek", "Adaeze Nwankwo-Bell", "Rui Pedro Sarmento"]
H07_BODY = {
    "abstract": "Rainfed vineyards lose yield in dry summers, and growers fear that cover crops compete with the "
    "vines for water. We measured soil water under three inter-row managements over four seasons. A winter cover "
    "terminated in early spring kept as much water at depth as bare soil and reduced runoff by a third.",
    "intro": "Cover crops protect vineyard soils from erosion, yet in dry inland valleys many growers till the "
    "inter-row to save water for the vines. The aim of this study was to test whether a winter cover crop, "
    "terminated early, lowers the soil water available to the vines in summer.",
    "methods": "Twelve plots in a commercial vineyard received bare tilled soil, a permanent grass cover or a winter "
    "cereal cover terminated in March. Soil water was logged at 30, 60 and 90 cm from 2019 to 2022.",
    "results": "At 60 and 90 cm the early-terminated cover held the same water as tilled soil in every summer, while "
    "the permanent cover held 18 % less. Runoff after autumn storms fell by 34 % under both covers.",
    "conclusions": "A winter cover terminated in early spring protects the soil without taking summer water from "
    "rainfed vines, and growers in dry valleys can adopt it without a yield penalty.",
    "references": [
        "Abad, J. Vineyard floor management in dry climates. Vitis Research, 2018.",
        "Lopes, C. Soil water and grapevine yield. Journal of Viticulture, 2020.",
    ],
}
H07 = {
    "id": "h07", "file": "h07_journal_en.md", "kind": "journal", "language": "en", "format": "md",
    "title": H07_TITLE, "authors": H07_AUTHORS, "year": 2024, "metadata_right": None,
    "traps": ["author_per_line_affiliation_brackets", "no_yaml", "journal_line_below_authors"],
    "text": markdown(
        H07_TITLE,
        ["Tomasz Wieczorek   [Faculty of Agronomy | Lakeshore State University]",
         "Adaeze Nwankwo-Bell   [School of Earth Sciences | University of Harrowgate]",
         "Rui Pedro Sarmento   [Centre for Vine Research | Instituto Politécnico do Alto Douro]"],
        "Journal of Dryland Viticulture, vol. 9, no. 2, 2024", H07_BODY, "en"),
}  # fmt: skip

H08_TITLE = "Leitura em voz alta e fluência de alunos do quinto ano em escolas rurais"
H08_AUTHORS = ["Beatriz Nogueira Salles", "Marcos da Rocha Pires", "Iara Cordeiro Bastos"]
H08_BODY = {
    "abstract": "A fluência de leitura no quinto ano prediz o desempenho escolar dos anos seguintes, mas escolas "
    "rurais raramente dispõem de tempo de leitura orientada. Avaliamos um programa de vinte minutos diários de leitura "
    "em voz alta em duplas, aplicado durante um semestre em dezoito escolas rurais multisseriadas. Os alunos do "
    "programa leram, ao final, em média 21 palavras por minuto a mais do que os do grupo de comparação.",
    "intro": "Nas escolas rurais multisseriadas, um único professor atende alunos de várias séries na mesma sala, e "
    "a leitura orientada costuma ceder espaço a outras atividades. O objetivo deste estudo foi verificar se a leitura "
    "em voz alta em duplas, conduzida pelos próprios alunos, melhora a fluência de leitura no quinto ano. Estudos "
    "anteriores com turmas urbanas sugerem ganhos de fluência com a leitura em pares, mas não há avaliações em "
    "turmas multisseriadas, em que o professor divide a atenção entre várias séries ao mesmo tempo.",
    "methods": "Participaram 412 alunos de 36 escolas rurais de três municípios, sorteadas para o programa ou para "
    "a comparação. A fluência foi medida em palavras lidas corretamente por minuto, no início e no fim do semestre, "
    "com textos inéditos de dificuldade equivalente. Os professores das escolas do programa receberam uma formação "
    "de oito horas e um conjunto de quarenta textos curtos, organizados por nível de dificuldade.",
    "results": "Os alunos do programa passaram de 68 para 97 palavras por minuto, e os da comparação de 70 para 78. "
    "O ganho foi maior entre os alunos que começaram com menos de 60 palavras por minuto. A compreensão, medida por "
    "perguntas sobre os textos, também melhorou, embora menos do que a fluência.",
    "conclusions": "A leitura em voz alta em duplas é uma prática barata que melhora a fluência de leitura em "
    "escolas rurais multisseriadas, sobretudo entre os leitores mais lentos, e pode ser adotada sem materiais além "
    "de textos curtos e de uma formação breve dos professores.",
    "references": [
        "CASTRO, L. Fluência de leitura nos anos iniciais. Revista de Educação Básica, 2019.",
        "MOURA, T. Classes multisseriadas no Brasil. Cadernos de Pesquisa Rural, 2021.",
    ],
}
H08 = {
    "id": "h08", "file": "h08_artigo_pt.pdf", "kind": "journal", "language": "pt", "format": "pdf",
    "title": H08_TITLE, "authors": H08_AUTHORS, "year": 2023, "metadata_right": None,
    "traps": ["author_per_line_affiliation_parens", "name_particle", "accented_names", "pdf_metadata_empty"],
    "meta": {"creator": "Writer", "producer": "LibreOffice 7.5", "date": "2023-08-14"},
    "must_contain": must_contain("pt"),
    "pages": pdf_pages(
        H08_TITLE,
        [("block", ["Beatriz Nogueira Salles (Faculdade de Educação, Universidade do Litoral Sul)",
                    "Marcos da Rocha Pires (Secretaria Municipal de Educação de Baixa Verde)",
                    "Iara Cordeiro Bastos (Instituto de Letras, Universidade Estadual do Agreste)"], "center")],
        "Revista de Alfabetização e Leitura, v. 15, n. 2, p. 41-58, 2023", H08_BODY, "pt"),
}  # fmt: skip

H09_TITLE = "Previsão de demanda de água em cidades médias com modelos de séries temporais"
H09_AUTHORS = ["Lívia Assunção Barros", "Henrique Tavares Quintela", "Sofia Oliveira d'Ávila"]
H09_BODY = {
    "abstract": "Companhias de saneamento de cidades médias planejam a operação com previsões simples da demanda. "
    "Comparamos três modelos de séries temporais na previsão diária do consumo de água de quatro cidades. O modelo "
    "com temperatura e feriados reduziu o erro médio em 27 % em relação à média móvel usada pelas companhias.",
    "intro": "O consumo diário de água varia com o calor, os dias da semana e os feriados. O objetivo do trabalho "
    "foi avaliar se modelos de séries temporais com variáveis de clima reduzem o erro da previsão diária de demanda.",
    "methods": "Usamos cinco anos de consumo diário de quatro cidades entre 150 e 400 mil habitantes e comparamos a "
    "média móvel, um modelo SARIMA e um modelo SARIMA com temperatura máxima e feriados como regressores.",
    "results": "O modelo com temperatura e feriados teve erro percentual médio de 3,1 %, contra 4,2 % do SARIMA e "
    "4,3 % da média móvel. O ganho concentrou-se nos dias de calor extremo e nas vésperas de feriados.",
    "conclusions": "Incluir a temperatura e o calendário de feriados na previsão diária reduz o erro de forma "
    "consistente e pode ser feito com dados que as companhias de saneamento já possuem.",
    "references": [
        "PEREIRA, A. Previsão de consumo urbano de água. Revista de Engenharia Sanitária, 2017.",
        "SOUZA, M. Modelos SARIMA em saneamento. Anais do Simpósio de Recursos Hídricos, 2021.",
    ],
}
H09 = {
    "id": "h09", "file": "h09_artigo_pt.md", "kind": "journal", "language": "pt", "format": "md",
    "title": H09_TITLE, "authors": H09_AUTHORS, "year": 2025, "metadata_right": None,
    "traps": ["author_per_line_orcid", "apostrophe_name", "accented_names", "no_yaml"],
    "text": markdown(
        H09_TITLE,
        ["Lívia Assunção Barros · ORCID 0000-0002-7788-1122",
         "Henrique Tavares Quintela · ORCID 0000-0001-9034-5567",
         "Sofia Oliveira d'Ávila · ORCID 0000-0003-4410-2098"],
        "Revista Brasileira de Saneamento, v. 30, n. 1, 2025", H09_BODY, "pt"),
}  # fmt: skip

H10_TITLE = "Detecting Leaks in District Heating Pipes from Thermal Drone Images"
H10_AUTHORS = ["Samuel K. Adeyemi", "Chloé Martin-Roux", "Viktor Lindqvist"]
H10_BODY = {
    "abstract": "Leaks in buried district heating pipes waste energy and are found late, when the ground above them "
    "is already warm enough to melt snow. We trained a segmentation model on thermal images taken from a drone over "
    "62 km of network and compared its detections with the utility's repair records. The model found 41 of the 47 "
    "leaks repaired in the following year, with one false alarm for every eight kilometres flown.",
    "intro": "District heating networks deliver hot water through pipes buried a metre below streets and gardens, "
    "and a leak can run for months before a customer reports it. The purpose of this work was to find out whether "
    "thermal images from a drone, read by a segmentation model, locate leaks early enough to plan repairs. Earlier "
    "surveys from aircraft covered whole cities but at a resolution too coarse to tell a leak from a warm roof.",
    "methods": "A drone with a radiometric thermal camera flew the network of a northern city at dawn in two winters. "
    "Warm anomalies were labelled by two engineers on 3,100 image tiles, and a U-Net was trained on the first winter "
    "and tested on the second against the utility's repair records for the following twelve months.",
    "results": "On the test winter the model found 41 of the 47 leaks later repaired, missing mainly leaks under "
    "thick asphalt. It raised eight false alarms, most of them at manholes and at parked cars that had just arrived. "
    "Engineers reviewing its detections needed 40 minutes for each kilometre of network.",
    "conclusions": "Thermal drone images read by a segmentation model find most district heating leaks a season "
    "before they are reported, at a cost of review time that a utility can afford, and are a practical addition to "
    "the inspections utilities already run.",
    "references": [
        "Berg, P. Heat losses in district heating networks. Energy Systems Review, 2019.",
        "Ito, K. Thermal imaging from unmanned aircraft. Remote Sensing Letters, 2021.",
    ],
}
H10 = {
    "id": "h10", "file": "h10_journal_en.pdf", "kind": "journal", "language": "en", "format": "pdf",
    "title": H10_TITLE, "authors": H10_AUTHORS, "year": 2024, "metadata_right": None,
    "traps": ["author_per_line_email", "author_per_line_mark", "corresponding_author_note", "hyphenated_name",
              "accented_names", "pdf_metadata_empty"],
    "meta": {"creator": "Microsoft Word", "producer": "Microsoft: Print To PDF", "date": "2024-03-02"},
    "must_contain": must_contain("en"),
    "pages": pdf_pages(
        H10_TITLE,
        [("block", ["Samuel K. Adeyemi* <s.adeyemi@harrowtech.ac.uk>",
                    "Chloé Martin-Roux <chloe.martin-roux@lyon-nord.fr>",
                    "Viktor Lindqvist <viktor.lindqvist@norrvik.se>"], "center"),
         ("block", ["*Corresponding author"], "small")],
        "Journal of Urban Energy Networks, vol. 6, no. 1, pp. 12-25, 2024", H10_BODY, "en"),
}  # fmt: skip

DOCS = [H07, H08, H09, H10]
