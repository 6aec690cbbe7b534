"""Tuning set, document t03: doctoral thesis, PDF, right metadata (LaTeX).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T03_TITLE = (
    "VIGILÂNCIA DE ARBOVIROSES EM MUNICÍPIOS DE PEQUENO PORTE: "
    "modelagem espaço-temporal das notificações de dengue entre 2015 e 2020"
)
T03_TITLE_M = (
    "**VIGILÂNCIA DE ARBOVIROSES EM MUNICÍPIOS DE PEQUENO PORTE:** "
    "modelagem espaço-temporal das notificações de dengue entre 2015 e 2020"
)
T03_INST = [
    "UNIVERSIDADE FEDERAL DO CERRADO MINEIRO",
    "FACULDADE DE MEDICINA",
    "PROGRAMA DE PÓS-GRADUAÇÃO EM SAÚDE COLETIVA",
]

T03 = {
    "id": "t03",
    "file": "t03_tese_pt.pdf",
    "kind": "thesis",
    "language": "pt",
    "format": "pdf",
    "title": T03_TITLE,
    "authors": ["Rafael Augusto dos Reis Monteiro"],
    "year": 2023,
    "metadata_right": True,
    "traps": [
        "cover_page",
        "author_caps_on_cover",
        "subtitle_after_colon",
        "years_in_title",
        "hyphen_at_line_break_in_title",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "catalogue_card",
        "catalogue_card_birth_years",
        "approval_page_examiners",
        "bibliographic_reference_on_abstract_page",
        "translated_title",
        "list_of_figures",
        "toc_dotted",
        "name_particle",
        "pdf_metadata_right",
    ],
    "meta": {
        "title": "Vigilância de arboviroses em municípios de pequeno porte: modelagem espaço-temporal das "
        "notificações de dengue entre 2015 e 2020",
        "author": "Rafael Augusto dos Reis Monteiro",
        "creator": "LaTeX with abnTeX2",
        "producer": "pdfTeX-1.40.24",
        "date": "2023-04-10",
    },
    "must_contain": [
        "Resumo",
        "Abstract",
        "1 Introdução",
        "2 Metodologia",
        "3 Resultados",
        "4 Conclusão",
        "Referências",
    ],
    "pages": [
        [
            ("fill",),
            *[("c", x, "b") for x in T03_INST],
            ("space", 45),
            ("c", "RAFAEL AUGUSTO DOS REIS MONTEIRO", "b"),
            ("space", 50),
            ("c", T03_TITLE_M, "big"),
            ("push",),
            ("c", "PATOS DE MINAS", "b"),
            ("c", "2023", "b"),
        ],
        [
            ("fill",),
            ("c", "RAFAEL AUGUSTO DOS REIS MONTEIRO", "b"),
            ("space", 50),
            ("c", T03_TITLE_M, "big narrow"),
            (
                "nature",
                "Tese apresentada ao Programa de Pós-Graduação em Saúde Coletiva da Faculdade de Medicina da "
                "Universidade Federal do Cerrado Mineiro, como requisito parcial para a obtenção do título de "
                "Doutor em Saúde Coletiva. Área de concentração: Epidemiologia.",
            ),
            (
                "block",
                [
                    "Orientadora: Profa. Dra. Helena Carvalho Bittencourt",
                    "Coorientador: Prof. Dr. Nilton Sakamoto Ferraz",
                ],
                "half",
            ),
            ("push",),
            ("c", "PATOS DE MINAS", "b"),
            ("c", "2023", "b"),
        ],
        [
            ("fill",),
            ("push",),
            (
                "ficha",
                "Dados Internacionais de Catalogação na Publicação (CIP) – Sistema de Bibliotecas da UFCM, MG, "
                "Brasil.",
                [
                    "M775v\tMonteiro, Rafael Augusto dos Reis, 1988-",
                    "Vigilância de arboviroses em municípios de pequeno porte [recurso eletrônico] : modelagem "
                    "espaço-temporal das notificações de dengue entre 2015 e 2020 / Rafael Augusto dos Reis Monteiro. - "
                    "2023.",
                    "Orientadora: Helena Carvalho Bittencourt.",
                    "Coorientador: Nilton Sakamoto Ferraz.",
                    "Tese (Doutorado) - Universidade Federal do Cerrado Mineiro. Programa de Pós-Graduação em Saúde "
                    "Coletiva.",
                    "Modo de acesso: Internet.",
                    "Inclui bibliografia.",
                    "1. Saúde coletiva. 2. Dengue - Epidemiologia. 3. Análise espacial. I. Bittencourt, Helena Carvalho, "
                    "1966-, (Orient.). II. Ferraz, Nilton Sakamoto, 1979-, (Coorient.). III. Universidade Federal do "
                    "Cerrado Mineiro. Programa de Pós-Graduação em Saúde Coletiva. IV. Título.",
                    "CDU: 614",
                ],
                "Bibliotecária responsável: Cleonice Duarte Amaral – CRB6/3318",
            ),
            ("space", 15),
        ],
        [
            ("fill",),
            ("c", "RAFAEL AUGUSTO DOS REIS MONTEIRO", "b"),
            ("space", 10),
            ("c", T03_TITLE_M, ""),
            ("space", 8),
            (
                "pn",
                "Tese aprovada para a obtenção do título de Doutor no Programa de Pós-Graduação em Saúde Coletiva "
                "da Universidade Federal do Cerrado Mineiro pela banca examinadora formada por:",
            ),
            ("c", "Patos de Minas, 17 de março de 2023.", "gap"),
            ("space", 6),
            (
                "block",
                [
                    "Profa. Dra. Helena Carvalho Bittencourt – UFCM (Orientadora)",
                    "",
                    "Prof. Dr. Nilton Sakamoto Ferraz – UFCM (Coorientador)",
                    "",
                    "Profa. Dra. Vera Lúcia Antunes Quintela – Fundação Regional de Saúde do Triângulo",
                    "",
                    "Prof. Dr. Márcio Garcia Lobo – Universidade Estadual do Paranaíba",
                    "",
                    "Profa. Dra. Solange Werneck Aguiar – UFCM",
                ],
                "center",
            ),
            ("push",),
        ],
        [
            ("c", "RESUMO", "b"),
            ("space", 4),
            (
                "pn",
                "MONTEIRO, Rafael Augusto dos Reis. **Vigilância de arboviroses em municípios de pequeno porte**: "
                "modelagem espaço-temporal das notificações de dengue entre 2015 e 2020. 2023. 112 f. Tese "
                "(Doutorado em Saúde Coletiva) – Faculdade de Medicina, Universidade Federal do Cerrado Mineiro, "
                "Patos de Minas, 2023.",
            ),
            ("space", 4),
            (
                "pn",
                "A dengue permanece como a arbovirose de maior carga no Brasil, e os municípios de pequeno porte "
                "concentram parte crescente das notificações, embora disponham de equipes de vigilância reduzidas. "
                "Esta tese teve como objetivo descrever a distribuição espaço-temporal das notificações de dengue "
                "em 142 municípios com menos de 50 mil habitantes do Cerrado mineiro entre 2015 e 2020 e "
                "identificar fatores associados aos aglomerados de alta incidência. Utilizaram-se dados de "
                "notificação do Sinan e um modelo bayesiano hierárquico com efeitos espaciais e temporais. Foram "
                "identificados quatro aglomerados persistentes, associados à menor cobertura de coleta de lixo e à "
                "maior proporção de domicílios com reservatórios de água descobertos. Os resultados sugerem que a "
                "vigilância regionalizada, compartilhada entre municípios vizinhos, pode antecipar surtos que as "
                "equipes locais não conseguem detectar isoladamente.",
            ),
            (
                "pn",
                "**Palavras-chave:** Dengue. Vigilância epidemiológica. Análise espaço-temporal. Municípios de "
                "pequeno porte.",
            ),
        ],
        [
            ("c", "ABSTRACT", "b"),
            ("space", 3),
            (
                "pn",
                "MONTEIRO, R. A. R. **Arbovirus surveillance in small municipalities**: space-time modelling of "
                "dengue notifications between 2015 and 2020. 2023. 112 p. Thesis (Doctorate in Public Health) – "
                "Faculty of Medicine, Universidade Federal do Cerrado Mineiro, Patos de Minas, 2023.",
            ),
            (
                "pn",
                "Dengue remains the arbovirus with the highest burden in Brazil, and small municipalities account "
                "for a growing share of notifications despite having small surveillance teams. This thesis "
                "describes the space-time distribution of dengue notifications in 142 municipalities with fewer "
                "than 50,000 inhabitants between 2015 and 2020. A hierarchical Bayesian model identified four "
                "persistent clusters, associated with lower waste collection coverage and uncovered water tanks. "
                "Regional surveillance shared among neighbouring municipalities may anticipate outbreaks.",
            ),
            ("pn", "**Keywords:** Dengue. Epidemiological surveillance. Space-time analysis."),
            ("space", 5),
            ("c", "LISTA DE FIGURAS", "b"),
            (
                "toc",
                [
                    ("Figura 1 – Municípios estudados e regiões de saúde", 15),
                    ("Figura 2 – Aglomerados de alta incidência, 2015–2020", 17),
                ],
            ),
            ("space", 5),
            ("c", "SUMÁRIO", "b"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 13),
                    ("2 METODOLOGIA", 14),
                    ("2.1 Área de estudo e dados", 14),
                    ("2.2 Modelo espaço-temporal", 15),
                    ("3 RESULTADOS", 16),
                    ("4 CONCLUSÃO", 17),
                    ("REFERÊNCIAS", 18),
                ],
            ),
        ],
        [
            ("pageno", 13),
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "A dengue é endêmica em quase todo o território brasileiro, mas a resposta dos serviços de saúde "
                "ainda se organiza sobretudo em escala municipal. Nos municípios de pequeno porte, a equipe de "
                "vigilância costuma ter dois ou três profissionais, que acumulam a investigação de casos, o controle "
                "vetorial e a alimentação dos sistemas de informação. Nesses lugares, um aumento de notificações só "
                "costuma ser percebido quando a epidemia já está instalada.",
            ),
            (
                "p",
                "O objetivo desta tese foi descrever a distribuição espaço-temporal das notificações de dengue em "
                "municípios com menos de 50 mil habitantes do Cerrado mineiro entre 2015 e 2020 e identificar "
                "fatores socioambientais associados aos aglomerados de alta incidência.",
            ),
            ("h", "2 METODOLOGIA"),
            ("h2", "2.1 Área de estudo e dados"),
            (
                "p",
                "Trata-se de um estudo ecológico que incluiu 142 municípios de seis regiões de saúde. Foram "
                "utilizadas 61.204 notificações de dengue registradas no Sinan, agregadas por município e semana "
                "epidemiológica, além de indicadores de saneamento e de densidade domiciliar do censo demográfico.",
            ),
            ("h2", "2.2 Modelo espaço-temporal"),
            (
                "p",
                "Ajustou-se um modelo bayesiano hierárquico de Poisson com efeito espacial do tipo "
                "Besag-York-Mollié e efeito temporal autorregressivo de primeira ordem, estimado por aproximação de "
                "Laplace aninhada integrada. Aglomerados persistentes foram definidos como municípios com risco "
                "relativo posterior acima de 1,5 em pelo menos quatro dos seis anos.",
            ),
        ],
        [
            ("pageno", 16),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "A incidência média anual foi de 612 casos por 100 mil habitantes, com picos em 2016 e 2019. O "
                "modelo identificou quatro aglomerados persistentes, que reuniram 23 municípios e 41% das "
                "notificações do período, embora abrigassem apenas 19% da população estudada.",
            ),
            (
                "p",
                "Cada 10 pontos percentuais a menos na cobertura de coleta de lixo associaram-se a um risco 18% "
                "maior (intervalo de credibilidade de 95%: 9% a 27%), e a proporção de domicílios com reservatórios "
                "descobertos teve efeito de magnitude semelhante. Em 17 dos 23 municípios dos aglomerados, o "
                "aumento de notificações começou em um município vizinho uma a três semanas antes.",
            ),
            ("h", "4 CONCLUSÃO"),
            (
                "p",
                "As notificações de dengue nos municípios de pequeno porte do Cerrado mineiro concentram-se em "
                "poucos aglomerados persistentes, ligados a deficiências de saneamento. Como os surtos costumam "
                "começar em um município vizinho, recomenda-se que a vigilância seja organizada por região de "
                "saúde, com painéis semanais compartilhados entre as equipes municipais.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "AGUIAR, Solange Werneck; LOBO, Márcio Garcia. Saneamento e arboviroses em cidades médias do "
                    "Triângulo. **Revista de Epidemiologia do Brasil Central**, v. 11, n. 2, p. 77-92, 2019.",
                    "BITTENCOURT, Helena Carvalho. **Vigilância em saúde no interior**: desafios de escala. Belo "
                    "Horizonte: Editora Serra do Curral, 2018.",
                    "FERRAZ, Nilton Sakamoto; QUINTELA, Vera Lúcia Antunes. Modelos bayesianos para pequenas "
                    "áreas. **Cadernos de Estatística em Saúde**, v. 6, p. 1-24, 2021.",
                    "QUINTELA, Vera Lúcia Antunes *et al.* Atrasos de notificação de dengue em municípios de "
                    "pequeno porte. **Boletim de Saúde do Triângulo**, v. 3, n. 1, p. 12-20, 2020.",
                ],
            ),
        ],
    ],
}

DOCS = [T03]
