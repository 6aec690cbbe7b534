"""Tuning set, document t01: TCC, PDF, wrong metadata (Word export).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

WORD = "Microsoft® Word para Microsoft 365"

T01_TITLE = (
    "RECUPERAÇÃO DE OBRAS RARAS EM CATÁLOGOS DIGITAIS: um estudo dos acervos de bibliotecas universitárias do Nordeste"
)
T01_TITLE_M = (
    "**RECUPERAÇÃO DE OBRAS RARAS EM CATÁLOGOS DIGITAIS:** "
    "um estudo dos acervos de bibliotecas universitárias do Nordeste"
)
T01_INST = [
    "UNIVERSIDADE FEDERAL DO VALE DO CAPIBARIBE",
    "CENTRO DE CIÊNCIAS SOCIAIS APLICADAS",
    "DEPARTAMENTO DE CIÊNCIA DA INFORMAÇÃO",
    "CURSO DE BACHARELADO EM BIBLIOTECONOMIA",
]

T01 = {
    "id": "t01",
    "file": "t01_tcc_pt.pdf",
    "kind": "tcc",
    "language": "pt",
    "format": "pdf",
    "title": T01_TITLE,
    "authors": ["Marta Queiroz da Silveira"],
    "year": 2022,
    "metadata_right": False,
    "traps": [
        "cover_page",
        "author_caps_on_cover",
        "subtitle_after_colon",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "catalogue_card",
        "approval_page_examiners",
        "dedication",
        "acknowledgements",
        "epigraph",
        "list_of_tables",
        "table_header_like_title",
        "years_in_early_table",
        "toc_dotted",
        "name_particle",
        "pdf_metadata_wrong",
    ],
    "meta": {
        "title": "Microsoft Word - tcc_final_v3.docx",
        "author": "Usuario",
        "creator": WORD,
        "producer": WORD,
        "date": "2022-12-15",
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
            *[("c", x, "b") for x in T01_INST],
            ("space", 40),
            ("c", "MARTA QUEIROZ DA SILVEIRA", "b"),
            ("space", 55),
            ("c", T01_TITLE_M, "big"),
            ("push",),
            ("c", "RECIFE", "b"),
            ("c", "2022", "b"),
        ],
        [
            ("fill",),
            ("c", "MARTA QUEIROZ DA SILVEIRA", "b"),
            ("space", 55),
            ("c", T01_TITLE_M, "big"),
            (
                "nature",
                "Trabalho de Conclusão de Curso apresentado ao Curso de Bacharelado em Biblioteconomia da "
                "Universidade Federal do Vale do Capibaribe, como requisito parcial para obtenção do título de "
                "Bacharela em Biblioteconomia.",
            ),
            (
                "block",
                [
                    "**Orientador:** Prof. Dr. Heitor Vasconcelos Lima",
                    "**Coorientadora:** Profa. Ma. Denise Araújo Farias",
                ],
                "half",
            ),
            ("push",),
            ("c", "RECIFE", "b"),
            ("c", "2022", "b"),
        ],
        [
            ("fill",),
            ("push",),
            (
                "ficha",
                "Catalogação na fonte – Sistema Integrado de Bibliotecas da UFVC",
                [
                    "S587r\tSilveira, Marta Queiroz da.",
                    "Recuperação de obras raras em catálogos digitais: um estudo dos acervos de bibliotecas "
                    "universitárias do Nordeste / Marta Queiroz da Silveira. – Recife, 2022.",
                    "74 f. : il.",
                    "Orientador: Heitor Vasconcelos Lima.",
                    "Coorientadora: Denise Araújo Farias.",
                    "TCC (graduação) – Universidade Federal do Vale do Capibaribe, Centro de Ciências Sociais "
                    "Aplicadas, Curso de Biblioteconomia, 2022.",
                    "Inclui referências.",
                    "1. Obras raras. 2. Catálogos em linha. 3. Recuperação da informação. I. Lima, Heitor Vasconcelos "
                    "(orient.). II. Título.",
                    "CDD 025.04 (22. ed.)",
                ],
                "Elaborada por Josefa Amaral Bezerra – CRB-4/1802",
            ),
            ("space", 20),
        ],
        [
            ("fill",),
            ("c", "MARTA QUEIROZ DA SILVEIRA", "b"),
            ("space", 10),
            ("c", T01_TITLE_M, "big"),
            (
                "nature",
                "Trabalho de Conclusão de Curso apresentado ao Curso de Bacharelado em Biblioteconomia da "
                "Universidade Federal do Vale do Capibaribe e aprovado pela banca examinadora.",
            ),
            ("c", "Aprovado em: 9 de dezembro de 2022.", ""),
            ("c", "BANCA EXAMINADORA", "b gap"),
            (
                "block",
                [
                    "",
                    "______________________________________________",
                    "Prof. Dr. Heitor Vasconcelos Lima (Orientador)",
                    "Universidade Federal do Vale do Capibaribe",
                    "",
                    "",
                    "______________________________________________",
                    "Profa. Dra. Luíza Cavalcanti Brandão (Examinadora interna)",
                    "Universidade Federal do Vale do Capibaribe",
                    "",
                    "",
                    "______________________________________________",
                    "Prof. Me. Rodrigo Tenório Paes (Examinador externo)",
                    "Arquivo Público de Olinda",
                ],
                "center",
            ),
            ("push",),
        ],
        [
            ("fill",),
            ("space", 40),
            ("right", "Aos meus avós, Severino e Amélia, que me ensinaram a ler antes da escola."),
            ("space", 20),
            ("c", "AGRADECIMENTOS", "b"),
            (
                "p",
                "Ao Prof. Dr. Heitor Vasconcelos Lima, pela orientação paciente, e à Profa. Ma. Denise Araújo "
                "Farias, pela coorientação e pelas tardes de conferência de exemplares. Às equipes das bibliotecas "
                "visitadas, que abriram seus cofres e suas planilhas. À minha mãe, Rosa Queiroz, por tudo.",
            ),
            ("push",),
            (
                "right",
                "“Um livro que ninguém encontra é um livro que ainda não chegou ao seu leitor.” "
                "(Joana Meireles Prado)",
            ),
            ("space", 10),
        ],
        [
            ("c", "RESUMO", "b"),
            (
                "pn",
                "Este trabalho analisa como os catálogos em linha de bibliotecas universitárias do Nordeste "
                "brasileiro representam e recuperam obras raras. Foram examinados 412 registros bibliográficos de "
                "cinco bibliotecas, buscados por autor, título e assunto segundo um protocolo padronizado. A busca "
                "por título recuperou 81% das obras, enquanto a busca por assunto recuperou apenas 37%, sobretudo "
                "pela ausência de cabeçalhos de assunto nos registros retrospectivos. Conclui-se que a revisão "
                "dos registros de obras raras, com prioridade para os campos de assunto e de procedência, é "
                "condição para que esses acervos sejam de fato encontrados pelos pesquisadores.",
            ),
            (
                "pn",
                "**Palavras-chave:** obras raras; catálogos em linha; recuperação da informação; bibliotecas "
                "universitárias.",
            ),
            ("space", 8),
            ("c", "LISTA DE TABELAS", "b"),
            (
                "toc",
                [
                    ("Tabela 1 – Amostra de registros analisados no catálogo da Biblioteca Central", 11),
                    ("Tabela 2 – Obras recuperadas por tipo de busca", 13),
                ],
            ),
            ("space", 8),
            ("c", "SUMÁRIO", "b"),
            (
                "toc",
                [
                    ("1 INTRODUÇÃO", 11),
                    ("2 METODOLOGIA", 12),
                    ("2.1 Seleção das bibliotecas", 12),
                    ("2.2 Protocolo de busca", 12),
                    ("3 RESULTADOS", 13),
                    ("4 CONSIDERAÇÕES FINAIS", 13),
                    ("REFERÊNCIAS", 14),
                ],
            ),
        ],
        [
            ("pageno", 11),
            ("h", "1 INTRODUÇÃO"),
            (
                "p",
                "As bibliotecas universitárias guardam coleções de obras raras formadas ao longo de décadas por "
                "doações e compras esparsas. Quando esses itens não estão bem descritos no catálogo, o leitor "
                "simplesmente não os encontra, e a obra permanece invisível mesmo estando disponível na estante. O "
                "objetivo deste trabalho é avaliar em que medida os catálogos digitais de bibliotecas universitárias "
                "do Nordeste permitem recuperar suas obras raras por autor, título e assunto.",
            ),
            (
                "p",
                "A Tabela 1 reproduz, como exemplo, a tela de resultados de um dos catálogos examinados, tal como o "
                "sistema a exibe ao usuário. As colunas privilegiam dados de exemplar e de circulação, e não "
                "informações sobre a raridade ou a procedência do item.",
            ),
            (
                "table",
                "Tabela 1 – Amostra de registros analisados no catálogo da Biblioteca Central",
                [
                    "Capa",
                    "Autor",
                    "Título",
                    "Ano",
                    "Material",
                    "Relevância",
                    "Biblioteca (Itens / Emp.)",
                    "Acesso Eletrônico",
                ],
                [
                    [
                        "[sem imagem]",
                        "Albuquerque, Tomé de",
                        "Roteiro das capitanias do Norte",
                        "1867",
                        "Livro",
                        "★★★☆☆",
                        "Central (1 / 0)",
                        "Não",
                    ],
                    [
                        "[sem imagem]",
                        "Vasconcellos, Ignez",
                        "Memórias de um engenho de açúcar",
                        "1902",
                        "Livro",
                        "★★☆☆☆",
                        "Setorial CCSA (1 / 0)",
                        "Não",
                    ],
                    [
                        "[capa]",
                        "Sociedade Pernambucana de Letras",
                        "Revista da Sociedade, n. 3",
                        "1921",
                        "Periódico",
                        "★★★★☆",
                        "Central (2 / 1)",
                        "Sim",
                    ],
                ],
                "Fonte: dados da pesquisa (2022).",
            ),
            ("h", "2 METODOLOGIA"),
            ("h2", "2.1 Seleção das bibliotecas"),
            (
                "p",
                "Trata-se de uma pesquisa exploratória, de abordagem quantitativa, realizada entre março e agosto de "
                "2022. Foram selecionadas cinco bibliotecas universitárias públicas de três estados do Nordeste que "
                "declaravam possuir coleção de obras raras com catálogo acessível pela internet. De cada coleção "
                "sorteou-se uma amostra de registros, totalizando 412 obras, cujos dados foram conferidos com o "
                "exemplar físico.",
            ),
            ("h2", "2.2 Protocolo de busca"),
            (
                "p",
                "Para cada obra foram feitas três buscas no catálogo público: pelo sobrenome do autor, pelas três "
                "primeiras palavras do título e por um assunto atribuído pela pesquisadora a partir do exame do "
                "exemplar. Considerou-se recuperada a obra que aparecia entre os vinte primeiros resultados.",
            ),
        ],
        [
            ("pageno", 13),
            ("h", "3 RESULTADOS"),
            (
                "p",
                "A busca por título recuperou 334 das 412 obras (81%), e a busca por autor, 297 (72%). A busca por "
                "assunto teve o pior desempenho, com 152 obras recuperadas (37%), como resume a Tabela 2. Em 46% "
                "dos registros não havia nenhum cabeçalho de assunto, situação concentrada nas obras catalogadas "
                "antes de 2005, quando as fichas foram convertidas para o sistema automatizado.",
            ),
            (
                "table",
                "Tabela 2 – Obras recuperadas por tipo de busca",
                ["Tipo de busca", "Obras recuperadas", "%"],
                [["Título", "334", "81"], ["Autor", "297", "72"], ["Assunto", "152", "37"]],
                "Fonte: dados da pesquisa (2022).",
            ),
            (
                "p",
                "Apenas uma das cinco bibliotecas registrava a procedência das obras (ex-libris, dedicatórias e "
                "carimbos de antigos proprietários), informação essencial para pesquisadores de história do livro.",
            ),
            ("h", "4 CONSIDERAÇÕES FINAIS"),
            (
                "p",
                "Os resultados indicam que os catálogos digitais examinados recuperam razoavelmente as obras raras "
                "quando o leitor já conhece o título, mas falham quando a busca parte de um tema. Recomenda-se que "
                "as bibliotecas priorizem a revisão dos registros retrospectivos, incluindo cabeçalhos de assunto e "
                "notas de procedência. Estudos futuros podem estender a análise a bibliotecas privadas e a arquivos "
                "públicos da região.",
            ),
            ("h", "REFERÊNCIAS"),
            (
                "refs",
                [
                    "BEZERRA, Joana Maia. **Catalogação de livros antigos**: princípios e práticas. 2. ed. Recife: "
                    "Editora Universitária do Capibaribe, 2017.",
                    "FONTES, Caio Ribeiro; MEDEIROS, Lia. Recuperação de registros retrospectivos em catálogos em "
                    "linha. **Revista de Biblioteconomia do Agreste**, v. 8, n. 1, p. 22-39, 2019.",
                    "PRADO, Joana Meireles. **Cadernos de arquivo**. Olinda: Edições Maré Alta, 1987.",
                    "SILVA, Otávio Lins da. Obras raras e acesso público: um panorama das bibliotecas federais. "
                    "**Informação em Pauta Regional**, v. 5, n. 2, p. 60-78, 2020.",
                ],
            ),
        ],
    ],
}

DOCS = [T01]
