"""Write references.jsonl (the hand annotation of the five tuning articles).

Run from anywhere:  /work/main/.venv/bin/python build_references.py
Sentences are copied verbatim from the rendered text of each article (LaTeX
markup such as \\% and -- appears here as % and –).
"""

import json
from pathlib import Path


HERE = Path(__file__).resolve().parent

PT_LATEX = {
    "id": "pt_latex",
    "file": "pt_latex/article.pdf",
    "language": "pt",
    "layout": "pdf-latex",
    "held_out": False,
    "title": "Avaliação de geração aumentada por recuperação em documentos jurídicos brasileiros: "
    "um estudo com acórdãos e legislação federal",
    "authors": ["Mariana Teixeira Lobo", "Rafael Antunes Coelho", "Helena Prado Vasconcelos"],
    "year": 2024,
    "sections": [
        {"kind": "abstract", "heading": "Resumo"},
        {"kind": "abstract", "heading": "Abstract"},
        {"kind": "introduction", "heading": "1 Introdução"},
        {"kind": "related_work", "heading": "2 Trabalhos relacionados"},
        {"kind": "method", "heading": "3 Metodologia"},
        {"kind": "results", "heading": "4 Resultados"},
        {"kind": "conclusion", "heading": "5 Conclusão"},
        {"kind": "acknowledgements", "heading": "Agradecimentos"},
        {"kind": "references", "heading": "Referências"},
    ],
    "objective": [
        "Este trabalho propõe um protocolo de avaliação de sistemas RAG para documentos jurídicos em português e o aplica a quatro configurações de segmentação e recuperação.",
        "O objetivo deste estudo é medir, de forma controlada, o efeito da estratégia de segmentação e do tipo de recuperador sobre a qualidade das respostas de sistemas RAG aplicados a documentos jurídicos em português.",
        "Para isso, propomos um protocolo de avaliação com perguntas elaboradas por especialistas e métricas separadas para recuperação, suporte e correção.",
    ],
    "method": [
        "Comparamos duas estratégias de segmentação e dois recuperadores, o que resulta em quatro configurações.",
        "Na segmentação por dispositivo, cada artigo de lei foi mantido como unidade, com seus parágrafos e incisos, e cada acórdão foi dividido em ementa, relatório e voto, com o voto subdividido em blocos de até 400 palavras.",
        "Como recuperadores, usamos o BM25 e uma combinação híbrida que funde, por soma de postos recíprocos (Cormack et al., 2009), as listas do BM25 e de um modelo denso multilíngue ajustado com 4.000 pares de pergunta e trecho jurídico.",
        "A geração foi avaliada por dois critérios: correção, julgada por um especialista em escala de três níveis, e suporte, que indica se todas as afirmações da resposta estão amparadas nos trechos recuperados.",
    ],
    "data": [
        "O corpus reúne 1.840 acórdãos publicados entre 2018 e 2023 por três tribunais regionais federais e o texto consolidado de 37 leis federais, entre elas o Código de Defesa do Consumidor e a Lei Geral de Proteção de Dados Pessoais.",
        "Seis advogados com pelo menos cinco anos de prática elaboraram 612 perguntas a partir desses documentos.",
        "Do total, 318 perguntas referem-se à legislação, 201 a acórdãos e 93 exigem combinar as duas fontes.",
    ],
    "result": [
        "A configuração que combina segmentação por dispositivo e recuperação híbrida obteve revocação@5 de 0,81 e 68,8% de respostas corretas, contra 0,58 e 51,3% da configuração de referência, com janelas fixas e BM25.",
        "A proporção de respostas sem suporte caiu de 23,4% para 9,7%, e todas as diferenças em relação à configuração de referência foram significativas (p < 0,01).",
        "O efeito da segmentação foi maior que o do recuperador.",
    ],
    "conclusion": [
        "Este estudo mostrou que, em documentos jurídicos brasileiros, a segmentação que respeita a estrutura dos dispositivos legais e das partes do acórdão melhora a recuperação e reduz as respostas sem suporte de modo mais expressivo do que a troca do recuperador.",
        "A melhor configuração reduziu a proporção de respostas sem suporte para menos da metade do valor observado na configuração de referência.",
        "Concluímos que sistemas RAG destinados ao uso jurídico devem ser avaliados com métricas separadas para recuperação e suporte, e que a segmentação precisa ser tratada como parte do projeto do sistema, e não como detalhe de pré-processamento.",
    ],
}

PT_DOCX = {
    "id": "pt_docx",
    "file": "pt_docx/article.pdf",
    "language": "pt",
    "layout": "pdf-libreoffice",
    "held_out": False,
    "title": "Desempenho de sensores capacitivos de baixo custo no monitoramento da umidade do solo "
    "em pequenas propriedades do semiárido pernambucano",
    "authors": ["Francisca Raimunda de Sousa", "José Wellington Bezerra", "Ana Cláudia Menezes Lins"],
    "year": 2023,
    "sections": [
        {"kind": "abstract", "heading": "RESUMO"},
        {"kind": "introduction", "heading": "1. INTRODUÇÃO"},
        {"kind": "method", "heading": "2. MATERIAIS E MÉTODOS"},
        {"kind": "results", "heading": "3. RESULTADOS E DISCUSSÃO"},
        {"kind": "conclusion", "heading": "4. CONSIDERAÇÕES FINAIS"},
        {"kind": "references", "heading": "REFERÊNCIAS"},
    ],
    "objective": [
        "O objetivo deste trabalho foi avaliar a exatidão e a durabilidade de sensores capacitivos de baixo custo, calibrados localmente, no monitoramento da umidade de dois solos representativos do Sertão do Pajeú, em Pernambuco.",
        "Diante disso, o objetivo deste trabalho foi avaliar a exatidão e a durabilidade de sensores capacitivos de baixo custo, calibrados localmente, no monitoramento da umidade do solo em pequenas propriedades do semiárido pernambucano.",
        "Buscou-se, ainda, verificar se as leituras desses sensores são suficientes para orientar decisões de irrigação em cultivos típicos da região.",
    ],
    "method": [
        "Em cada propriedade, 12 sensores foram instalados em quatro pontos, nas profundidades de 10, 20 e 40 cm.",
        "As leituras brutas foram relacionadas à umidade volumétrica por regressão polinomial de segunda ordem, ajustada separadamente para cada solo.",
        "O desempenho foi avaliado pela raiz do erro quadrático médio (RMSE), pelo coeficiente de determinação (R²) e pelo viés médio, comparando-se a curva do fabricante com as curvas ajustadas.",
        "Para avaliar a utilidade prática das leituras, a irrigação da palma forrageira foi definida com base nos sensores em metade dos pontos e por turno fixo semanal na outra metade.",
    ],
    "data": [
        "O estudo foi conduzido entre março de 2021 e abril de 2022 em três propriedades familiares localizadas no Sertão do Pajeú, Pernambuco.",
        "Duas propriedades apresentam Neossolo Regolítico de textura franco-arenosa e a terceira, Luvissolo Crômico de textura franco-argilosa.",
        "Foram utilizados 36 sensores capacitivos de umidade do solo, com custo unitário de aproximadamente R$ 18,00.",
        "Em campo, foram coletadas 412 amostras de solo junto aos sensores, em intervalos quinzenais, para determinação da umidade pelo método gravimétrico (TEIXEIRA et al., 2017), convertida em base volumétrica com a densidade do solo de cada ponto.",
    ],
    "result": [
        "A calibração específica para cada solo reduziu esses valores para 0,021 e 0,026 cm³ cm⁻³, respectivamente, com R² igual ou superior a 0,92 nos dois casos.",
        "Quanto à durabilidade, 31 dos 36 sensores (86%) permaneciam em funcionamento ao final dos 14 meses.",
        "No manejo da palma forrageira, os pontos irrigados com base nos sensores receberam 27% menos água do que os pontos irrigados por turno fixo, sem diferença significativa na produção de matéria verde (teste t, p = 0,41).",
    ],
    "conclusion": [
        "Os sensores capacitivos de baixo custo avaliados apresentaram exatidão adequada para o manejo da irrigação em pequenas propriedades do semiárido pernambucano, desde que calibrados para o solo local.",
        "A curva do fabricante não deve ser utilizada nesses solos, pois produziu erros duas a três vezes maiores que os obtidos com a calibração local.",
        "O uso das leituras para decidir o momento da irrigação reduziu o consumo de água sem prejuízo à produção da palma forrageira.",
    ],
}

PT_DOCX_WORD = dict(PT_DOCX, id="pt_docx_word", file="pt_docx/article.docx", layout="docx")

PT_MARKDOWN = {
    "id": "pt_markdown",
    "file": "pt_markdown/article.md",
    "language": "pt",
    "layout": "markdown",
    "held_out": False,
    "title": "Assistente conversacional para consulta ao regulamento acadêmico de uma universidade "
    "pública com base em documentos PDF",
    "authors": ["Lucas Henrique Damasceno"],
    "year": 2025,
    "sections": [
        {"kind": "abstract", "heading": "Resumo"},
        {"kind": "introduction", "heading": "1 Introdução"},
        {"kind": "objectives", "heading": "1.1 Objetivos"},
        {"kind": "related_work", "heading": "2 Fundamentação teórica"},
        {"kind": "method", "heading": "3 Metodologia"},
        {"kind": "results", "heading": "4 Resultados"},
        {"kind": "conclusion", "heading": "5 Considerações finais"},
        {"kind": "references", "heading": "Referências"},
    ],
    "objective": [
        "O objetivo geral deste trabalho é desenvolver e avaliar um assistente conversacional que responda, com indicação da fonte, a perguntas de estudantes sobre as normas acadêmicas da UFCV a partir dos documentos oficiais em PDF.",
        "Esta dissertação apresenta o desenvolvimento e a avaliação de um assistente conversacional que responde a essas perguntas com base nos documentos oficiais da Universidade Federal de Campo Verde, disponíveis em PDF.",
    ],
    "method": [
        "Na segmentação, expressões regulares reconhecem artigos, parágrafos, incisos e alíneas, e cada artigo é armazenado como um trecho, acompanhado do título do documento e do capítulo a que pertence.",
        "Na recuperação, a consulta do estudante é submetida ao BM25 e a um modelo denso de sentenças, e as duas listas são combinadas por fusão de postos recíprocos.",
        "Na geração, os cinco trechos mais bem classificados são enviados a um modelo de linguagem de código aberto, executado nos servidores da universidade, com a instrução de responder apenas com base neles e de citar o documento e o artigo utilizados.",
        "Foram comparadas três estratégias de extração de texto, três recuperadores e a versão completa do assistente com uma busca por palavras-chave semelhante à disponível no portal institucional.",
    ],
    "data": [
        "O acervo é composto por 23 documentos oficiais da UFCV, com 412 páginas no total: o Regulamento Geral dos Cursos de Graduação, o calendário acadêmico de 2024, 14 resoluções do conselho de ensino e 7 instruções normativas da pró-reitoria de graduação.",
        "As perguntas de avaliação foram extraídas de mensagens reais enviadas por estudantes a quatro coordenações de curso entre 2022 e 2024, após a remoção de dados pessoais.",
        "Das 1.126 mensagens analisadas, foram selecionadas 350 perguntas cuja resposta consta do acervo.",
    ],
    "result": [
        "O assistente com recuperação híbrida respondeu corretamente a 78,6% das perguntas e indicou a fonte correta em 84,3% dos casos, enquanto a busca por palavras-chave levou a um trecho com a resposta em apenas 52,9% das perguntas.",
        "A extração com preservação da estrutura de artigos foi o fator que mais influenciou o desempenho final.",
        "Com a extração simples, que apenas concatena o texto das páginas, 18% dos artigos do regulamento foram divididos entre dois trechos ou misturados a cabeçalhos; com a extração estruturada, essa proporção caiu para 2%.",
    ],
    "conclusion": [
        "O assistente respondeu corretamente à maior parte das dúvidas recorrentes e indicou a fonte com boa exatidão, superando com clareza a busca por palavras-chave disponível no portal institucional.",
        "A principal lição do trabalho é que a qualidade da extração de texto condiciona todo o restante do sistema: preservar a hierarquia de artigos, parágrafos e incisos foi mais importante do que a escolha do recuperador ou do modelo gerador.",
        "Por outro lado, o assistente ainda falha em perguntas que dependem de tabelas e de normas alteradas por resoluções posteriores, o que recomenda cautela em seu uso sem supervisão.",
    ],
}

PT_HTML = {
    "id": "pt_html",
    "file": "pt_html/article.html",
    "language": "pt",
    "layout": "html",
    "held_out": False,
    "title": "Atraso na notificação de casos de dengue no estado de Goiás, 2019–2023: magnitude e fatores associados",
    "authors": [
        "Camila Rezende Fagundes",
        "Thiago Martins Albuquerque",
        "Patrícia Helena Borges",
        "Eduardo Sampaio Netto",
    ],
    "year": 2024,
    "sections": [
        {"kind": "abstract", "heading": "Resumo"},
        {"kind": "introduction", "heading": "Introdução"},
        {"kind": "method", "heading": "Método"},
        {"kind": "results", "heading": "Resultados"},
        {"kind": "discussion", "heading": "Discussão"},
        {"kind": "conclusion", "heading": "Conclusões"},
        {"kind": "acknowledgements", "heading": "Agradecimentos"},
        {"kind": "references", "heading": "Referências"},
    ],
    "objective": [
        "Este estudo teve como objetivo estimar a magnitude do atraso de notificação e de digitação dos casos de dengue em Goiás entre 2019 e 2023 e identificar características dos casos, dos serviços e dos municípios associadas a atrasos prolongados.",
        "Estimar a magnitude do atraso entre o início dos sintomas e a notificação dos casos de dengue no estado de Goiás e identificar fatores associados ao atraso prolongado.",
    ],
    "method": [
        "Trata-se de estudo transversal, descritivo e analítico, com dados secundários.",
        "O atraso de notificação foi definido como o número de dias entre a data de início dos sintomas e a data de notificação, e o atraso de digitação, como o número de dias entre a data de notificação e a data de inclusão da ficha no sistema.",
        "Considerou-se atraso prolongado o atraso de notificação superior a sete dias.",
    ],
    "data": [
        "Foram incluídos todos os casos de dengue notificados no Sinan em residentes de Goiás com data de início dos sintomas entre 1º de janeiro de 2019 e 31 de dezembro de 2023.",
        "Os dados foram obtidos na base não nominal disponibilizada pela Secretaria de Estado da Saúde, extraída em março de 2024.",
        "Excluíram-se registros duplicados e registros com datas inconsistentes, como data de notificação anterior à data de início dos sintomas.",
    ],
    "result": [
        "A mediana do atraso de notificação foi de 4 dias (IIQ: 2–7), e a mediana do atraso de digitação foi de 6 dias (IIQ: 2–15).",
        "Ao todo, 22,6% dos casos tiveram atraso de notificação superior a sete dias, e 31,5% das fichas foram digitadas mais de sete dias após a notificação.",
        "Na análise ajustada, o atraso de notificação superior a sete dias foi mais frequente em casos notificados por hospitais (RP = 1,38; IC95%: 1,35–1,41) e em municípios com menos de 20 mil habitantes (RP = 1,27; IC95%: 1,24–1,30).",
    ],
    "conclusion": [
        "O atraso na notificação de casos de dengue em Goiás é frequente e desigual entre serviços e municípios.",
        "Os atrasos de digitação, mais longos em municípios de pequeno porte e em períodos epidêmicos, representam a principal oportunidade de melhoria do sistema.",
        "Recomenda-se priorizar o apoio à digitação nos municípios de pequeno porte durante as epidemias e incorporar a heterogeneidade dos atrasos aos modelos de previsão utilizados pela vigilância estadual.",
    ],
}

EN_LATEX = {
    "id": "en_latex",
    "file": "en_latex/article.pdf",
    "language": "en",
    "layout": "pdf-latex",
    "held_out": False,
    "title": "Rewrite, Retrieve, Repeat: Learned Query Rewriting for Multi-Hop Question Answering",
    "authors": ["Daniel K. Osei", "Priya Raman", "Tomás Herrera Vidal"],
    "year": 2025,
    "sections": [
        {"kind": "abstract", "heading": "Abstract"},
        {"kind": "introduction", "heading": "Introduction"},
        {"kind": "related_work", "heading": "Related Work"},
        {"kind": "method", "heading": "Methods"},
        {"kind": "method", "heading": "Experiments"},
        {"kind": "results", "heading": "Results"},
        {"kind": "conclusion", "heading": "Conclusion"},
        {"kind": "references", "heading": "References"},
    ],
    "objective": [
        "This paper proposes HopRewriter, a small sequence-to-sequence model that rewrites a multi-hop question into a sequence of self-contained retrieval queries, each conditioned on the passages retrieved so far.",
        "This paper proposes HopRewriter, a compact model trained specifically to produce retrieval queries for multi-hop questions.",
        "The key idea is to train the rewriter only on query sequences that demonstrably help the retriever: we sample candidate rewrites from a large model and keep those that increase the recall of gold supporting passages.",
    ],
    "method": [
        "HopRewriter is an encoder–decoder model initialised from T5-base (Raffel et al., 2020), with 220M parameters.",
        "To build training data, we took 12,000 training questions, 4,000 from each dataset, and prompted a 70B-parameter instruction-tuned model to propose eight candidate next queries at each hop.",
        "A candidate was kept only if adding its top-10 passages increased the recall of gold supporting passages compared with the previous hop; among the kept candidates, we chose the one with the highest recall gain and, in case of a tie, the shortest.",
        "All systems share the same retriever, a hybrid of BM25 (Robertson and Zaragoza, 2009) and a dense bi-encoder whose scores are combined by reciprocal rank fusion.",
    ],
    "data": [
        "We evaluate on 1,000 questions sampled at random from the development sets of HotpotQA, 2WikiMultiHopQA and MuSiQue-Answerable, none of which overlap with the questions used to build the training data.",
        "The corpora contain 5.2 million paragraphs for HotpotQA, 6.1 million for 2WikiMultiHopQA and 139,000 for MuSiQue.",
        "This procedure yielded 41,000 training examples, one per hop, from 10,870 questions; the remaining questions produced no candidate that improved recall and were discarded.",
    ],
    "result": [
        "HopRewriter improves recall@10 over retrieval with the original question by 8.6 points on HotpotQA, 10.6 points on 2WikiMultiHopQA and 10.2 points on MuSiQue, an average gain of 9.8 points.",
        "Answer F1 rises by 6.1 points on average with the same reader.",
        "Compared with PromptRW, which has roughly eight times as many parameters, HopRewriter obtains equal or higher recall and F1 on all three datasets while generating queries 5.3 times faster.",
    ],
    "conclusion": [
        "We presented HopRewriter, a compact query rewriter for multi-hop question answering that conditions each query on the evidence already retrieved and is trained only on rewrites that improve retrieval recall.",
        "Learned rewriting of this kind closes most of the gap between single-query retrieval and iterative retrieval driven by large language models, at a small fraction of the inference cost.",
        "The recall-based filter proved essential, which suggests that supervision for query rewriting should be derived from the behaviour of the retriever rather than from how natural a decomposition looks to a human reader.",
    ],
}

RECORDS = [PT_LATEX, PT_DOCX, PT_DOCX_WORD, PT_MARKDOWN, PT_HTML, EN_LATEX]


def main():
    with open(HERE / "references.jsonl", "w", encoding="utf-8") as fh:
        for rec in RECORDS:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
