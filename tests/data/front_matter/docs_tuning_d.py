"""Tuning set, documents t08-t10: an English preprint in Markdown with YAML, a Portuguese bachelor's thesis in
Markdown without YAML, and an English workshop paper (DOCX).

All people, institutions, venues and results are fictional (see SOURCES.md).
"""

# ------------------------------------------------------------------ t08: preprint (en), Markdown with YAML
T08_TITLE = "Scheduling Field Surveys with Bandit Algorithms: A Case Study in Seabird Monitoring"

T08_TEXT = """---
title: "Scheduling Field Surveys with Bandit Algorithms: A Case Study in Seabird Monitoring"
author:
  - Ingrid Solheim-Barros
  - Tomás Echeverría Lagos
  - Keiko Nakamura
date: 2023-11-09
keywords: [multi-armed bandits, ecological monitoring, survey design]
bibliography: refs.bib
---

**arXiv:2311.04467v1 [cs.LG] 9 Nov 2023**

*Preprint. Under review.*

# Abstract

Monitoring programmes for colonial seabirds can afford to visit only a few colonies each season, and the choice
of which colonies to visit is usually fixed years in advance. We frame the seasonal choice of survey sites as a
multi-armed bandit problem in which each visit reveals information about a colony's breeding success. Using
fifteen years of counts from 38 colonies on a northern Atlantic coastline, we show in retrospective simulation
that a Thompson-sampling schedule detects colony declines on average 2.3 seasons earlier than the fixed rotation.
Bandit scheduling is therefore a practical way to spend a small survey budget where change is most likely.

# 1 Introduction

Long-term seabird monitoring relies on repeated counts at the same colonies, but boat time, weather windows and
trained observers limit how many sites can be visited. Most programmes use a fixed rotation that visits each
colony every few years, regardless of what earlier counts revealed.

The objective of this work is to test whether an adaptive schedule, which chooses the next season's colonies
from the counts collected so far, detects population declines sooner than a fixed rotation with the same budget.

# 2 Methods

We used annual counts of apparently occupied nests from 38 colonies surveyed between 2007 and 2021 by a regional
monitoring programme. Each season the scheduler could visit 8 colonies. A colony's "reward" was the posterior
probability that its nest count had declined by more than 20% since the last visit, estimated with a
Poisson state-space model.

We compared three schedules in retrospective simulation: the fixed rotation actually used, an upper-confidence-
bound (UCB) schedule and a Thompson-sampling schedule. Each schedule was replayed 500 times on the historical
counts, and we recorded the delay between the onset of a decline and its detection.

# 3 Results

The Thompson-sampling schedule detected the 11 declines present in the record after a mean delay of 1.4 seasons,
against 3.7 seasons for the fixed rotation and 1.9 for UCB. It visited stable colonies less often, but every
colony was still visited at least once every five seasons.

| Schedule | Mean detection delay (seasons) | Declines missed |
|---|---|---|
| Fixed rotation | 3.7 | 2 |
| UCB | 1.9 | 1 |
| Thompson sampling | 1.4 | 0 |

# 4 Conclusions

Adaptive scheduling with bandit algorithms detects seabird colony declines earlier than fixed rotations without
increasing the survey budget. Programmes adopting it should keep a minimum revisit interval so that slow changes
at rarely visited colonies are not missed.

# References

Echeverría Lagos, T., & Holm, A. (2021). State-space models for colony counts. *Marine Ornithology Methods*,
12(3), 201–219.

Nakamura, K. (2020). Thompson sampling under survey constraints. In *Proceedings of the Workshop on Sequential
Decisions in Ecology* (pp. 44–51).

Solheim-Barros, I. (2019). *Seabird colonies of the outer coast: a fifteen-year atlas*. Northern Shore Press.
"""

T08 = {
    "id": "t08", "file": "t08_preprint_en.md", "kind": "preprint", "language": "en", "format": "md",
    "title": T08_TITLE, "authors": ["Ingrid Solheim-Barros", "Tomás Echeverría Lagos", "Keiko Nakamura"],
    "year": 2023, "metadata_right": True,
    "traps": ["yaml_front_matter", "yaml_title_with_colon", "first_heading_not_title", "arxiv_stamp",
              "preprint_line", "hyphenated_name", "accented_names", "subtitle_after_colon"],
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "text": T08_TEXT,
}

# ------------------------------------------------------------------ t09: TCC (pt), Markdown without YAML
T09_TITLE = ("CLASSIFICAÇÃO DE FALHAS EM ROLAMENTOS COM REDES NEURAIS CONVOLUCIONAIS: "
             "uma abordagem com sinais de vibração de baixo custo")

T09_TEXT = f"""UNIVERSIDADE TECNOLÓGICA DO SUDOESTE GOIANO

CAMPUS RIO VERDE

CURSO DE ENGENHARIA DE COMPUTAÇÃO

**JOÃO VÍTOR DO NASCIMENTO PIRES**

# {T09_TITLE}

Rio Verde

2020

---

João Vítor do Nascimento Pires

**Classificação de falhas em rolamentos com redes neurais convolucionais: uma abordagem com sinais de vibração de
baixo custo**

> Trabalho de Conclusão de Curso apresentado ao Curso de Engenharia de Computação da Universidade Tecnológica do
> Sudoeste Goiano, como requisito parcial para obtenção do título de Bacharel em Engenharia de Computação.

Orientador: Prof. Dr. Fábio Nakamoto Rezende

Coorientadora: Profa. Ma. Cecília Andrade Wolff

Rio Verde, 2020

---

*Dedico este trabalho aos meus pais, Sebastião e Lurdes, que nunca deixaram faltar nada em casa, nem livros.*

---

> "Toda máquina avisa antes de parar; falta apenas alguém que saiba escutar."
>
> — Ernesto Valadares Cunha

---

## RESUMO

Este trabalho propõe um classificador de falhas em rolamentos baseado em redes neurais convolucionais treinado com
sinais de vibração coletados por um acelerômetro de baixo custo. Montou-se uma bancada com um motor de indução e
rolamentos com defeitos induzidos na pista externa, na pista interna e nas esferas, da qual foram gravados 2.400
sinais de um segundo. A rede, aplicada aos espectrogramas dos sinais, atingiu acurácia de 96,8% no conjunto de
teste, contra 89,5% de um classificador baseado em atributos estatísticos. Conclui-se que sensores de baixo custo
são suficientes para o diagnóstico automático de falhas em motores de pequeno porte.

**Palavras-chave:** manutenção preditiva; rolamentos; redes neurais convolucionais; análise de vibração.

## SUMÁRIO

1 INTRODUÇÃO .................................................. 9

2 METODOLOGIA ................................................. 11

2.1 Bancada de ensaios .......................................... 11

2.2 Modelo de classificação ..................................... 12

3 RESULTADOS .................................................. 14

4 CONCLUSÃO ................................................... 16

REFERÊNCIAS ................................................... 17

## 1 INTRODUÇÃO

Falhas em rolamentos respondem por grande parte das paradas não programadas de motores elétricos em pequenas
indústrias. O monitoramento da vibração permite detectá-las antes da quebra, mas os sistemas comerciais de
aquisição têm custo elevado para empresas de pequeno porte da região.

O objetivo deste trabalho é desenvolver e avaliar um classificador de falhas em rolamentos que utilize sinais de
um acelerômetro de baixo custo e uma rede neural convolucional, verificando se a precisão obtida é suficiente
para uso em manutenção preditiva.

## 2 METODOLOGIA

### 2.1 Bancada de ensaios

Foi montada uma bancada com um motor de indução trifásico de 1 cv acoplado a um eixo apoiado em dois mancais. Um
acelerômetro MEMS de três eixos, ligado a um microcontrolador, registrou a vibração a 3,2 kHz. Foram ensaiados
rolamentos novos e rolamentos com defeitos induzidos por eletroerosão na pista externa, na pista interna e em uma
esfera, em três rotações diferentes.

### 2.2 Modelo de classificação

Os 2.400 sinais de um segundo foram convertidos em espectrogramas e divididos em treino (70%), validação (15%) e
teste (15%). A rede convolucional, com quatro camadas de convolução, foi comparada a uma floresta aleatória
treinada com atributos estatísticos do sinal no tempo (valor eficaz, curtose e fator de crista).

## 3 RESULTADOS

A rede convolucional atingiu acurácia de 96,8% no conjunto de teste, enquanto a floresta aleatória obteve 89,5%.
A maior parte dos erros da rede ocorreu entre defeitos de esfera e de pista interna na menor rotação, em que a
energia das frequências características é mais baixa.

| Classe | Precisão (%) | Revocação (%) |
|---|---|---|
| Sem defeito | 99,2 | 99,4 |
| Pista externa | 98,1 | 97,6 |
| Pista interna | 95,0 | 94,8 |
| Esfera | 94,9 | 95,3 |

## 4 CONCLUSÃO

O classificador proposto mostrou que um acelerômetro de baixo custo, combinado a uma rede neural convolucional,
permite diagnosticar os principais defeitos de rolamentos com precisão adequada à manutenção preditiva. Como
trabalho futuro, sugere-se testar o sistema em motores em operação na indústria, com ruído de fundo real.

## REFERÊNCIAS

ALMEIDA, R. C.; WOLFF, C. A. Acelerômetros MEMS na análise de vibração de máquinas. **Revista de Engenharia do
Centro-Oeste**, v. 9, n. 2, p. 55-70, 2018.

REZENDE, F. N. **Manutenção preditiva para pequenas indústrias**. Goiânia: Editora Cerrado Técnico, 2017.

TOLEDO, M. P.; IKEDA, S. Diagnóstico de rolamentos com espectrogramas e aprendizado profundo. In: CONGRESSO
REGIONAL DE AUTOMAÇÃO, 6., 2019, Rio Verde. **Anais** [...]. Rio Verde: SRA, 2019. p. 101-108.
"""

T09 = {
    "id": "t09", "file": "t09_tcc_pt.md", "kind": "tcc", "language": "pt", "format": "md",
    "title": T09_TITLE, "authors": ["João Vítor do Nascimento Pires"], "year": 2020, "metadata_right": None,
    "traps": ["no_yaml", "cover_page", "author_caps_on_cover", "institution_lines_before_title",
              "subtitle_after_colon", "title_page_nature_paragraph", "advisors_not_authors", "dedication",
              "epigraph", "toc_dotted", "name_particle", "accented_names"],
    "must_contain": ["Resumo", "1 Introdução", "2 Metodologia", "3 Resultados", "4 Conclusão", "Referências"],
    "text": T09_TEXT,
}

# ------------------------------------------------------------------ t10: workshop paper (en), DOCX, empty core props
T10_TITLE = ("Cheap Annotation Pays Off: Active Learning for Named Entity Recognition in Cape Verdean Creole")

T10 = {
    "id": "t10", "file": "t10_workshop_en.docx", "kind": "conference", "language": "en", "format": "docx",
    "title": T10_TITLE, "authors": ["Beatriz Lopes Semedo", "Arjun Malhotra", "Henrik Dahl-Sørensen"],
    "year": 2023, "metadata_right": None,
    "traps": ["proceedings_header", "running_head", "authors_one_line_comma", "affiliation_block",
              "affiliation_emails", "table_header_like_title", "subtitle_after_colon", "hyphenated_name",
              "accented_names", "docx_core_empty"],
    "core": {"author": "", "title": "", "last_modified_by": "", "revision": 3,
             "created": "2023-08-14T10:00:00", "modified": "2023-09-01T16:20:00"},
    "header": "LRST 2023 · Proceedings of the 9th Workshop on Low-Resource Speech and Text",
    "docx_font": "Times New Roman",
    "must_contain": ["Abstract", "1 Introduction", "2 Method", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [("pn", "Proceedings of the 9th Workshop on Low-Resource Speech and Text (LRST 2023), pages 57–66"),
         ("pn", "Lisbon, Portugal, 12 October 2023. ©2023 The authors, released under CC BY 4.0."),
         ("title", T10_TITLE),
         ("c", "Beatriz Lopes Semedo, Arjun Malhotra, Henrik Dahl-Sørensen", "b"),
         ("block", ["Instituto Superior de Tecnologias da Praia, Cabo Verde",
                    "Nordic Centre for Language Computing, Aarhus, Denmark",
                    "bsemedo@istp.cv, {arjun.malhotra, hdahl}@nclc.dk"], "center"),
         ("h", "Abstract"),
         ("pn", "Named entity recognition (NER) for Cape Verdean Creole has no public training data, and "
                "annotators who speak the language are few. We ask how much annotation an active-learning loop "
                "saves compared with annotating sentences in random order. Starting from 200 labelled sentences, "
                "we annotated news and radio transcripts in rounds of 100 sentences chosen by model uncertainty. "
                "With 1,200 actively selected sentences the tagger reached an F1 of 0.78, a score that random "
                "selection only matched with 2,300 sentences. Active learning thus roughly halves the annotation "
                "effort for a new low-resource language."),
         ("h", "1 Introduction"),
         ("p", "Cape Verdean Creole is spoken by about a million people in the archipelago and the diaspora, yet "
               "almost no annotated text exists for it. The corpora we could use, summarised in Table 1, are "
               "small and were collected for other purposes."),
         ("table", "Table 1: Corpora used in this work.",
          ["Language", "Tokens", "Entities", "Annotators", "Source", "Licence"],
          [["Kabuverdianu (Santiago)", "41,200", "3,118", "2", "Radio transcripts", "CC BY"],
           ["Kabuverdianu (São Vicente)", "18,950", "1,402", "1", "Online news", "CC BY-SA"],
           ["Portuguese (transfer)", "310,000", "21,877", "—", "Public NER corpus", "CC BY"]], None),
         ("p", "The objective of this paper is to measure how much annotation effort active learning saves when "
               "building a first NER tagger for Cape Verdean Creole, and which selection strategy works best "
               "with so few annotators.")],
        [("h", "2 Method"),
         ("p", "A multilingual transformer encoder was first fine-tuned on the Portuguese corpus and then on 200 "
               "randomly chosen Creole sentences. In each round the model tagged the unlabelled pool, and the 100 "
               "sentences with the highest token entropy were sent to two native-speaker annotators."),
         ("p", "We compared entropy sampling with random sampling and with a diversity-based strategy, running "
               "each for twelve rounds with three random seeds. Performance was measured by entity-level F1 on a "
               "fixed test set of 600 sentences annotated by both annotators (agreement F1 = 0.91)."),
         ("h", "3 Results"),
         ("p", "Entropy sampling reached an F1 of 0.78 after 1,200 annotated sentences, while random sampling "
               "needed 2,300 sentences for the same score. The diversity-based strategy was in between and had "
               "the highest variance across seeds. Person and place names were learned fastest; organisation "
               "names remained the main source of errors."),
         ("h", "4 Conclusions"),
         ("p", "For a language with very few annotators, an uncertainty-driven active-learning loop roughly halves "
               "the annotation needed to reach a usable NER tagger. We release the annotation guidelines and the "
               "selection code so that the loop can be reused for other creole languages."),
         ("h", "References"),
         ("refs", ["Dahl-Sørensen, H., & Lund, M. (2021). Uncertainty sampling for sequence labelling in small "
                   "languages. In *Proceedings of the 7th Workshop on Low-Resource Speech and Text* (pp. 12–21).",
                   "Malhotra, A. (2022). Cross-lingual transfer from Portuguese to Atlantic creoles. *Journal of "
                   "Creole Language Technology, 3*(2), 77–95.",
                   "Semedo, B. L., & Tavares, J. (2020). *Kriolu ortográfiku: guia prátiku*. Edisons Ilha, Praia."])],
    ],
}

DOCS = [T08, T09, T10]
