"""Tuning set, documents t11-t14: journal papers whose authors stand one per line, each followed on its line by an
affiliation in brackets or parentheses, an e-mail, an ORCID or a mark.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

from paper_body import markdown, must_contain, pdf_pages


T11_TITLE = "Monitoramento de nascentes com sensores de baixo custo em bacias do Cerrado"
T11_BODY = {
    "abstract": "Nascentes do Cerrado secam mais cedo a cada estação seca, mas poucas são monitoradas. Instalamos "
    "sensores de nível de baixo custo em 24 nascentes e comparamos suas leituras com medições manuais semanais. Os "
    "sensores registraram a vazão com erro médio de 6 % e anteciparam em duas semanas o alerta de seca.",
    "intro": "O monitoramento de nascentes depende de visitas de campo caras e espaçadas. Este trabalho teve como "
    "objetivo avaliar se sensores de nível de baixo custo medem a vazão de nascentes com precisão suficiente para "
    "orientar a gestão da água em bacias do Cerrado.",
    "methods": "Em 24 nascentes de duas bacias, instalamos sensores ultrassônicos ligados a registradores solares e "
    "medimos a vazão manualmente uma vez por semana durante dezoito meses.",
    "results": "O erro médio dos sensores foi de 6 % em relação às medições manuais, e o custo de cada ponto foi um "
    "décimo do de uma estação convencional.",
    "conclusions": "Sensores de baixo custo permitem monitorar nascentes do Cerrado de forma contínua e barata, e "
    "os comitês de bacia podem usá-los para emitir alertas de seca mais cedo.",
    "references": [
        "LIMA, R. Nascentes e uso do solo no Cerrado. Revista de Recursos Hídricos, 2020.",
        "ALVES, P. Sensores de nível para pequenos cursos d'água. Anais do Simpósio de Hidrologia, 2022.",
    ],
}
T11 = {
    "id": "t11", "file": "t11_artigo_pt.md", "kind": "journal", "language": "pt", "format": "md",
    "title": T11_TITLE, "authors": ["Ana Beatriz Lacerda Fontes", "Caio Henrique Morato"], "year": 2024,
    "metadata_right": None,
    "traps": ["author_per_line_affiliation_brackets", "no_yaml", "journal_line_below_authors", "accented_names"],
    "text": markdown(
        T11_TITLE,
        ["Ana Beatriz Lacerda Fontes   [Departamento de Engenharia Ambiental | Universidade Federal do Planalto Central]",
         "Caio Henrique Morato   [Instituto de Geociências | Universidade Estadual do Vale do Urucuia]"],
        "Revista Brasileira de Hidrologia Aplicada, v. 12, n. 3, 2024", T11_BODY, "pt"),
}  # fmt: skip

T12_TITLE = "Short Message Reminders and Attendance at Childhood Vaccination Visits"
T12_BODY = {
    "abstract": "Missed vaccination visits leave children unprotected for months. We randomised 2,400 families of "
    "a regional health service to text-message reminders or usual care and recorded attendance at the next "
    "scheduled visit. Reminders sent two days before a visit raised attendance from 71 % to 82 %, at a cost of a few "
    "cents per family, and the gain was largest among families who had missed a visit before.",
    "intro": "Vaccination schedules in the first two years of life require many visits, and each missed visit delays "
    "protection. Our objective was to measure whether a short reminder sent by text message before each visit "
    "increases attendance at childhood vaccination visits in a regional public health service. Reminders by letter "
    "or telephone call have been studied before, but they cost far more than a message sent automatically from the "
    "appointment system the service already uses.",
    "methods": "Families with a child under two years old and a scheduled visit were randomised to receive a text "
    "message two days before the visit or no reminder. Attendance within seven days of the scheduled date was taken "
    "from the service's records, and the analysis followed the intention to treat. We also asked a sample of 300 "
    "parents in each group whether the message had reached them and whether they had found it useful.",
    "results": "Attendance was 82 % with reminders and 71 % without them. Among families who had missed an earlier "
    "visit the difference was 17 points. The messages cost 0.04 dollars per family. Nine in ten parents who received "
    "a message remembered it, and almost all of them wanted to keep receiving it for later visits.",
    "conclusions": "Text-message reminders are a cheap way to raise attendance at childhood vaccination visits, and "
    "a public health service can add them to its appointment system at almost no cost, starting with the families "
    "who have already missed a visit.",
    "references": [
        "Garcia, M. Reminder systems for immunisation. Vaccine Policy Review, 2017.",
        "Olsen, T. Text messages in primary care. Journal of Health Services, 2021.",
    ],
}
T12 = {
    "id": "t12", "file": "t12_journal_en.pdf", "kind": "journal", "language": "en", "format": "pdf",
    "title": T12_TITLE, "authors": ["Maya R. Okafor", "Henrik Dahlgren", "Priya Raman"], "year": 2022,
    "metadata_right": None,
    "traps": ["author_per_line_affiliation_parens", "journal_line_above_title", "pdf_metadata_empty"],
    "meta": {"creator": "Writer", "producer": "LibreOffice 7.3", "date": "2022-10-03"},
    "must_contain": must_contain("en"),
    "pages": pdf_pages(
        T12_TITLE,
        [("block", ["Maya R. Okafor (Department of Statistics, University of Westbrook)",
                    "Henrik Dahlgren (School of Public Health, Norrvik University)",
                    "Priya Raman (Westbrook Institute of Data Science)"], "center")],
        "Journal of Community Health Services, vol. 14, no. 4, pp. 201-214, 2022", T12_BODY, "en"),
}  # fmt: skip

T13_TITLE = "Hortas escolares e consumo de hortaliças por crianças do ensino fundamental"
T13_BODY = {
    "abstract": "Crianças em idade escolar comem menos hortaliças do que o recomendado. Acompanhamos durante um ano "
    "letivo 14 escolas com horta e 14 sem horta e medimos o consumo de hortaliças na merenda. Nas escolas com horta, "
    "o consumo aumentou 35 %.",
    "intro": "O objetivo deste estudo foi avaliar se o cultivo de uma horta pelos próprios alunos aumenta o consumo "
    "de hortaliças servidas na merenda escolar.",
    "methods": "Em 28 escolas municipais, pesamos as sobras de hortaliças da merenda uma vez por mês durante um ano "
    "letivo e calculamos o consumo por aluno.",
    "results": "O consumo de hortaliças passou de 38 para 51 gramas por aluno nas escolas com horta e não mudou nas "
    "demais escolas.",
    "conclusions": "Hortas cultivadas pelos alunos aumentam o consumo de hortaliças na merenda e são uma ação simples "
    "para as redes municipais de ensino.",
    "references": ["SANTOS, C. Alimentação escolar e hortas pedagógicas. Revista de Nutrição Escolar, 2019."],
}
T13 = {
    "id": "t13", "file": "t13_artigo_pt.md", "kind": "journal", "language": "pt", "format": "md",
    "title": T13_TITLE, "authors": ["Juliana Prado Menezes", "Otávio Lins Carvalho", "Helena de Souza Amaral"],
    "year": 2023, "metadata_right": None,
    "traps": ["author_per_line_email", "corresponding_author_note", "name_particle", "accented_names", "no_yaml"],
    "text": markdown(
        T13_TITLE,
        ["Juliana Prado Menezes — juliana.menezes@ufvr.edu.br",
         "Otávio Lins Carvalho — otavio.carvalho@ufvr.edu.br",
         "Helena de Souza Amaral — helena.amaral@prefeitura.rv.gov.br"],
        "Revista de Nutrição e Saúde Escolar, v. 8, n. 2, 2023", T13_BODY, "pt",
        after=["Autora para correspondência: Juliana Prado Menezes"]),
}  # fmt: skip

T14_TITLE = "Compostagem de resíduos de feiras livres em pequenos municípios"
T14_BODY = {
    "abstract": "As feiras livres de pequenos municípios produzem toneladas de resíduos orgânicos que vão para "
    "aterros. Implantamos a compostagem desses resíduos em pátios simples em três municípios e acompanhamos a "
    "qualidade do composto e os custos durante um ano. O composto atendeu aos limites da legislação para uso "
    "agrícola, e o custo por tonelada foi menor do que o do transporte até o aterro regional.",
    "intro": "Pequenos municípios gastam boa parte do orçamento de limpeza urbana levando resíduos a aterros "
    "distantes. O objetivo deste trabalho foi verificar se a compostagem dos resíduos das feiras livres em pátios "
    "municipais simples produz composto de qualidade a um custo menor do que o da destinação ao aterro. Poucos "
    "municípios pequenos tentaram a compostagem, em geral por falta de dados sobre custos e sobre a qualidade do "
    "produto que poderiam oferecer aos agricultores da região.",
    "methods": "Em três municípios com menos de 30 mil habitantes, os resíduos de feira foram separados na origem e "
    "compostados em leiras revolvidas por doze meses. Medimos temperatura, umidade, metais e patógenos do composto e "
    "registramos todos os custos de operação, incluindo a mão de obra, o combustível e a manutenção do pátio.",
    "results": "O composto atendeu a todos os limites de metais e patógenos da legislação. O custo foi de 38 reais por "
    "tonelada, contra 61 reais do transporte e da disposição no aterro regional. Os agricultores que receberam o "
    "composto pediram que a entrega continuasse na safra seguinte.",
    "conclusions": "A compostagem dos resíduos de feiras livres é viável e mais barata do que o aterro em pequenos "
    "municípios, e o composto pode ser doado a agricultores familiares da região, fechando o ciclo dos alimentos "
    "vendidos nas próprias feiras.",
    "references": [
        "RIBEIRO, F. Compostagem municipal no Brasil. Revista de Gestão de Resíduos, 2018.",
        "COSTA, J. Leiras revolvidas em pequena escala. Engenharia Sanitária e Ambiental, 2020.",
    ],
}
T14 = {
    "id": "t14", "file": "t14_artigo_pt.pdf", "kind": "journal", "language": "pt", "format": "pdf",
    "title": T14_TITLE, "authors": ["Renata Siqueira Lobo", "Gustavo Ferraz Arantes", "Paulo Roberto dos Anjos"],
    "year": 2021, "metadata_right": None,
    "traps": ["author_per_line_orcid", "author_per_line_mark", "superscript_affiliations", "affiliation_block",
              "name_particle", "accented_names", "pdf_metadata_empty"],
    "meta": {"creator": "Writer", "producer": "LibreOffice 7.1", "date": "2021-05-20"},
    "must_contain": must_contain("pt"),
    "pages": pdf_pages(
        T14_TITLE,
        [("block", ["Renata Siqueira Lobo^1^ https://orcid.org/0000-0001-5432-1098",
                    "Gustavo Ferraz Arantes^2^ https://orcid.org/0000-0003-2211-7788",
                    "Paulo Roberto dos Anjos^1^ https://orcid.org/0000-0002-6600-3141"], "center"),
         ("block", ["^1^Departamento de Engenharia Civil, Universidade Federal do Sertão Central",
                    "^2^Instituto de Ciências Agrárias, Universidade Estadual do Rio Salgado"], "small")],
        "Revista de Gestão de Resíduos Sólidos, v. 7, n. 1, p. 33-47, 2021", T14_BODY, "pt"),
}  # fmt: skip

DOCS = [T11, T12, T13, T14]
