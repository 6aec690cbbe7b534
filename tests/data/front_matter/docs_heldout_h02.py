"""HELD-OUT set, document h02: dissertation (pt), PDF, wrong metadata.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H02_TITLE = "O PORTUGUÊS FALADO EM COMUNIDADES RIBEIRINHAS DO TAPAJÓS: variação na concordância nominal de número"
H02_TITLE_M = (
    "**O PORTUGUÊS FALADO EM COMUNIDADES RIBEIRINHAS DO TAPAJÓS:** variação na concordância nominal de número"
)
H02_NAME = "RAIMUNDA KÁTIA PINHEIRO DO CARMO"
H02_WORD = "Microsoft® Word 2019"

H02 = {
    "id": "h02",
    "file": "h02_dissertacao_pt.pdf",
    "kind": "dissertation",
    "language": "pt",
    "format": "pdf",
    "font": "sans",
    "title": H02_TITLE,
    "authors": ["Raimunda Kátia Pinheiro do Carmo"],
    "year": 2024,
    "metadata_right": False,
    "traps": [
        "cover_page",
        "author_caps_on_cover",
        "subtitle_after_colon",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "catalogue_card",
        "approval_page_examiners",
        "acknowledgements",
        "epigraph",
        "list_of_tables",
        "table_header_like_title",
        "toc_dotted",
        "name_particle",
        "accented_names",
        "pdf_metadata_wrong",
    ],
    "meta": {
        "title": "Microsoft Word - DISSERTAÇÃO_versão_FINAL_corrigida (2).docx",
        "author": "Cliente",
        "creator": H02_WORD,
        "producer": H02_WORD,
        "date": "2024-04-22",
    },
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
            ("fill",),
            ("c", "UNIVERSIDADE FEDERAL DO BAIXO AMAZONAS", "b"),
            ("c", "INSTITUTO DE CIÊNCIAS DA LINGUAGEM", "b"),
            ("c", "PROGRAMA DE PÓS-GRADUAÇÃO EM LETRAS", "b"),
            ("c", "MESTRADO ACADÊMICO EM LETRAS", ""),
            ("space", 40),
            ("c", H02_NAME, ""),
            ("space", 40),
            ("c", H02_TITLE_M, "big"),
            ("space", 12),
            ("c", "DISSERTAÇÃO DE MESTRADO", "b"),
            ("push",),
            ("c", "SANTARÉM – PA", "b"),
            ("c", "2024", "b"),
        ],
        [
            ("fill",),
            ("c", H02_NAME, ""),
            ("space", 50),
            ("c", H02_TITLE_M, "big"),
            (
                "nature",
                "Dissertação apresentada ao Programa de Pós-Graduação em Letras da Universidade Federal do "
                "Baixo Amazonas, como requisito para obtenção do título de Mestra em Letras. Linha de pesquisa: "
                "Variação e Ensino de Língua Portuguesa.",
            ),
            (
                "block",
                ["Orientador: Prof. Dr. Benedito Sarmento Guedes", "Coorientadora: Profa. Dra. Aline Kauffmann Rocha"],
                "half",
            ),
            ("push",),
            ("c", "SANTARÉM – PA", "b"),
            ("c", "2024", "b"),
        ],
        [
            ("fill",),
            ("push",),
            (
                "ficha",
                "Dados Internacionais de Catalogação na Publicação (CIP) – Sistema Integrado de Bibliotecas – "
                "SIBI/UFBAM",
                [
                    "C287p\tCarmo, Raimunda Kátia Pinheiro do",
                    "O português falado em comunidades ribeirinhas do Tapajós: variação na concordância nominal de número "
                    "/ Raimunda Kátia Pinheiro do Carmo. – Santarém, 2024.",
                    "88 f. : il.",
                    "Orientador: Benedito Sarmento Guedes.",
                    "Coorientadora: Aline Kauffmann Rocha.",
                    "Dissertação (Mestrado) – Universidade Federal do Baixo Amazonas, Instituto de Ciências da "
                    "Linguagem, Programa de Pós-Graduação em Letras.",
                    "1. Sociolinguística. 2. Concordância nominal. 3. Comunidades ribeirinhas. I. Guedes, Benedito "
                    "Sarmento, orient. II. Rocha, Aline Kauffmann, coorient. III. Título.",
                    "CDD: 23. ed. 469.798115",
                ],
                "Bibliotecária responsável: Neuza Tavares Sirotheau – CRB-2/1457",
            ),
            ("space", 10),
        ],
        [
            ("fill",),
            ("c", H02_NAME, ""),
            ("space", 10),
            ("c", H02_TITLE_M, "b"),
            (
                "nature",
                "Dissertação apresentada ao Programa de Pós-Graduação em Letras da Universidade Federal do "
                "Baixo Amazonas para obtenção do título de Mestra em Letras.",
            ),
            ("pn", "Data da defesa: 5 de abril de 2024."),
            ("c", "Banca examinadora:", "b gap"),
            (
                "block",
                [
                    "",
                    "________________________________________",
                    "Prof. Dr. Benedito Sarmento Guedes (Presidente – UFBAM)",
                    "",
                    "",
                    "________________________________________",
                    "Profa. Dra. Marinete Souza Tapajós (Examinadora externa – Universidade Estadual do Marajó)",
                    "",
                    "",
                    "________________________________________",
                    "Prof. Dr. Joaquim Lira Bentes (Examinador interno – UFBAM)",
                ],
                "center",
            ),
            ("push",),
        ],
        [
            ("c", "AGRADECIMENTOS", "b"),
            (
                "p",
                "Aos moradores das comunidades de Boa Esperança e Vila Franca, que me receberam em suas casas e me "
                "contaram suas histórias. Ao meu orientador, Prof. Benedito Sarmento Guedes, e à coorientadora, "
                "Profa. Aline Kauffmann Rocha, pela leitura atenta de cada versão. À Coordenação do Programa, pela "
                "bolsa que tornou possível o trabalho de campo.",
            ),
            ("space", 70),
            (
                "right",
                "“O rio ensina a falar devagar, porque quem tem pressa não chega.” — Dito de pescador de Vila "
                "Franca, registrado em caderno de campo",
            ),
        ],
        [
            ("c", "RESUMO", "b"),
            (
                "pn",
                "Esta dissertação descreve a variação na concordância nominal de número no português falado em duas "
                "comunidades ribeirinhas do rio Tapajós, no oeste do Pará. O corpus é formado por 24 entrevistas "
                "sociolinguísticas, estratificadas por sexo, faixa etária e escolaridade, das quais foram "
                "extraídos 3.412 sintagmas nominais plurais. A análise de regressão logística de efeitos mistos "
                "mostrou que a marcação de plural em todos os elementos do sintagma ocorreu em 38% dos casos e foi "
                "favorecida pela escolaridade e pela posição do elemento antes do núcleo. Conclui-se que a "
                "variação segue padrões observados em outras variedades rurais do português brasileiro, com forte "
                "efeito da escola na adoção da marcação redundante.",
            ),
            ("pn", "**Palavras-chave:** Sociolinguística variacionista. Concordância nominal. Português amazônico."),
            ("space", 6),
            ("c", "LISTA DE QUADROS", "b"),
            (
                "toc",
                [("Quadro 1 – Perfil dos informantes", 14), ("Quadro 2 – Variáveis independentes controladas", 16)],
            ),
            ("space", 6),
            ("c", "SUMÁRIO", "b"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 13),
                    ("2 METODOLOGIA", 15),
                    ("2.1 Comunidades e informantes", 15),
                    ("2.2 Codificação e análise", 16),
                    ("3 RESULTADOS", 17),
                    ("4 CONSIDERAÇÕES FINAIS", 19),
                    ("REFERÊNCIAS", 20),
                ],
            ),
        ],
        [
            ("pageno", 13),
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "O português falado às margens do Tapajós é pouco descrito, embora as comunidades ribeirinhas "
                "reúnam milhares de falantes com história de contato entre línguas indígenas e o português. A "
                "concordância nominal de número é um dos fenômenos variáveis mais estudados no Brasil e permite "
                "comparar essas comunidades com outras variedades rurais e urbanas.",
            ),
            (
                "p",
                "O objetivo deste trabalho é descrever a variação na concordância nominal de número em duas "
                "comunidades ribeirinhas do Tapajós e identificar os fatores linguísticos e sociais que a "
                "condicionam. O Quadro 1 apresenta o perfil dos informantes entrevistados.",
            ),
            (
                "table",
                "Quadro 1 – Perfil dos informantes",
                ["Informante", "Comunidade", "Sexo", "Faixa etária", "Escolaridade", "Duração da entrevista"],
                [
                    ["BE01", "Boa Esperança", "F", "18-35", "Ensino médio", "52 min"],
                    ["BE07", "Boa Esperança", "M", "56+", "Fundamental I", "61 min"],
                    ["VF03", "Vila Franca", "F", "36-55", "Fundamental II", "47 min"],
                ],
                "Fonte: elaborado pela autora.",
            ),
            ("h", "2 METODOLOGIA"),
            ("h2", "2.1 Comunidades e informantes"),
            (
                "p",
                "As entrevistas foram realizadas entre junho e outubro de 2022 em Boa Esperança e Vila Franca, "
                "comunidades acessíveis apenas por barco. Foram entrevistados 24 moradores nascidos na comunidade, "
                "distribuídos igualmente por sexo, três faixas etárias e dois níveis de escolaridade.",
            ),
        ],
        [
            ("pageno", 16),
            ("h2", "2.2 Codificação e análise"),
            (
                "p",
                "Cada elemento flexionável dos sintagmas nominais plurais foi codificado quanto à presença da marca "
                "de plural, à posição em relação ao núcleo, à classe gramatical e à saliência fônica. A análise "
                "usou regressão logística de efeitos mistos, com informante e item lexical como efeitos "
                "aleatórios.",
            ),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "Dos 3.412 sintagmas analisados, 38% apresentaram marcação de plural em todos os elementos. A "
                "marca foi quase categórica nos determinantes antepostos ao núcleo (97%) e rara nos elementos "
                "pospostos (21%). Informantes com ensino médio usaram a marcação redundante com chance 3,1 vezes "
                "maior do que os com fundamental I, enquanto sexo e faixa etária não foram significativos.",
            ),
            ("h", "4 CONSIDERAÇÕES FINAIS"),
            (
                "p",
                "A concordância nominal nas comunidades estudadas segue o padrão de outras variedades rurais do "
                "português brasileiro, com a posição do elemento e a escolaridade como principais "
                "condicionadores. Os dados sugerem que a escola é o principal canal de difusão da marcação "
                "redundante nessas comunidades, o que tem implicações para o ensino de língua portuguesa na "
                "região.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "BENTES, Joaquim Lira. **Falares do Baixo Amazonas**: um atlas preliminar. Santarém: Editora "
                    "Tapajônica, 2019.",
                    "GUEDES, Benedito Sarmento; ROCHA, Aline Kauffmann. Plural variável em comunidades rurais do "
                    "Pará. **Revista de Estudos da Linguagem Amazônica**, v. 7, n. 2, p. 9-34, 2021.",
                    "TAPAJÓS, Marinete Souza. Contato linguístico e português ribeirinho. **Letras do Norte**, v. "
                    "15, p. 120-141, 2018.",
                ],
            ),
        ],
    ],
}

DOCS = [H02]
