"""HELD-OUT set, document h01: TCC (pt), DOCX, wrong core properties.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H01_TITLE = (
    "Consumo de alimentos ultraprocessados por adolescentes de escolas públicas: associação com o tempo de tela"
)
H01_TITLE_M = (
    "**Consumo de alimentos ultraprocessados por adolescentes de escolas públicas:** associação com o tempo de tela"
)

H01 = {
    "id": "h01",
    "file": "h01_tcc_pt.docx",
    "kind": "tcc",
    "language": "pt",
    "format": "docx",
    "title": H01_TITLE,
    "authors": ["Letícia Maria de Sousa Benevides"],
    "year": 2019,
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
        "epigraph",
        "acknowledgements",
        "first_heading_not_title",
        "list_of_tables",
        "table_header_like_title",
        "years_in_early_table",
        "toc_dotted",
        "name_particle",
        "accented_names",
        "docx_core_wrong",
    ],
    "core": {
        "author": "Administrador",
        "title": "TCC_modelo_biblioteca_2017",
        "last_modified_by": "leticia",
        "revision": 88,
        "created": "2017-05-02T08:00:00",
        "modified": "2019-12-09T23:58:00",
    },
    "header": None,
    "docx_font": "Arial",
    "must_contain": [
        "Resumo",
        "1 Introdução",
        "2 Metodologia",
        "3 Resultados",
        "4 Considerações finais",
        "Referências",
    ],
    "pages": [
        [
            ("c", "[brasão da universidade]", "small"),
            ("c", "UNIVERSIDADE ESTADUAL DA CHAPADA DO APODI – UECA", "b"),
            ("c", "FACULDADE DE CIÊNCIAS DA SAÚDE", "b"),
            ("c", "CURSO DE BACHARELADO EM NUTRIÇÃO", "b"),
            ("space", 32),
            ("c", "LETÍCIA MARIA DE SOUSA BENEVIDES", "b"),
            ("space", 40),
            ("c", H01_TITLE_M, "big"),
            ("space", 40),
            ("misused_title", "TRABALHO DE CONCLUSÃO DE CURSO"),
            ("space", 16),
            ("c", "MOSSORÓ – RN", "b"),
            ("c", "2019", "b"),
        ],
        [
            ("c", "LETÍCIA MARIA DE SOUSA BENEVIDES", "b"),
            ("space", 40),
            ("c", H01_TITLE_M, "big"),
            ("space", 16),
            (
                "nature",
                "Monografia apresentada à Coordenação do Curso de Bacharelado em Nutrição da Universidade "
                "Estadual da Chapada do Apodi, como requisito parcial à obtenção do grau de Bacharel em "
                "Nutrição.",
            ),
            (
                "block",
                [
                    "Orientadora: Profa. Dra. Francisca Gorete Holanda",
                    "Coorientador: Prof. Me. Ítalo Brandão Queiroga",
                ],
                "half",
            ),
            ("space", 48),
            ("c", "MOSSORÓ – RN", "b"),
            ("c", "2019", "b"),
        ],
        [
            ("space", 88),
            (
                "ficha",
                "Ficha catalográfica elaborada automaticamente pelo Sistema de Bibliotecas da UECA, com os dados "
                "fornecidos pelo(a) autor(a)",
                [
                    "B465c\tBENEVIDES, Letícia Maria de Sousa",
                    "Consumo de alimentos ultraprocessados por adolescentes de escolas públicas: associação com o tempo "
                    "de tela. / Letícia Maria de Sousa Benevides. – 2019.",
                    "58 f.",
                    "Orientação: Profa. Dra. Francisca Gorete Holanda.",
                    "Coorientação: Prof. Me. Ítalo Brandão Queiroga.",
                    "Monografia (Graduação) – Universidade Estadual da Chapada do Apodi, Faculdade de Ciências da Saúde, "
                    "Curso de Nutrição, Mossoró, 2019.",
                    "1. Alimentos industrializados. 2. Adolescentes. 3. Comportamento sedentário. I. Holanda, Francisca "
                    "Gorete, orient. II. Queiroga, Ítalo Brandão, coorient. III. Título.",
                    "CDD 613.2",
                ],
                "",
            ),
        ],
        [
            ("c", "LETÍCIA MARIA DE SOUSA BENEVIDES", "b"),
            ("space", 8),
            ("c", H01_TITLE_M, ""),
            (
                "nature",
                "Monografia apresentada ao Curso de Bacharelado em Nutrição da Universidade Estadual da Chapada "
                "do Apodi como requisito parcial à obtenção do grau de Bacharel em Nutrição.",
            ),
            ("pn", "Data de aprovação: 28/11/2019"),
            ("c", "BANCA EXAMINADORA", "b"),
            (
                "block",
                [
                    "_________________________________________",
                    "Profa. Dra. Francisca Gorete Holanda – UECA",
                    "Presidente",
                    "",
                    "_________________________________________",
                    "Profa. Ma. Rejane Fontenele Maia – UECA",
                    "Membro",
                    "",
                    "_________________________________________",
                    "Dr. Caio Severo Dantas – Secretaria Municipal de Saúde de Mossoró",
                    "Membro externo",
                ],
                "center",
            ),
        ],
        [
            ("h", "AGRADECIMENTOS"),
            (
                "p",
                "À professora Francisca Gorete Holanda, que acreditou no projeto quando ele era só uma planilha, e "
                "ao professor Ítalo Brandão Queiroga, pelas horas dedicadas à análise estatística. Às diretoras e "
                "aos estudantes das escolas participantes, que responderam aos questionários com paciência.",
            ),
            ("space", 40),
            (
                "right",
                "“Ninguém escolhe o que come sozinho: a mesa é sempre uma conversa com o mundo.” "
                "(Hermínia Salgado, 1994)",
            ),
        ],
        [
            ("h", "RESUMO"),
            (
                "p",
                "O consumo de alimentos ultraprocessados entre adolescentes brasileiros tem aumentado, e o tempo "
                "diante de telas é apontado como um dos fatores associados. Este trabalho investigou a associação "
                "entre o tempo de tela e a frequência de consumo de ultraprocessados em estudantes de 13 a 17 anos "
                "de escolas públicas de Mossoró. Trata-se de um estudo transversal com 318 adolescentes de quatro "
                "escolas, que responderam a um questionário de frequência alimentar e de hábitos de uso de telas. "
                "Adolescentes com mais de quatro horas diárias de tela tiveram prevalência de consumo diário de "
                "ultraprocessados 1,6 vez maior do que os que usavam telas por até duas horas. Os resultados "
                "reforçam a importância de ações de educação alimentar que abordem também o uso de telas.",
            ),
            ("pn", "Palavras-chave: Alimentos ultraprocessados. Adolescentes. Tempo de tela. Saúde escolar."),
            ("h", "LISTA DE QUADROS"),
            ("toc", [("Quadro 1 – Estudos brasileiros sobre tempo de tela e consumo de ultraprocessados", 12)]),
            ("h", "SUMÁRIO"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 11),
                    ("2 METODOLOGIA", 13),
                    ("3 RESULTADOS", 14),
                    ("4 CONSIDERAÇÕES FINAIS", 16),
                    ("REFERÊNCIAS", 17),
                ],
            ),
        ],
        [
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "A adolescência é um período em que os hábitos alimentares ganham autonomia e passam a sofrer forte "
                "influência do ambiente, da publicidade e dos colegas. Refrigerantes, salgadinhos de pacote e "
                "biscoitos recheados ocupam espaço crescente na dieta desse grupo, com consequências para o ganho "
                "de peso e para a saúde futura.",
            ),
            (
                "p",
                "Estudos anteriores, sintetizados no Quadro 1, sugerem que o tempo diante de telas se associa a esse "
                "consumo, mas poucos foram realizados no interior do Nordeste. O objetivo deste trabalho foi "
                "verificar a associação entre o tempo de tela e o consumo de alimentos ultraprocessados por "
                "adolescentes de escolas públicas de Mossoró.",
            ),
            (
                "table",
                "Quadro 1 – Estudos brasileiros sobre tempo de tela e consumo de ultraprocessados",
                ["Autor", "Ano", "Título do estudo", "Amostra", "Região", "Principal achado"],
                [
                    [
                        "Peixoto e Lins",
                        "2014",
                        "Televisão, lanches e escola",
                        "1.204",
                        "Sudeste",
                        "Mais TV, mais lanches",
                    ],
                    [
                        "Araripe *et al.*",
                        "2016",
                        "Jovens conectados, pratos vazios?",
                        "860",
                        "Nordeste",
                        "Associação só em meninas",
                    ],
                    ["Scholz", "2018", "Celular à mesa", "433", "Sul", "Associação com refrigerantes"],
                ],
                "Fonte: elaborado pela autora (2019).",
            ),
            ("h", "2 METODOLOGIA"),
            (
                "p",
                "Realizou-se um estudo transversal em quatro escolas estaduais de Mossoró, sorteadas entre as que "
                "ofereciam ensino fundamental II e médio. Foram convidados todos os estudantes de 13 a 17 anos "
                "presentes nos dias de coleta, entre agosto e setembro de 2019; participaram 318 adolescentes com "
                "consentimento dos responsáveis.",
            ),
            (
                "p",
                "O consumo foi avaliado por um questionário de frequência alimentar com 14 itens ultraprocessados, "
                "e o tempo de tela, pela soma das horas diárias de televisão, celular, computador e videogame. A "
                "associação foi estimada por regressão de Poisson com variância robusta, ajustada por sexo, idade e "
                "escolaridade materna.",
            ),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "O consumo diário de pelo menos um ultraprocessado foi relatado por 64% dos participantes. Entre os "
                "que passavam mais de quatro horas por dia diante de telas, a prevalência foi de 78%, contra 48% "
                "entre os que usavam telas por até duas horas (razão de prevalência ajustada de 1,6; IC 95%: 1,3 a "
                "2,0). O hábito de comer usando o celular esteve presente em 71% dos adolescentes.",
            ),
            ("h", "4 CONSIDERAÇÕES FINAIS"),
            (
                "p",
                "O tempo de tela associou-se de forma consistente ao consumo diário de ultraprocessados entre os "
                "adolescentes estudados. Recomenda-se que as ações de educação alimentar nas escolas tratem também "
                "do uso de telas durante as refeições, e que estudos longitudinais verifiquem a direção dessa "
                "associação.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "ARARIPE, Júlia Nunes *et al.* Jovens conectados, pratos vazios? Consumo alimentar e telas no "
                    "Cariri. **Revista de Nutrição do Semiárido**, v. 4, n. 1, p. 15-29, 2016.",
                    "HOLANDA, Francisca Gorete. **Alimentação escolar no Oeste Potiguar**. Mossoró: Edições Chapada, "
                    "2015.",
                    "PEIXOTO, Rui; LINS, Sandra. Televisão, lanches e escola. **Cadernos de Saúde do Adolescente**, "
                    "v. 2, p. 40-52, 2014.",
                    "SCHOLZ, Anita Beatriz. Celular à mesa: hábitos digitais e consumo de bebidas açucaradas. "
                    "**Revista Sulina de Nutrição**, v. 11, n. 3, p. 201-212, 2018.",
                ],
            ),
        ],
    ],
}

DOCS = [H01]
