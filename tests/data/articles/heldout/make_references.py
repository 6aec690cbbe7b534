"""Write references.jsonl (hand-made annotations of the three HELD-OUT articles).

All sentences below were copied verbatim from the article sources. Run check_references.py afterwards.
"""

import json
from pathlib import Path


HERE = Path(__file__).resolve().parent

PT_LATEX = {
    "id": "pt_latex",
    "file": "pt_latex/article.pdf",
    "language": "pt",
    "layout": "pdf-latex",
    "held_out": True,
    "title": "Cobertura morta com palha de carnaúba, umidade do solo e produtividade de alface em cultivo orgânico no Semiárido",
    "authors": ["Helena Prates Vasconcelos", "Rodrigo Almeida Tenório", "Luíza Fontes Barreto"],
    "year": 2023,
    "sections": [
        {"kind": "abstract", "heading": "RESUMO"},
        {"kind": "abstract", "heading": "ABSTRACT"},
        {"kind": "introduction", "heading": "1. Introdução"},
        {"kind": "method", "heading": "2. Materiais e Métodos"},
        {"kind": "results", "heading": "3. Resultados e Discussão", "alt_kinds": ["discussion"]},
        {"kind": "conclusion", "heading": "4. Conclusões"},
        {"kind": "acknowledgements", "heading": "Agradecimentos"},
        {"kind": "references", "heading": "Referências Bibliográficas"},
    ],
    "objective": [
        "Este trabalho avaliou o efeito de diferentes espessuras de cobertura morta com palha de carnaúba sobre a umidade do solo, a temperatura do solo e a produtividade da alface crespa cultivada em sistema orgânico.",
        "Buscou-se, com este estudo, determinar a espessura de palha de carnaúba que proporciona maior conservação da umidade do solo e maior produtividade de alface crespa em cultivo orgânico irrigado por gotejamento.",
    ],
    "method": [
        "Adotou-se o delineamento em blocos casualizados, com cinco tratamentos e quatro repetições, totalizando 20 parcelas.",
        "Os tratamentos corresponderam a espessuras de cobertura morta de 0 (testemunha), 2, 4, 6 e 8 cm de palha de carnaúba triturada, aplicada sobre os canteiros dois dias antes do transplantio.",
        "A irrigação foi realizada por gotejamento, com lâmina fixa de 4 mm por dia em todos os tratamentos, de modo que as diferenças de umidade refletissem apenas o efeito da cobertura.",
    ],
    "data": [
        "A umidade volumétrica do solo foi medida a cada três dias, às 8 h, na camada de 0 a 15 cm, com sonda de reflectometria no domínio do tempo (TDR) previamente calibrada para o solo local, totalizando 18 leituras por parcela.",
        "A temperatura do solo a 5 cm de profundidade foi registrada a cada 30 minutos por sensores conectados a um registrador automático instalado em um dos blocos.",
        "Na colheita, realizada 45 dias após o transplantio, foram determinados a massa fresca da parte aérea, o número de folhas por planta e a produtividade comercial, estimada a partir das plantas úteis e considerando-se que os canteiros ocupam 65% da área.",
    ],
    "result": [
        "O solo descoberto apresentou umidade média de 14,2%, valor próximo ao limite inferior de água disponível para a textura franco-arenosa, enquanto as parcelas com 6 e 8 cm de palha mantiveram umidades médias de 21,7% e 22,3%, respectivamente.",
        "A amplitude térmica diária também foi reduzida, de 17,2 °C para 9,8 °C, indicando que a palha atuou como isolante térmico.",
        "A massa fresca por planta respondeu de forma quadrática à espessura da cobertura, com ponto de máxima estimado em 6,4 cm.",
        "A produtividade comercial passou de 20,6 t por hectare na testemunha para 32,5 t por hectare com 6 cm de palha, um aumento de 58%.",
    ],
    "conclusion": [
        "A cobertura morta com palha de carnaúba aumentou a umidade do solo e reduziu a temperatura máxima na zona radicular da alface em todas as espessuras avaliadas.",
        "A espessura de 6 cm proporcionou a maior produtividade comercial, com incremento de 58% em relação ao solo descoberto, e camadas mais espessas não trouxeram benefícios adicionais.",
        "Recomenda-se, portanto, a aplicação de 6 cm de palha de carnaúba no cultivo orgânico de alface em pequenas propriedades do Semiárido, por se tratar de um resíduo local, barato e de fácil manejo.",
    ],
}

PT_DOCX = {
    "id": "pt_docx",
    "file": "pt_docx/article.pdf",
    "language": "pt",
    "layout": "pdf-word",
    "held_out": True,
    "title": "Busca de jurisprudência em ementas de tribunais estaduais: comparação entre recuperação lexical, densa e híbrida",
    "authors": ["Mariana Coutinho Lessa", "Felipe Andrade Rangel", "Tatiane Moreira Quintela"],
    "year": 2024,
    "sections": [
        {"kind": "abstract", "heading": "Resumo"},
        {"kind": "abstract", "heading": "Abstract"},
        {"kind": "introduction", "heading": "Introdução"},
        {"kind": "objectives", "heading": "Objetivos"},
        {"kind": "method", "heading": "Metodologia"},
        {"kind": "results", "heading": "Resultados"},
        {"kind": "discussion", "heading": "Discussão"},
        {"kind": "conclusion", "heading": "Considerações finais"},
        {"kind": "references", "heading": "Referências"},
    ],
    "objective": [
        "O objetivo geral desta pesquisa é verificar se a recuperação híbrida, que combina um modelo lexical e um recuperador denso, melhora a busca de jurisprudência em ementas de tribunais estaduais em comparação com cada método isolado.",
        "Neste trabalho, comparamos três estratégias de recuperação aplicadas a ementas de acórdãos de tribunais estaduais brasileiros: o modelo lexical BM25, um recuperador denso baseado em um codificador de sentenças multilíngue e uma combinação híbrida das duas listas por fusão de ranques recíprocos.",
        "Este trabalho contribui com uma avaliação sistemática das três famílias de abordagens, em uma coleção de grande porte e com consultas escritas por usuários reais.",
    ],
    "method": [
        "O BM25 foi executado com a biblioteca Pyserini (LIN et al., 2021), com analisador para português e parâmetros k1 = 0,9 e b = 0,4.",
        "O recuperador denso utilizou o modelo multilingual-e5-base (WANG et al., 2022), um codificador de sentenças na linha do Sentence-BERT (REIMERS; GUREVYCH, 2019), sem ajuste fino, com as ementas truncadas em 512 tokens e busca exata por similaridade de cosseno.",
        "A abordagem híbrida combinou as 100 primeiras posições de cada sistema por fusão de ranques recíprocos, com a constante k igual a 60.",
        "A avaliação utilizou o nDCG@10 (JÄRVELIN; KEKÄLÄINEN, 2002) como métrica principal, atribuindo ganho 2 aos documentos relevantes e ganho 1 aos parcialmente relevantes.",
    ],
    "data": [
        "A coleção foi formada por 182.416 ementas de acórdãos publicados entre janeiro de 2015 e dezembro de 2022 por três tribunais de justiça estaduais, obtidas nos portais públicos de consulta de cada tribunal.",
        "As ementas têm, em média, 187 palavras, com desvio padrão de 96 palavras; o inteiro teor dos votos não foi utilizado.",
        "Doze profissionais, oito advogados e quatro servidores de defensoria pública, redigiram 150 consultas a partir de casos reais de sua prática, sem acesso prévio à coleção.",
        "Metade das consultas foi escrita em forma de palavras-chave, como habitualmente se faz nos portais dos tribunais, e a outra metade em linguagem natural, descrevendo a situação de fato.",
    ],
    "result": [
        "A abordagem híbrida obteve os maiores valores em todas as métricas, com nDCG@10 de 0,612, o que representa ganho de 14,6% sobre o BM25 e de 23,1% sobre o recuperador denso.",
        "Nas consultas por palavras-chave, o BM25 superou o recuperador denso em 0,119 ponto de nDCG@10, ao passo que nas consultas em linguagem natural o recuperador denso foi superior em 0,045 ponto.",
        "O sistema híbrido manteve desempenho estável nos dois grupos, com variação de apenas 0,010 ponto entre eles.",
    ],
    "conclusion": [
        "A combinação híbrida por fusão de ranques recíprocos foi a estratégia mais eficaz e a mais estável entre tipos de consulta, superando tanto o BM25 quanto o recuperador denso sem necessidade de treinamento adicional.",
        "Conclui-se que os portais de consulta dos tribunais podem obter ganhos expressivos de qualidade incorporando um componente semântico à busca lexical já existente, em vez de substituí-la.",
    ],
}

EN_DOCX = {
    "id": "en_docx",
    "file": "en_docx/article.pdf",
    "language": "en",
    "layout": "pdf-word",
    "held_out": True,
    "title": "Soiling Losses in Small Rooftop Photovoltaic Systems: Twelve Months of Paired Monitoring in a Semi-Arid City",
    "authors": ["Daniel Kwame Osei-Mensah", "Laura Brennan Whitfield", "Arjun Ramesh Iyer"],
    "year": 2022,
    "sections": [
        {"kind": "abstract", "heading": "Abstract"},
        {"kind": "introduction", "heading": "1 Introduction"},
        {"kind": "related_work", "heading": "2 Background"},
        {"kind": "method", "heading": "3 Data and Methods"},
        {"kind": "results", "heading": "4 Results"},
        {"kind": "discussion", "heading": "5 Discussion"},
        {"kind": "conclusion", "heading": "6 Conclusions"},
        {"kind": "acknowledgements", "heading": "Acknowledgements"},
        {"kind": "references", "heading": "References"},
    ],
    "objective": [
        "The aim of this work is to quantify soiling losses on residential rooftop arrays in a semi-arid city over a full year and to identify the cleaning interval that minimises the combined cost of lost energy and cleaning.",
        "We measured soiling losses on six residential rooftop arrays in a semi-arid city for twelve months using paired clean and soiled reference modules, and used the measured rates to evaluate the economics of manual cleaning.",
    ],
    "method": [
        "Each system was fitted with a pair of reference modules of the same model as the array, mounted side by side in the plane of the array.",
        "One module of each pair was cleaned with deionised water every morning before 7:00 by a trained member of the household, and the other was never cleaned during the study.",
        "Soiling rates were estimated by robust linear regression of the soiling ratio against time within each dry interval longer than 14 days, following Kimura and Adeyemi (2020).",
        "For each system we computed the optimal interval as the square root of twice the cleaning cost divided by the daily increase in the value of lost energy, and compared it with the observed gaps between effective rain events, defined as days with more than 2 mm of rainfall.",
    ],
    "data": [
        "We monitored six rooftop systems between 1 November 2020 and 31 October 2021, ranging from 3.2 to 6.5 kWp and installed at tilt angles between 8° and 15°.",
        "Short-circuit current and back-of-module temperature of both reference modules were logged every five minutes.",
        "After screening, 1,874 valid system-days remained out of a possible 2,190, or 85.6%.",
        "The cost of a professional cleaning visit was taken as $20 per system, the median of quotes obtained from four local providers.",
    ],
    "result": [
        "During the dry season the soiling ratio declined steadily between the rare rain events, with a mean soiling rate of 0.15% per day across the six systems.",
        "Annual energy losses attributable to soiling ranged from 1.8% on system S2 to 4.3% on system S4, with a mean of 3.0%.",
        "The cost model yielded optimal cleaning intervals between 48 and 96 days, with a median of 72.5 days.",
    ],
    "conclusion": [
        "Soiling reduced the annual output of small rooftop PV systems in a semi-arid city by between 1.8% and 4.3%, with losses concentrated in the dry season and strongly dependent on tilt angle and nearby dust sources.",
        "Paid manual cleaning was economically justified only for the largest and most exposed low-tilt array, while for the other five systems rainfall removed enough dust to make scheduled cleaning unprofitable at current prices.",
        "Households and installers should therefore base cleaning decisions on site exposure rather than on fixed calendars, and a pair of reference modules offers an affordable way to make that assessment.",
    ],
}


def word_variant(rec):
    out = dict(rec)
    out["id"] = rec["id"] + "_word"
    out["file"] = rec["file"].replace("article.pdf", "article.docx")
    out["layout"] = "docx"
    return out


def main():
    records = [PT_LATEX, PT_DOCX, word_variant(PT_DOCX), EN_DOCX, word_variant(EN_DOCX)]
    with open(HERE / "references.jsonl", "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
