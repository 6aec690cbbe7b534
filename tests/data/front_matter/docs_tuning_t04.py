"""Tuning set, document t04: journal article (pt), PDF, empty metadata.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

J04 = "Revista Brasileira de Práticas Docentes, v. 14, n. 2, p. 101-118, abr./jun. 2023"
T04_TITLE = "Avaliação formativa mediada por tecnologias digitais no ensino médio integrado"

T04 = {
    "id": "t04",
    "file": "t04_artigo_pt.pdf",
    "kind": "journal",
    "language": "pt",
    "format": "pdf",
    "title": T04_TITLE,
    "authors": ["Juliana Prates Nogueira", "Tiago de Albuquerque Sá", "Priscila Moura Etchegaray"],
    "year": 2023,
    "metadata_right": None,
    "traps": [
        "running_head",
        "running_head_author_surnames",
        "doi_issn",
        "received_accepted_dates",
        "translated_title",
        "superscript_affiliations",
        "affiliation_emails",
        "how_to_cite_block",
        "name_particle",
        "accented_names",
        "pdf_metadata_empty",
    ],
    "meta": {
        "title": None,
        "author": None,
        "creator": "Adobe InDesign 18.2 (Windows)",
        "producer": "Adobe PDF Library 17.0",
        "date": "2023-06-28",
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
            ("head", J04, "ISSN 2764-0193 | 101"),
            ("block", ["ARTIGO ORIGINAL", "DOI: 10.5555/rbpd.v14n2.2023.101"], "small"),
            ("title", T04_TITLE),
            (
                "c",
                "Formative assessment mediated by digital technologies in integrated upper secondary education",
                "it",
            ),
            ("c", "Juliana Prates Nogueira^1^, Tiago de Albuquerque Sá^2*^, Priscila Moura Etchegaray^1^", "gap"),
            (
                "block",
                [
                    "^1^ Faculdade de Educação, Universidade Estadual do Vale do Iguaçu (UEVI), União da Vitória, PR, "
                    "Brasil. E-mails: juliana.nogueira@uevi.edu.br; priscila.etchegaray@uevi.edu.br",
                    "^2^ Departamento de Ensino, Centro Federal de Educação Tecnológica do Oeste Paranaense "
                    "(CEFET-OP), Cascavel, PR, Brasil. E-mail: tiago.sa@cefetop.edu.br",
                    "* Autor correspondente.",
                ],
                "small",
            ),
            ("h", "Resumo"),
            (
                "pn",
                "Este artigo investiga como professores do ensino médio integrado à educação profissional utilizam "
                "ferramentas digitais para realizar avaliação formativa. Trata-se de um estudo de casos múltiplos, "
                "com observação de 36 aulas e entrevistas semiestruturadas com 14 docentes de dois campi de uma "
                "instituição federal do Paraná. Os questionários automáticos foram o recurso mais usado, mas "
                "raramente geraram devolutivas individualizadas aos estudantes. Os docentes que combinaram "
                "questionários com rubricas compartilhadas relataram maior clareza dos alunos sobre os critérios de "
                "avaliação. Conclui-se que a tecnologia só amplia o caráter formativo da avaliação quando "
                "acompanhada de tempo institucional para a devolutiva.",
            ),
            ("pn", "**Palavras-chave:** Avaliação formativa. Tecnologias digitais. Ensino médio integrado."),
            (
                "block",
                [
                    "Recebido em 12/03/2022; aceito em 20/08/2022.",
                    "**Como citar:** NOGUEIRA, J. P.; SÁ, T. A.; ETCHEGARAY, P. M. Avaliação formativa mediada por "
                    "tecnologias digitais no ensino médio integrado. *Revista Brasileira de Práticas Docentes*, "
                    "v. 14, n. 2, p. 101-118, 2023.",
                ],
                "small gap",
            ),
        ],
        [
            ("head", "NOGUEIRA, J. P.; SÁ, T. A.; ETCHEGARAY, P. M.", "102"),
            ("h", "1 Introdução"),
            (
                "p",
                "A avaliação formativa, entendida como a coleta de evidências de aprendizagem usada para ajustar o "
                "ensino enquanto ele acontece, ganhou novos instrumentos com a difusão de plataformas digitais nas "
                "escolas. Questionários corrigidos automaticamente, murais colaborativos e rubricas on-line prometem "
                "tornar a devolutiva mais rápida, mas pouco se sabe sobre como os docentes os incorporam à rotina.",
            ),
            (
                "p",
                "No ensino médio integrado, em que disciplinas técnicas e propedêuticas convivem na mesma turma, "
                "essa questão é ainda mais relevante, pois os professores têm formações muito diversas. O objetivo "
                "deste artigo é analisar como docentes do ensino médio integrado utilizam tecnologias digitais na "
                "avaliação formativa e em que condições essas práticas resultam em devolutivas úteis aos "
                "estudantes.",
            ),
            ("h", "2 Metodologia"),
            (
                "p",
                "Realizou-se um estudo de casos múltiplos em dois campi de uma instituição federal de educação "
                "profissional do Paraná, escolhidos por terem aderido à mesma plataforma de ensino em 2020. "
                "Participaram 14 docentes, sete de disciplinas técnicas e sete de disciplinas da base comum, "
                "selecionados por conveniência entre os que aceitaram ter suas aulas observadas.",
            ),
            (
                "p",
                "Entre agosto e novembro de 2021 foram observadas 36 aulas, registradas em diário de campo com um "
                "roteiro de 12 itens, e realizadas entrevistas semiestruturadas de 40 a 60 minutos. O material foi "
                "analisado por meio de análise de conteúdo temática, com categorias definidas a priori (instrumento, "
                "momento e forma da devolutiva) e categorias emergentes.",
            ),
        ],
        [
            ("head", J04, "103"),
            ("h", "3 Resultados"),
            (
                "p",
                "Os questionários automáticos apareceram em 29 das 36 aulas observadas (81%), quase sempre no início "
                "ou no fim da aula. Em apenas 7 dessas 29 aulas, porém, o docente retomou os erros mais frequentes "
                "com a turma ou enviou comentários individuais; nas demais, o estudante recebeu somente a nota "
                "calculada pela plataforma.",
            ),
            (
                "p",
                "Cinco dos 14 docentes usaram rubricas compartilhadas, construídas com os estudantes no início do "
                "bimestre. Nas entrevistas, esses professores relataram que os alunos passaram a compreender melhor "
                "os critérios e a pedir revisões mais específicas. Todos os participantes apontaram a falta de tempo "
                "remunerado para preparar devolutivas como o principal obstáculo.",
            ),
            ("h", "4 Considerações finais"),
            (
                "p",
                "O estudo mostra que a presença de ferramentas digitais não garante, por si, uma avaliação "
                "formativa: sem devolutiva, o questionário automático funciona apenas como mais uma nota. As "
                "práticas mais promissoras combinaram instrumentos automáticos com critérios explícitos e discutidos "
                "com a turma. Recomenda-se que as instituições reservem carga horária para o planejamento da "
                "avaliação e que pesquisas futuras acompanhem os efeitos dessas práticas sobre a aprendizagem.",
            ),
            ("h", "Referências"),
            (
                "refs",
                [
                    "ETCHEGARAY, P. M. Rubricas e autorregulação na educação profissional. **Educação em Foco "
                    "Técnico**, v. 9, n. 1, p. 33-50, 2020.",
                    "LACERDA, R. F.; OYAMA, T. **Avaliar para aprender**: práticas de devolutiva na escola média. "
                    "Curitiba: Editora Araucária, 2019.",
                    "NOGUEIRA, J. P. Plataformas digitais e trabalho docente no ensino integrado. **Cadernos de "
                    "Pedagogia do Iguaçu**, v. 4, n. 2, p. 87-104, 2021.",
                    "VIEIRA-SANTOS, M. A avaliação formativa em tempos de plataformas. **Revista de Didática "
                    "Contemporânea**, v. 17, p. 1-19, 2018.",
                ],
            ),
        ],
    ],
}

DOCS = [T04]
