"""HELD-OUT set, document h04: conference paper (pt), Markdown with YAML.
Do not read while tuning a front-matter reader (see SOURCES.md).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

H04_TITLE = "Oficinas de compostagem como estratégia de ensino de química no ensino fundamental: relato de experiência"

H04_TEXT = """---
title: >-
  Oficinas de compostagem como estratégia de ensino de química
  no ensino fundamental: relato de experiência
author:
  - name: Paulo Sérgio Rangel Matos
    affiliation: Universidade Federal do Pantanal Norte
    email: paulo.matos@ufpn.edu.br
  - name: Vanessa D'Ávila Cunha
    affiliation: Escola Municipal Sete de Setembro
  - name: Elias Bortolotto Neto
    affiliation: Universidade Federal do Pantanal Norte
date: 2022-10-19
lang: pt-BR
---

**Anais do XII Encontro Nacional de Ensino de Química Ambiental (ENEQA)** · Cuiabá, 17 a 20 de outubro de 2022 ·
ISSN 2966-1043 · Área temática: Experimentação no Ensino

Paulo Sérgio Rangel Matos¹, Vanessa D'Ávila Cunha², Elias Bortolotto Neto¹

¹ Instituto de Química, Universidade Federal do Pantanal Norte (UFPN), Cuiabá – MT
² Escola Municipal Sete de Setembro, Várzea Grande – MT
paulo.matos@ufpn.edu.br, vanessa.cunha@emsetedesetembro.edu.br, elias.neto@ufpn.edu.br

# Resumo

Este trabalho relata a experiência de oficinas de compostagem realizadas com turmas do 9º ano de uma escola
municipal como ponto de partida para o ensino de transformações químicas. Em seis encontros, os estudantes
montaram composteiras com resíduos da merenda, mediram a temperatura e o pH e discutiram a decomposição da
matéria orgânica. A comparação entre questionários aplicados antes e depois das oficinas mostrou que a proporção
de respostas que reconheciam a compostagem como transformação química passou de 22% para 71%. Conclui-se que a
compostagem é um contexto acessível e de baixo custo para ensinar conceitos de química no ensino fundamental.

**Palavras-chave:** compostagem; ensino de química; experimentação; resíduos orgânicos.

# 1 Introdução

Os conceitos de transformação química costumam ser apresentados aos estudantes do ensino fundamental de forma
abstrata, com exemplos distantes de seu cotidiano. Ao mesmo tempo, as escolas produzem diariamente resíduos
orgânicos da merenda, que em geral são descartados junto com o lixo comum.

O objetivo deste relato é descrever e avaliar uma sequência de oficinas de compostagem planejada para introduzir
o conceito de transformação química a estudantes do 9º ano, aproveitando os resíduos produzidos na própria escola.

# 2 Metodologia

As oficinas ocorreram entre março e junho de 2022 com duas turmas do 9º ano (58 estudantes) de uma escola
municipal de Várzea Grande, em seis encontros de 90 minutos. Os estudantes montaram quatro composteiras com
resíduos da merenda e folhas secas, registraram semanalmente a temperatura e o pH e produziram um diário de
observações.

Antes da primeira e depois da última oficina, os estudantes responderam a um questionário com cinco questões
abertas sobre decomposição e transformações da matéria. As respostas foram classificadas por dois professores em
categorias definidas previamente, e as divergências foram resolvidas por consenso.

# 3 Resultados

A proporção de respostas que reconheciam a compostagem como transformação química passou de 22% no questionário
inicial para 71% no final. Os registros de temperatura, que chegaram a 58 °C na segunda semana, foram o elemento
mais citado pelos estudantes como evidência de que "algo novo estava sendo formado". Os diários mostraram ainda
que 40 dos 58 estudantes passaram a separar os resíduos da merenda sem orientação do professor.

# 4 Considerações finais

As oficinas de compostagem mostraram-se um contexto acessível para ensinar transformações químicas, pois tornam
observáveis fenômenos como a liberação de energia e a mudança de pH. A experiência pode ser reproduzida em outras
escolas com materiais de baixo custo, e pretende-se acompanhar, em trabalho futuro, a retenção desses conceitos no
ensino médio.

# Referências

BORTOLOTTO NETO, E. **Química do solo para professores**. Cuiabá: Editora Pantaneira, 2019.

CUNHA, V. D.; MATOS, P. S. R. Resíduos da merenda como recurso didático. **Revista de Educação Química do
Centro-Oeste**, v. 5, n. 1, p. 33-47, 2021.

MATOS, P. S. R. Experimentação investigativa no ensino fundamental. In: ENCONTRO NACIONAL DE ENSINO DE QUÍMICA
AMBIENTAL, 11., 2020, Campo Grande. **Anais** [...]. Campo Grande: ENEQA, 2020. p. 210-215.
"""

H04 = {
    "id": "h04",
    "file": "h04_anais_pt.md",
    "kind": "conference",
    "language": "pt",
    "format": "md",
    "title": H04_TITLE,
    "authors": ["Paulo Sérgio Rangel Matos", "Vanessa D'Ávila Cunha", "Elias Bortolotto Neto"],
    "year": 2022,
    "metadata_right": True,
    "traps": [
        "yaml_front_matter",
        "yaml_title_with_colon",
        "first_heading_not_title",
        "proceedings_header",
        "authors_one_line_comma",
        "superscript_affiliations",
        "affiliation_block",
        "affiliation_emails",
        "subtitle_after_colon",
        "apostrophe_name",
        "name_suffix",
        "accented_names",
    ],
    "must_contain": [
        "Resumo",
        "1 Introdução",
        "2 Metodologia",
        "3 Resultados",
        "4 Considerações finais",
        "Referências",
    ],
    "text": H04_TEXT,
}

DOCS = [H04]
