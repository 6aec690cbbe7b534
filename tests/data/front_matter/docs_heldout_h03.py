"""HELD-OUT set, document h03: doctoral thesis (pt), PDF, empty metadata.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H03_TITLE = (
    "COMPÓSITOS DE POLIPROPILENO REFORÇADOS COM FIBRA DE BANANEIRA: "
    "propriedades mecânicas e degradação sob envelhecimento acelerado"
)
H03_TITLE_M = (
    "**COMPÓSITOS DE POLIPROPILENO REFORÇADOS COM FIBRA DE BANANEIRA:** "
    "propriedades mecânicas e degradação sob envelhecimento acelerado"
)
H03_NAME = "DÉBORA CRISTINA KOWALSKI TANAKA"

H03 = {
    "id": "h03",
    "file": "h03_tese_pt.pdf",
    "kind": "thesis",
    "language": "pt",
    "format": "pdf",
    "title": H03_TITLE,
    "authors": ["Débora Cristina Kowalski Tanaka"],
    "year": 2020,
    "metadata_right": None,
    "traps": [
        "cover_page",
        "author_caps_on_cover",
        "subtitle_after_colon",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "catalogue_card",
        "catalogue_card_birth_years",
        "approval_page_examiners",
        "dedication",
        "bibliographic_reference_on_abstract_page",
        "translated_title",
        "list_of_figures",
        "list_of_tables",
        "toc_dotted",
        "accented_names",
        "pdf_metadata_empty",
    ],
    "meta": {"title": None, "author": None, "creator": "Writer", "producer": "LibreOffice 6.4", "date": "2020-08-03"},
    "must_contain": [
        "Resumo",
        "Abstract",
        "1 Introdução",
        "2 Metodologia",
        "3 Resultados",
        "4 Conclusões",
        "Referências",
    ],
    "pages": [
        [
            ("fill",),
            ("c", H03_NAME, "b"),
            ("space", 60),
            ("c", H03_TITLE_M, "big"),
            ("space", 20),
            ("c", "Tese de Doutorado", "it"),
            ("push",),
            ("c", "UNIVERSIDADE FEDERAL DOS CAMPOS GERAIS", "b"),
            ("c", "PROGRAMA DE PÓS-GRADUAÇÃO EM ENGENHARIA E CIÊNCIA DE MATERIAIS", "b"),
            ("space", 8),
            ("c", "Ponta Grossa", ""),
            ("c", "2020", ""),
        ],
        [
            ("fill",),
            ("c", "Débora Cristina Kowalski Tanaka", "b"),
            ("space", 50),
            ("c", H03_TITLE_M, "big"),
            (
                "nature",
                "Tese apresentada ao Programa de Pós-Graduação em Engenharia e Ciência de Materiais da "
                "Universidade Federal dos Campos Gerais como requisito parcial à obtenção do título de Doutora "
                "em Engenharia e Ciência de Materiais.",
            ),
            ("block", ["Orientador: Prof. Dr. Wagner Lacerda Fontes"], "half"),
            ("push",),
            ("c", "Ponta Grossa", ""),
            ("c", "2020", ""),
        ],
        [
            ("fill",),
            ("push",),
            (
                "ficha",
                "Ficha catalográfica – Biblioteca Central da Universidade Federal dos Campos Gerais",
                [
                    "T161c\tTanaka, Débora Cristina Kowalski, 1991-",
                    "Compósitos de polipropileno reforçados com fibra de bananeira : propriedades mecânicas e degradação "
                    "sob envelhecimento acelerado / Débora Cristina Kowalski Tanaka. – Ponta Grossa, 2020.",
                    "xii, 98 f. : il. ; 30 cm",
                    "Orientador: Wagner Lacerda Fontes, 1969-",
                    "Tese (Doutorado em Engenharia e Ciência de Materiais) – Universidade Federal dos Campos Gerais.",
                    "1. Materiais compósitos. 2. Fibras vegetais. 3. Polipropileno. 4. Envelhecimento. I. Fontes, Wagner "
                    "Lacerda. II. Universidade Federal dos Campos Gerais. III. Título.",
                    "CDD 620.118",
                ],
                "Bibliotecário: Osmar Piekarski Netto – CRB-9/1620",
            ),
            ("space", 20),
        ],
        [
            ("fill",),
            ("c", "Débora Cristina Kowalski Tanaka", "b"),
            ("space", 10),
            ("c", H03_TITLE_M, ""),
            ("space", 6),
            (
                "pn",
                "Esta tese foi julgada adequada para obtenção do título de Doutora em Engenharia e Ciência de "
                "Materiais e aprovada em sua forma final pela Banca Examinadora em 24 de julho de 2020.",
            ),
            ("space", 6),
            (
                "block",
                [
                    "Prof. Dr. Wagner Lacerda Fontes (Orientador) – UFCGR",
                    "",
                    "Profa. Dra. Mirela Steinmetz Rocha – Instituto de Polímeros do Paraná",
                    "",
                    "Prof. Dr. Ulisses Paranhos Vidal – Universidade Estadual do Iguaçu",
                    "",
                    "Profa. Dra. Keila Hoffmann Brites – UFCGR",
                    "",
                    "Prof. Dr. Jonas Aurélio Cordeiro – UFCGR",
                ],
                "center",
            ),
            ("push",),
            ("right", "À Nonna Helena, que plantava bananeiras no quintal e não imaginava que elas virariam tese."),
            ("space", 10),
        ],
        [
            ("c", "RESUMO", "b"),
            (
                "pn",
                "TANAKA, Débora Cristina Kowalski. **Compósitos de polipropileno reforçados com fibra de "
                "bananeira**: propriedades mecânicas e degradação sob envelhecimento acelerado. 2020. 98 f. Tese "
                "(Doutorado em Engenharia e Ciência de Materiais) – Universidade Federal dos Campos Gerais, Ponta "
                "Grossa, 2020.",
            ),
            (
                "pn",
                "O pseudocaule da bananeira é descartado em grande quantidade após a colheita e pode fornecer "
                "fibras para reforço de polímeros. Esta tese avaliou compósitos de polipropileno com 10%, 20% e "
                "30% em massa de fibra de bananeira, com e sem agente de acoplamento, quanto às propriedades "
                "mecânicas e à degradação após envelhecimento acelerado por radiação ultravioleta e umidade. Os "
                "corpos de prova foram moldados por injeção e ensaiados em tração, flexão e impacto antes e depois "
                "de 1.000 horas de envelhecimento. O compósito com 20% de fibra e agente de acoplamento aumentou em "
                "47% o módulo de flexão e perdeu apenas 12% da resistência à tração após o envelhecimento. "
                "Conclui-se que a fibra de bananeira é um reforço viável para peças de uso externo quando "
                "combinada a um agente de acoplamento.",
            ),
            ("pn", "Palavras-chave: Fibras naturais. Polipropileno. Envelhecimento acelerado. Compósitos."),
            ("space", 4),
            ("c", "ABSTRACT", "b"),
            (
                "pn",
                "TANAKA, D. C. K. **Polypropylene composites reinforced with banana fibre**: mechanical "
                "properties and degradation under accelerated weathering. 2020. 98 p. Thesis (Doctorate in "
                "Materials Science and Engineering) – Universidade Federal dos Campos Gerais, Ponta Grossa, 2020.",
            ),
            (
                "pn",
                "Banana pseudostem fibre was tested as a reinforcement for polypropylene at 10, 20 and 30 wt%, "
                "with and without a coupling agent. After 1,000 hours of accelerated weathering, the composite "
                "with 20% fibre and coupling agent kept 88% of its tensile strength. Banana fibre is a viable "
                "reinforcement for outdoor parts.",
            ),
            ("pn", "Keywords: Natural fibres. Polypropylene. Weathering."),
        ],
        [
            ("c", "LISTA DE FIGURAS", "b"),
            (
                "toc",
                [
                    ("Figura 1 – Extração das fibras do pseudocaule", 17),
                    ("Figura 2 – Micrografias da superfície de fratura", 21),
                ],
            ),
            ("space", 6),
            ("c", "LISTA DE TABELAS", "b"),
            (
                "toc",
                [
                    ("Tabela 1 – Formulações dos compósitos", 18),
                    ("Tabela 2 – Propriedades mecânicas antes e depois do envelhecimento", 20),
                ],
            ),
            ("space", 6),
            ("c", "SUMÁRIO", "b"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 15),
                    ("2 METODOLOGIA", 17),
                    ("2.1 Materiais", 17),
                    ("2.2 Processamento e ensaios", 18),
                    ("3 RESULTADOS", 20),
                    ("4 CONCLUSÕES", 22),
                    ("REFERÊNCIAS", 23),
                ],
            ),
        ],
        [
            ("pageno", 15),
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "A produção brasileira de banana gera, a cada safra, toneladas de pseudocaules que permanecem no "
                "campo sem aproveitamento. As fibras extraídas desse resíduo são leves e baratas, mas absorvem "
                "umidade e aderem mal a matrizes poliméricas apolares como o polipropileno.",
            ),
            (
                "p",
                "O objetivo desta tese foi avaliar o efeito do teor de fibra de bananeira e do uso de agente de "
                "acoplamento sobre as propriedades mecânicas de compósitos de polipropileno e sobre sua degradação "
                "após envelhecimento acelerado.",
            ),
            ("h", "2 METODOLOGIA"),
            ("h2", "2.1 Materiais"),
            (
                "p",
                "As fibras foram extraídas manualmente de pseudocaules coletados em um bananal do Vale do Ribeira, "
                "lavadas, secas a 80 °C e moídas até comprimento médio de 3 mm. Utilizou-se polipropileno "
                "homopolímero de injeção e polipropileno enxertado com anidrido maleico como agente de "
                "acoplamento.",
            ),
            ("h2", "2.2 Processamento e ensaios"),
            (
                "p",
                "Seis formulações, com 10%, 20% e 30% de fibra, com e sem 3% de agente de acoplamento, foram "
                "extrudadas e moldadas por injeção. Os corpos de prova foram ensaiados em tração, flexão e impacto "
                "Izod antes e depois de 1.000 horas em câmara de envelhecimento com ciclos de radiação ultravioleta "
                "e condensação.",
            ),
        ],
        [
            ("pageno", 20),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "O agente de acoplamento elevou a resistência à tração em todas as formulações, com o maior ganho "
                "(31%) no teor de 20% de fibra. Nesse compósito, o módulo de flexão foi 47% superior ao do "
                "polipropileno puro. Com 30% de fibra, a aglomeração das fibras reduziu a resistência ao impacto.",
            ),
            (
                "p",
                "Após o envelhecimento, os compósitos sem agente de acoplamento perderam até 34% da resistência à "
                "tração, enquanto o compósito com 20% de fibra e agente de acoplamento perdeu 12%. As micrografias "
                "mostraram fissuras superficiais menos profundas quando a interface fibra-matriz era melhor.",
            ),
            ("h", "4 CONCLUSÕES"),
            (
                "p",
                "A fibra de bananeira, no teor de 20% e com agente de acoplamento, produz compósitos de "
                "polipropileno mais rígidos e com boa retenção de propriedades após o envelhecimento acelerado. "
                "O material é indicado para peças de uso externo de baixa solicitação mecânica, e recomenda-se "
                "estudar aditivos estabilizantes para ampliar sua vida útil.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "BRITES, K. H.; FONTES, W. L. Fibras vegetais tratadas em matrizes de poliolefinas. **Revista "
                    "de Materiais do Sul**, v. 18, n. 4, p. 301-316, 2017.",
                    "ROCHA, M. S. **Envelhecimento de polímeros**: ensaios e interpretação. Curitiba: Editora "
                    "Araucária Técnica, 2016.",
                    "VIDAL, U. P.; CORDEIRO, J. A. Resíduos da bananicultura como matéria-prima. **Engenharia "
                    "Agroindustrial**, v. 9, p. 77-90, 2019.",
                    "TANAKA, D. C. K.; FONTES, W. L. Extração mecânica de fibras de pseudocaule. In: CONGRESSO "
                    "PARANAENSE DE MATERIAIS, 12., 2018, Ponta Grossa. **Anais** [...]. Ponta Grossa: CPM, 2018. "
                    "p. 55-60.",
                ],
            ),
        ],
    ],
}

DOCS = [H03]
