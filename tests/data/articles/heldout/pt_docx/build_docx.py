"""Build article.docx (fictional Portuguese NLP article, HELD-OUT test data, CC BY 4.0).

Run with the project venv:  ../../../../../.venv/bin/python build_docx.py
then convert:               soffice --headless --convert-to pdf article.docx
"""

import datetime
from pathlib import Path

from docx import Document
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm, Pt


HERE = Path(__file__).resolve().parent

TITLE = (
    "Busca de jurisprudência em ementas de tribunais estaduais: comparação entre recuperação lexical, densa e híbrida"
)
AUTHORS = ["Mariana Coutinho Lessa", "Felipe Andrade Rangel", "Tatiane Moreira Quintela"]

RESUMO = (
    "A pesquisa de jurisprudência é uma tarefa cotidiana de advogados, defensores e servidores do Judiciário, "
    "mas os mecanismos de busca oferecidos pelos tribunais ainda dependem, em geral, da coincidência exata de palavras. "
    "Neste trabalho, comparamos três estratégias de recuperação aplicadas a ementas de acórdãos de tribunais estaduais "
    "brasileiros: o modelo lexical BM25, um recuperador denso baseado em um codificador de sentenças multilíngue e uma "
    "combinação híbrida das duas listas por fusão de ranques recíprocos. "
    "Utilizou-se uma coleção de 182.416 ementas publicadas entre 2015 e 2022 e 150 consultas redigidas por profissionais "
    "do direito, com julgamentos de relevância em três níveis. "
    "A abordagem híbrida obteve nDCG@10 de 0,612, contra 0,534 do BM25 e 0,497 do recuperador denso, e foi a mais estável "
    "entre consultas por palavras-chave e consultas em linguagem natural. "
    "Os resultados indicam que a combinação de sinais lexicais e semânticos é uma alternativa de baixo custo para melhorar "
    "a busca de jurisprudência em português."
)
PALAVRAS = (
    "Palavras-chave: recuperação de informação; jurisprudência; BM25; recuperação densa; "
    "processamento de linguagem natural."
)

ABSTRACT = (
    "Case-law search is a daily task for lawyers and court staff, yet the search engines offered by Brazilian state courts "
    "still rely mostly on exact word matching. "
    "We compare BM25, a multilingual dense retriever and a hybrid reciprocal rank fusion of both on 182,416 appellate "
    "headnotes from three state courts, using 150 queries written by legal professionals. "
    "The hybrid approach reached an nDCG@10 of 0.612, against 0.534 for BM25 and 0.497 for the dense retriever, "
    "and was the most stable across query types."
)
KEYWORDS = "Keywords: information retrieval; case law; BM25; dense retrieval; Portuguese."

INTRO = [
    "O sistema de precedentes reforçado pelo Código de Processo Civil de 2015 aumentou a importância da consulta a "
    "decisões anteriores na atividade jurídica brasileira. "
    "Petições, pareceres e sentenças frequentemente citam acórdãos que tratam de situações análogas, e a capacidade de "
    "localizar esses documentos com rapidez tem impacto direto na qualidade e na celeridade do trabalho. "
    "Os tribunais estaduais mantêm portais de consulta pública, mas a maioria opera com busca booleana ou por "
    "palavras-chave, exigindo que o usuário antecipe os termos exatos empregados pelo relator.",
    "Ementas de acórdãos apresentam características que dificultam a recuperação automática. "
    "São textos curtos e densos, marcados por enumerações em caixa alta, remissões a dispositivos legais e variações "
    "terminológicas: “dano moral”, “abalo extrapatrimonial” e “lesão à personalidade” podem designar a mesma tese. "
    "Modelos lexicais como o BM25 (ROBERTSON; ZARAGOZA, 2009) são robustos e eficientes, mas não reconhecem sinônimos. "
    "Recuperadores densos, que representam consultas e documentos como vetores em um espaço semântico "
    "(KARPUKHIN et al., 2020), lidam melhor com paráfrases, porém tendem a perder precisão quando a consulta depende de "
    "números de artigos ou nomes próprios.",
    "A combinação de listas produzidas por sistemas de natureza distinta costuma superar cada sistema isoladamente "
    "(CORMACK; CLARKE; BUETTCHER, 2009), mas há poucas avaliações desse tipo para textos jurídicos em português, e as "
    "existentes utilizam coleções pequenas ou consultas geradas automaticamente. "
    "Este trabalho contribui com uma avaliação sistemática das três famílias de abordagens, em uma coleção de grande "
    "porte e com consultas escritas por usuários reais.",
]

OBJETIVOS = (
    "O objetivo geral desta pesquisa é verificar se a recuperação híbrida, que combina um modelo lexical e um "
    "recuperador denso, melhora a busca de jurisprudência em ementas de tribunais estaduais em comparação com cada "
    "método isolado. "
    "Para isso, foram definidos os seguintes objetivos específicos:"
)
OBJETIVOS_ESPECIFICOS = [
    "construir uma coleção de teste com consultas redigidas por profissionais do direito e julgamentos de relevância "
    "graduados;",
    "comparar o desempenho do BM25, de um recuperador denso e de uma combinação híbrida por fusão de ranques "
    "recíprocos;",
    "identificar os tipos de consulta em que cada abordagem apresenta vantagens ou falhas.",
]
OBJETIVOS_FIM = (
    "Pretende-se, ainda, disponibilizar os julgamentos de relevância para que outros grupos possam reproduzir e "
    "ampliar a avaliação."
)

METODO = [
    (
        "Coleção de documentos",
        [
            "A coleção foi formada por 182.416 ementas de acórdãos publicados entre janeiro de 2015 e dezembro de 2022 por "
            "três tribunais de justiça estaduais, obtidas nos portais públicos de consulta de cada tribunal. "
            "Foram mantidos apenas os acórdãos de apelação cível e de agravo de instrumento, que concentram a maior parte "
            "das pesquisas realizadas por advogados. "
            "As ementas têm, em média, 187 palavras, com desvio padrão de 96 palavras; o inteiro teor dos votos não foi "
            "utilizado. "
            "O pré-processamento limitou-se à remoção de cabeçalhos repetidos, à normalização de espaços e à conversão de "
            "trechos em caixa alta para caixa mista, preservando acentos e a numeração de dispositivos legais.",
        ],
    ),
    (
        "Consultas e julgamentos de relevância",
        [
            "Doze profissionais, oito advogados e quatro servidores de defensoria pública, redigiram 150 consultas a partir "
            "de casos reais de sua prática, sem acesso prévio à coleção. "
            "Metade das consultas foi escrita em forma de palavras-chave, como habitualmente se faz nos portais dos "
            "tribunais, e a outra metade em linguagem natural, descrevendo a situação de fato. "
            "Para cada consulta, os dez primeiros documentos de cada sistema foram reunidos em um conjunto único (pooling) "
            "e avaliados por dois anotadores em uma escala de três níveis: não relevante, parcialmente relevante e relevante. "
            "A concordância entre anotadores, medida pelo kappa ponderado de Cohen, foi de 0,71, e as divergências foram "
            "resolvidas por um terceiro anotador.",
        ],
    ),
    (
        "Sistemas avaliados",
        [
            "O BM25 foi executado com a biblioteca Pyserini (LIN et al., 2021), com analisador para português e parâmetros "
            "k1 = 0,9 e b = 0,4. "
            "O recuperador denso utilizou o modelo multilingual-e5-base (WANG et al., 2022), um codificador de sentenças "
            "na linha do Sentence-BERT (REIMERS; GUREVYCH, 2019), sem ajuste fino, com as ementas truncadas em 512 tokens e "
            "busca exata por similaridade de cosseno. "
            "A abordagem híbrida combinou as 100 primeiras posições de cada sistema por fusão de ranques recíprocos, com a "
            "constante k igual a 60. "
            "Todos os experimentos foram realizados em um servidor com uma GPU de 24 GB, e a indexação densa da coleção "
            "levou aproximadamente 41 minutos.",
        ],
    ),
    (
        "Métricas",
        [
            "A avaliação utilizou o nDCG@10 (JÄRVELIN; KEKÄLÄINEN, 2002) como métrica principal, atribuindo ganho 2 aos "
            "documentos relevantes e ganho 1 aos parcialmente relevantes. "
            "Também foram calculados a revocação nas 100 primeiras posições (R@100) e o MRR, considerando relevantes apenas "
            "os documentos do nível mais alto. "
            "As diferenças entre sistemas foram verificadas com o teste t pareado bilateral, com correção de Bonferroni "
            "para as três comparações.",
        ],
    ),
]

RESULTADOS_1 = (
    "A Tabela 1 apresenta os resultados gerais. "
    "A abordagem híbrida obteve os maiores valores em todas as métricas, com nDCG@10 de 0,612, o que representa ganho "
    "de 14,6% sobre o BM25 e de 23,1% sobre o recuperador denso. "
    "As diferenças entre o sistema híbrido e os demais foram estatisticamente significativas (p < 0,01), enquanto a "
    "diferença entre o BM25 e o recuperador denso não foi significativa no conjunto completo de consultas."
)
TABELA_1 = (
    "Tabela 1 – Desempenho dos sistemas nas 150 consultas",
    ["Sistema", "nDCG@10", "R@100", "MRR"],
    [
        ["BM25", "0,534", "0,781", "0,602"],
        ["Denso (multilingual-e5-base)", "0,497", "0,744", "0,571"],
        ["Híbrido (RRF)", "0,612", "0,862", "0,683"],
    ],
)
RESULTADOS_2 = (
    "A análise por tipo de consulta revela comportamentos opostos dos dois métodos de base (Tabela 2). "
    "Nas consultas por palavras-chave, o BM25 superou o recuperador denso em 0,119 ponto de nDCG@10, ao passo que nas "
    "consultas em linguagem natural o recuperador denso foi superior em 0,045 ponto. "
    "O sistema híbrido manteve desempenho estável nos dois grupos, com variação de apenas 0,010 ponto entre eles."
)
TABELA_2 = (
    "Tabela 2 – nDCG@10 por tipo de consulta",
    ["Tipo de consulta", "BM25", "Denso", "Híbrido"],
    [
        ["Palavras-chave (n = 75)", "0,581", "0,462", "0,617"],
        ["Linguagem natural (n = 75)", "0,487", "0,532", "0,607"],
    ],
)
RESULTADOS_3 = (
    "Em 23 das 150 consultas, nenhum dos sistemas recuperou documento relevante entre as dez primeiras posições. "
    "A inspeção manual mostrou que 15 dessas consultas mencionavam súmulas ou temas repetitivos pelo número, informação "
    "que raramente aparece nas ementas, e que as demais tratavam de matérias com pouquíssimos precedentes na coleção."
)

DISCUSSAO = [
    "Os resultados confirmam, para o domínio jurídico em português, a complementaridade entre sinais lexicais e "
    "semânticos já observada em outras coleções. "
    "O recuperador denso foi capaz de associar descrições de fatos a ementas que empregam vocabulário técnico distinto, "
    "como na consulta sobre “cobrança de tarifa por serviço não contratado”, cujos documentos relevantes falavam em "
    "“venda casada” e “prática abusiva”. "
    "Em contrapartida, o mesmo modelo falhou em consultas com referências precisas, como “art. 1.003 do CPC "
    "tempestividade”, em que o BM25 recuperou os documentos corretos nas primeiras posições.",
    "Um aspecto relevante para a adoção prática é o custo. "
    "A fusão de ranques recíprocos não exige treinamento nem ajuste de pesos, e o acréscimo no tempo de resposta em "
    "relação ao BM25 isolado foi de cerca de 35 milissegundos por consulta, dominado pela codificação da consulta pelo "
    "modelo denso. "
    "Isso torna a abordagem viável mesmo para tribunais com infraestrutura modesta.",
    "Algumas limitações devem ser consideradas. "
    "A coleção abrange apenas três tribunais e dois tipos de recurso, e o modelo denso não foi ajustado ao domínio "
    "jurídico, o que provavelmente subestima seu potencial (SOUZA; NOGUEIRA; LOTUFO, 2020). "
    "Além disso, o pooling com apenas três sistemas pode ter deixado de identificar documentos relevantes, favorecendo "
    "os sistemas participantes em detrimento de abordagens futuras.",
]

CONSIDERACOES = [
    "Este estudo comparou três estratégias de recuperação de jurisprudência em uma coleção de mais de 180 mil ementas "
    "de tribunais estaduais. "
    "A combinação híbrida por fusão de ranques recíprocos foi a estratégia mais eficaz e a mais estável entre tipos de "
    "consulta, superando tanto o BM25 quanto o recuperador denso sem necessidade de treinamento adicional. "
    "Conclui-se que os portais de consulta dos tribunais podem obter ganhos expressivos de qualidade incorporando um "
    "componente semântico à busca lexical já existente, em vez de substituí-la.",
    "Como trabalhos futuros, pretende-se ajustar o modelo denso com pares de consulta e ementa do próprio domínio e "
    "estender a avaliação ao inteiro teor dos votos.",
]

REFERENCIAS = [
    "CORMACK, G. V.; CLARKE, C. L. A.; BUETTCHER, S. Reciprocal rank fusion outperforms Condorcet and individual rank "
    "learning methods. In: INTERNATIONAL ACM SIGIR CONFERENCE ON RESEARCH AND DEVELOPMENT IN INFORMATION RETRIEVAL, "
    "32., 2009, Boston. Proceedings [...]. New York: ACM, 2009. p. 758-759.",
    "JÄRVELIN, K.; KEKÄLÄINEN, J. Cumulated gain-based evaluation of IR techniques. ACM Transactions on Information "
    "Systems, v. 20, n. 4, p. 422-446, 2002.",
    "KARPUKHIN, V. et al. Dense passage retrieval for open-domain question answering. In: CONFERENCE ON EMPIRICAL "
    "METHODS IN NATURAL LANGUAGE PROCESSING, 2020. Proceedings [...]. Association for Computational Linguistics, 2020. "
    "p. 6769-6781.",
    "LIN, J. et al. Pyserini: a Python toolkit for reproducible information retrieval research with sparse and dense "
    "representations. In: INTERNATIONAL ACM SIGIR CONFERENCE ON RESEARCH AND DEVELOPMENT IN INFORMATION RETRIEVAL, "
    "44., 2021. Proceedings [...]. New York: ACM, 2021. p. 2356-2362.",
    "REIMERS, N.; GUREVYCH, I. Sentence-BERT: sentence embeddings using Siamese BERT-networks. In: CONFERENCE ON "
    "EMPIRICAL METHODS IN NATURAL LANGUAGE PROCESSING, 2019, Hong Kong. Proceedings [...]. Association for "
    "Computational Linguistics, 2019. p. 3982-3992.",
    "ROBERTSON, S.; ZARAGOZA, H. The probabilistic relevance framework: BM25 and beyond. Foundations and Trends in "
    "Information Retrieval, v. 3, n. 4, p. 333-389, 2009.",
    "SOUZA, F.; NOGUEIRA, R.; LOTUFO, R. BERTimbau: pretrained BERT models for Brazilian Portuguese. In: BRAZILIAN "
    "CONFERENCE ON INTELLIGENT SYSTEMS, 9., 2020. Lecture Notes in Computer Science, v. 12319. Cham: Springer, 2020. "
    "p. 403-417.",
    "WANG, L. et al. Text embeddings by weakly-supervised contrastive pre-training. arXiv preprint arXiv:2212.03533, "
    "2022.",
]


def add_table(doc, caption, header, rows):
    cap = doc.add_paragraph(caption)
    cap.alignment = WD_ALIGN_PARAGRAPH.CENTER
    cap.runs[0].bold = True
    cap.runs[0].font.size = Pt(9.5)
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    for cell, text in zip(table.rows[0].cells, header):
        cell.text = text
        cell.paragraphs[0].runs[0].bold = True
    for row in rows:
        cells = table.add_row().cells
        for cell, text in zip(cells, row):
            cell.text = text
    for row in table.rows:
        for cell in row.cells:
            for p in cell.paragraphs:
                p.paragraph_format.space_after = Pt(0)
                for r in p.runs:
                    r.font.size = Pt(9.5)
    src = doc.add_paragraph("Fonte: elaborada pelos autores.")
    src.alignment = WD_ALIGN_PARAGRAPH.CENTER
    src.runs[0].font.size = Pt(9)


def setup_page_and_styles(doc):
    """Set A4 page geometry, base fonts and the running header."""
    sec = doc.sections[0]
    sec.page_height, sec.page_width = Cm(29.7), Cm(21.0)
    sec.left_margin = sec.right_margin = Cm(2.5)
    sec.top_margin = sec.bottom_margin = Cm(2.5)

    normal = doc.styles["Normal"]
    normal.font.name = "DejaVu Serif"
    normal.font.size = Pt(10.5)
    normal.paragraph_format.space_after = Pt(6)
    normal.paragraph_format.line_spacing = 1.15
    for name in ("Title", "Heading 1", "Heading 2"):
        doc.styles[name].font.name = "DejaVu Sans"

    hdr = sec.header.paragraphs[0]
    hdr.text = "Anais do Simpósio Brasileiro de Tecnologia e Direito (fictício) · 2024"
    hdr.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    hdr.runs[0].font.size = Pt(8.5)
    hdr.runs[0].italic = True


def add_title_block(doc):
    """Add the title, authors, affiliations and contact line."""
    doc.add_paragraph(TITLE, style="Title")

    p = doc.add_paragraph()
    p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    for i, (name, aff) in enumerate(zip(AUTHORS, ["1", "1", "2"])):
        p.add_run(name)
        sup = p.add_run(aff)
        sup.font.superscript = True
        if i < len(AUTHORS) - 1:
            p.add_run(", ")
    for line in (
        "1 Programa de Pós-Graduação em Computação, Universidade Federal do Litoral Fluminense, "
        "Campos Altos, RJ, Brasil",
        "2 Laboratório de Informática Jurídica, Instituto Tecnológico de Campos Altos, RJ, Brasil",
        "Contato: mariana.lessa@uflf.example.br · Recebido em 15/01/2024 · Aceito em 04/03/2024",
    ):
        q = doc.add_paragraph()
        q.alignment = WD_ALIGN_PARAGRAPH.CENTER
        q.paragraph_format.space_after = Pt(0)
        if line[0].isdigit():
            s = q.add_run(line[0])
            s.font.superscript = True
            s.font.size = Pt(9)
            line = line[2:]
        r = q.add_run(line)
        r.font.size = Pt(9)


def add_abstracts(doc):
    """Add the Portuguese and English abstracts with their keywords."""
    doc.add_heading("Resumo", level=1)
    doc.add_paragraph(RESUMO)
    kw = doc.add_paragraph()
    kw.add_run(PALAVRAS.split(":")[0] + ":").bold = True
    kw.add_run(PALAVRAS.split(":", 1)[1])

    doc.add_heading("Abstract", level=1)
    ab = doc.add_paragraph(ABSTRACT)
    ab.runs[0].italic = True
    kw = doc.add_paragraph()
    kw.add_run(KEYWORDS.split(":")[0] + ":").bold = True
    kw.add_run(KEYWORDS.split(":", 1)[1])


def add_section(doc, heading, paragraphs):
    """Add a level-1 heading followed by plain paragraphs."""
    doc.add_heading(heading, level=1)
    for t in paragraphs:
        doc.add_paragraph(t)


def add_objectives_and_method(doc):
    """Add the objectives (with bullet list) and the methodology subsections."""
    doc.add_heading("Objetivos", level=1)
    doc.add_paragraph(OBJETIVOS)
    for t in OBJETIVOS_ESPECIFICOS:
        doc.add_paragraph(t, style="List Bullet")
    doc.add_paragraph(OBJETIVOS_FIM)

    doc.add_heading("Metodologia", level=1)
    for sub, paras in METODO:
        doc.add_heading(sub, level=2)
        for t in paras:
            doc.add_paragraph(t)


def add_results(doc):
    """Add the results section with its two tables."""
    doc.add_heading("Resultados", level=1)
    doc.add_paragraph(RESULTADOS_1)
    add_table(doc, *TABELA_1)
    doc.add_paragraph(RESULTADOS_2)
    add_table(doc, *TABELA_2)
    doc.add_paragraph(RESULTADOS_3)


def add_references(doc):
    """Add the reference list in a smaller font."""
    doc.add_heading("Referências", level=1)
    for t in REFERENCIAS:
        r = doc.add_paragraph(t)
        r.paragraph_format.space_after = Pt(4)
        r.runs[0].font.size = Pt(9.5)


def set_core_properties(doc):
    """Set fixed document metadata so the output is reproducible."""
    cp = doc.core_properties
    cp.author = "; ".join(AUTHORS)
    cp.title = TITLE
    cp.language = "pt-BR"
    cp.created = datetime.datetime(2024, 3, 18, 10, 30, 0)
    cp.modified = datetime.datetime(2024, 3, 18, 10, 30, 0)
    cp.last_modified_by = AUTHORS[0]


def main():
    """Build the article and save it as article.docx next to this script."""
    doc = Document()
    setup_page_and_styles(doc)
    add_title_block(doc)
    add_abstracts(doc)
    add_section(doc, "Introdução", INTRO)
    add_objectives_and_method(doc)
    add_results(doc)
    add_section(doc, "Discussão", DISCUSSAO)
    add_section(doc, "Considerações finais", CONSIDERACOES)
    add_references(doc)
    set_core_properties(doc)
    doc.save(HERE / "article.docx")


if __name__ == "__main__":
    main()
