"""Tuning set, document t02: dissertation, DOCX, wrong core properties.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T02_TITLE = "MANEJO DA IRRIGAÇÃO EM VIDEIRAS JOVENS: efeitos do déficit hídrico controlado sobre a produtividade"
T02_TITLE_M = "**MANEJO DA IRRIGAÇÃO EM VIDEIRAS JOVENS:** efeitos do déficit hídrico controlado sobre a produtividade"

T02 = {
    "id": "t02",
    "file": "t02_dissertacao_pt.docx",
    "kind": "dissertation",
    "language": "pt",
    "format": "docx",
    "title": T02_TITLE,
    "authors": ["Ana Beatriz Ferreira-Lopes"],
    "year": 2021,
    "metadata_right": False,
    "traps": [
        "cover_page",
        "docx_title_style_misused",
        "author_caps_on_cover",
        "subtitle_after_colon",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "catalogue_card",
        "catalogue_card_inverted_caps",
        "approval_page_examiners",
        "acknowledgements",
        "first_heading_not_title",
        "list_of_tables",
        "toc_dotted",
        "hyphenated_name",
        "docx_core_wrong",
    ],
    "core": {
        "author": "Windows User",
        "title": "Modelo ABNT",
        "last_modified_by": "Ana",
        "revision": 41,
        "created": "2019-03-11T09:12:00",
        "modified": "2021-03-02T22:47:00",
    },
    "header": None,
    "must_contain": ["Resumo", "1 Introdução", "2 Metodologia", "3 Resultados", "4 Conclusão", "Referências"],
    "pages": [
        [
            ("misused_title", "UNIVERSIDADE ESTADUAL DO ALTO URUGUAI"),
            ("c", "CENTRO DE CIÊNCIAS AGRÁRIAS", "b"),
            ("c", "PROGRAMA DE PÓS-GRADUAÇÃO EM AGRONOMIA", "b"),
            ("space", 40),
            ("c", "ANA BEATRIZ FERREIRA-LOPES", "b"),
            ("space", 40),
            ("c", T02_TITLE_M, "big"),
            ("space", 64),
            ("c", "CHAPECÓ", "b"),
            ("c", "2021", "b"),
        ],
        [
            ("c", "ANA BEATRIZ FERREIRA-LOPES", "b"),
            ("space", 40),
            ("c", T02_TITLE_M, "big"),
            ("space", 16),
            (
                "nature",
                "Dissertação apresentada ao Programa de Pós-Graduação em Agronomia da Universidade Estadual do "
                "Alto Uruguai, como requisito parcial para a obtenção do título de Mestra em Agronomia. Área de "
                "concentração: Produção Vegetal.",
            ),
            (
                "block",
                [
                    "Orientador: Prof. Dr. Cláudio Esteves Marchetti",
                    "Coorientadora: Profa. Dra. Renata dos Anjos Kuhn",
                ],
                "half",
            ),
            ("space", 48),
            ("c", "CHAPECÓ", "b"),
            ("c", "2021", "b"),
        ],
        [
            ("space", 96),
            (
                "ficha",
                "Dados Internacionais de Catalogação na Publicação (CIP)",
                [
                    "F383m\tFERREIRA-LOPES, Ana Beatriz",
                    "Manejo da irrigação em videiras jovens : efeitos do déficit hídrico controlado sobre a "
                    "produtividade / Ana Beatriz Ferreira-Lopes. – Chapecó, 2021.",
                    "96 f. : il. color. ; 30 cm.",
                    "Orientador: Cláudio Esteves Marchetti.",
                    "Coorientadora: Renata dos Anjos Kuhn.",
                    "Dissertação (mestrado) – Universidade Estadual do Alto Uruguai, Programa de Pós-Graduação em "
                    "Agronomia, Chapecó, 2021.",
                    "1. Videira. 2. Irrigação. 3. Déficit hídrico. I. Marchetti, Cláudio Esteves. II. Kuhn, Renata dos "
                    "Anjos. III. Título.",
                    "CDD 634.8",
                ],
                "Ficha elaborada pela Biblioteca Central da UEAU – Bibliotecário Everton Lisboa Pacheco, CRB-14/977",
            ),
        ],
        [
            ("c", "ANA BEATRIZ FERREIRA-LOPES", "b"),
            ("space", 16),
            ("c", T02_TITLE_M, "b"),
            ("space", 16),
            (
                "pn",
                "Dissertação defendida e aprovada em 26 de fevereiro de 2021 pela banca examinadora constituída "
                "pelos professores:",
            ),
            (
                "block",
                [
                    "Prof. Dr. Cláudio Esteves Marchetti – UEAU (Orientador)",
                    "",
                    "Profa. Dra. Renata dos Anjos Kuhn – UEAU (Coorientadora)",
                    "",
                    "Prof. Dr. Anselmo Righi Zanatta – Instituto Vitivinícola do Sul",
                    "",
                    "Profa. Dra. Graziela Potrich Sauer – UEAU",
                ],
                "center",
            ),
        ],
        [
            ("h", "AGRADECIMENTOS"),
            (
                "p",
                "Agradeço ao Prof. Dr. Cláudio Esteves Marchetti, pela confiança e pelas correções minuciosas, e à "
                "Profa. Dra. Renata dos Anjos Kuhn, que me ensinou a montar o primeiro tensiômetro. À família "
                "Dall'Agnol, que cedeu o vinhedo onde o experimento foi conduzido. À Fundação de Amparo à Pesquisa "
                "do Alto Uruguai, pela bolsa de mestrado.",
            ),
            ("h", "RESUMO"),
            (
                "p",
                "A viticultura no Oeste catarinense depende cada vez mais da irrigação nos primeiros anos após o "
                "plantio, quando o sistema radicular ainda é superficial. Esta dissertação avaliou o efeito de três "
                "níveis de déficit hídrico controlado sobre o crescimento e a produtividade de videiras jovens da "
                "cultivar Isabel Precoce. O experimento foi conduzido em blocos casualizados, com quatro repetições, "
                "nas safras 2018/2019 e 2019/2020. A reposição de 70% da evapotranspiração da cultura manteve a "
                "produtividade estatisticamente igual à da irrigação plena e aumentou em 32% a eficiência do uso da "
                "água. Conclui-se que o déficit moderado é uma estratégia viável para produtores com oferta limitada "
                "de água.",
            ),
            ("pn", "Palavras-chave: Vitis labrusca. Evapotranspiração. Eficiência do uso da água."),
            ("h", "LISTA DE TABELAS"),
            ("toc", [("Tabela 1 – Lâmina aplicada, produtividade e eficiência do uso da água por tratamento", 16)]),
            ("h", "SUMÁRIO"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 14),
                    ("2 METODOLOGIA", 15),
                    ("3 RESULTADOS", 16),
                    ("4 CONCLUSÃO", 17),
                    ("REFERÊNCIAS", 18),
                ],
            ),
        ],
        [
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "A expansão de vinhedos em pequenas propriedades do Oeste de Santa Catarina ocorreu em áreas antes "
                "ocupadas por grãos, nas quais a irrigação raramente era necessária. Nos dois primeiros anos após o "
                "plantio, porém, as estiagens de verão comprometem o crescimento das plantas e atrasam a primeira "
                "colheita comercial. Como a água disponível nas propriedades é limitada, interessa saber quanto se "
                "pode economizar sem perda de produção.",
            ),
            (
                "p",
                "O objetivo deste trabalho foi quantificar os efeitos de diferentes níveis de déficit hídrico "
                "controlado sobre o crescimento vegetativo, a produtividade e a eficiência do uso da água de "
                "videiras jovens.",
            ),
            ("h", "2 METODOLOGIA"),
            (
                "p",
                "O experimento foi instalado em um vinhedo comercial no município de Chapecó, SC, em Latossolo "
                "Vermelho, com plantas de dois anos enxertadas sobre o porta-enxerto Paulsen 1103. O delineamento "
                "foi em blocos casualizados, com três tratamentos e quatro repetições de dez plantas.",
            ),
            (
                "p",
                "Os tratamentos consistiram na reposição de 100%, 70% e 40% da evapotranspiração da cultura (ETc), "
                "estimada pelo método de Penman-Monteith com dados de uma estação meteorológica instalada a 300 m "
                "da área. Avaliaram-se o diâmetro do tronco, a produtividade por planta e a eficiência do uso da "
                "água (EUA); os dados foram submetidos à análise de variância e ao teste de Tukey a 5%.",
            ),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "Nas duas safras, a produtividade do tratamento com 70% da ETc (10,9 t ha⁻¹) não diferiu da "
                "irrigação plena (11,4 t ha⁻¹), enquanto a reposição de 40% reduziu a produtividade em 31%. A "
                "eficiência do uso da água cresceu com o déficit, mas no tratamento de 40% o ganho de eficiência "
                "não compensou a perda de produção (Tabela 1).",
            ),
            (
                "table",
                "Tabela 1 – Lâmina aplicada, produtividade e eficiência do uso da água por tratamento",
                ["Tratamento", "Lâmina aplicada (mm)", "Produtividade (t ha⁻¹)", "EUA (kg m⁻³)"],
                [
                    ["100% ETc", "412", "11,4 a", "2,77 c"],
                    ["70% ETc", "298", "10,9 a", "3,66 b"],
                    ["40% ETc", "185", "7,9 b", "4,27 a"],
                ],
                "Médias seguidas da mesma letra na coluna não diferem pelo teste de Tukey (p < 0,05).",
            ),
            ("h", "4 CONCLUSÃO"),
            (
                "p",
                "A reposição de 70% da evapotranspiração da cultura é recomendada para videiras jovens da "
                "cultivar Isabel Precoce nas condições do Oeste catarinense, pois reduz o consumo de água em cerca "
                "de 28% sem reduzir a produtividade. O déficit de 40% só se justifica em anos de escassez severa.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "BORTOLINI, Sérgio; ANDREATTA, Lívia. **Irrigação de fruteiras de clima temperado**. "
                    "Chapecó: Editora Planalto Verde, 2016.",
                    "KUHN, Renata dos Anjos. Déficit hídrico regulado em videiras americanas. **Revista Agrária "
                    "do Alto Uruguai**, v. 12, n. 3, p. 201-214, 2018.",
                    "MARCHETTI, Cláudio Esteves; ZANATTA, Anselmo Righi. Evapotranspiração de vinhedos jovens no "
                    "Oeste catarinense. **Cadernos de Agrometeorologia**, v. 7, p. 45-58, 2017.",
                    "SAUER, Graziela Potrich. Manejo hídrico e qualidade do mosto. 2015. Tese (Doutorado em "
                    "Agronomia) – Universidade Estadual do Alto Uruguai, Chapecó, 2015.",
                ],
            ),
        ],
    ],
}

DOCS = [T02]
