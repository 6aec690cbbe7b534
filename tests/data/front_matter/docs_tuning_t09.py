"""Tuning set, document t09: TCC (pt), Markdown without YAML.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

T09_TITLE = (
    "CLASSIFICAÇÃO DE FALHAS EM ROLAMENTOS COM REDES NEURAIS CONVOLUCIONAIS: "
    "uma abordagem com sinais de vibração de baixo custo"
)

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
    "id": "t09",
    "file": "t09_tcc_pt.md",
    "kind": "tcc",
    "language": "pt",
    "format": "md",
    "title": T09_TITLE,
    "authors": ["João Vítor do Nascimento Pires"],
    "year": 2020,
    "metadata_right": None,
    "traps": [
        "no_yaml",
        "cover_page",
        "author_caps_on_cover",
        "institution_lines_before_title",
        "subtitle_after_colon",
        "title_page_nature_paragraph",
        "advisors_not_authors",
        "dedication",
        "epigraph",
        "toc_dotted",
        "name_particle",
        "accented_names",
    ],
    "must_contain": ["Resumo", "1 Introdução", "2 Metodologia", "3 Resultados", "4 Conclusão", "Referências"],
    "text": T09_TEXT,
}

DOCS = [T09]
