"""Tuning set, document t06: conference paper (pt), PDF, wrong metadata.

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

S06 = "Anais do XV Simpósio Brasileiro de Sistemas de Informação Municipais (SBSIM 2021)"
T06_TITLE = "Um painel de indicadores de qualidade para portais de dados abertos municipais"

T06 = {
    "id": "t06",
    "file": "t06_anais_pt.pdf",
    "kind": "conference",
    "language": "pt",
    "format": "pdf",
    "font": "sans",
    "title": T06_TITLE,
    "authors": ["Gustavo Henrique Lemos", "Beatriz Sant'Anna Coelho", "Márcio de Oliveira Tavares Filho"],
    "year": 2021,
    "metadata_right": False,
    "traps": [
        "running_head",
        "proceedings_header",
        "authors_one_line_comma",
        "superscript_affiliations",
        "affiliation_block",
        "affiliation_emails",
        "english_abstract_first",
        "table_header_like_title",
        "apostrophe_name",
        "name_suffix",
        "name_particle",
        "pdf_metadata_wrong",
    ],
    "meta": {
        "title": "Modelo para publicação de artigos - SBC",
        "author": "LENOVO",
        "creator": "Microsoft® Word 2016",
        "producer": "Microsoft® Word 2016",
        "date": "2021-09-02",
    },
    "must_contain": [
        "Abstract",
        "Resumo",
        "1. Introdução",
        "2. Metodologia",
        "3. Resultados",
        "4. Conclusão",
        "Referências",
    ],
    "pages": [
        [
            ("head", S06, "212"),
            ("title", T06_TITLE),
            ("c", "Gustavo Henrique Lemos^1^, Beatriz Sant'Anna Coelho^1^, Márcio de Oliveira Tavares Filho^2^", "b"),
            (
                "block",
                [
                    "^1^Instituto de Computação – Universidade Federal do Litoral Catarinense (UFLC)",
                    "Caixa Postal 476 – 88040-900 – Florianópolis – SC – Brasil",
                    "^2^Departamento de Sistemas de Informação – Faculdade Tecnológica de Joinville (FTJ)",
                    "Joinville – SC – Brasil",
                    "{gustavo.lemos, beatriz.coelho}@ic.uflc.br, marcio.tavares@ftj.edu.br",
                ],
                "center",
            ),
            (
                "pn",
                "**Abstract.** *Municipal open data portals often publish outdated or hard-to-reuse datasets. This "
                "paper presents a dashboard that computes eight quality indicators for such portals. We applied it "
                "to 24 portals of municipalities in southern Brazil. Only 29% of the datasets had been updated in "
                "the previous year, and the dashboard helped city staff prioritise fixes.*",
            ),
            (
                "pn",
                "**Resumo.** Portais municipais de dados abertos frequentemente publicam conjuntos desatualizados ou "
                "difíceis de reutilizar. Este artigo apresenta um painel que calcula oito indicadores de qualidade "
                "para esses portais. O painel foi aplicado a 24 portais de municípios do Sul do Brasil. Apenas 29% "
                "dos conjuntos haviam sido atualizados no último ano, e o painel ajudou as equipes municipais a "
                "priorizar correções.",
            ),
            ("h", "1. Introdução"),
            (
                "p",
                "Desde a aprovação de leis de acesso à informação, muitos municípios criaram portais de dados "
                "abertos, mas a simples existência do portal não garante que os dados sejam úteis. A Tabela 1 "
                "mostra exemplos de portais analisados e ilustra a variedade de formatos e licenças encontrada.",
            ),
            (
                "table",
                "Tabela 1. Exemplos de portais municipais analisados",
                ["Município", "Portal", "Conjuntos de dados", "Formato aberto", "Última atualização", "Licença"],
                [
                    ["Município A", "dados.munia.sc.gov.br", "112", "Sim", "03/2021", "CC BY"],
                    ["Município B", "transparencia.munib.pr.gov.br", "41", "Parcial", "11/2019", "Não informada"],
                    ["Município C", "portal.munic.rs.gov.br/dados", "67", "Sim", "08/2020", "ODbL"],
                ],
                None,
            ),
        ],
        [
            ("head", S06, "213"),
            (
                "p",
                "O objetivo deste trabalho é propor e avaliar um painel de indicadores que permita às prefeituras "
                "acompanhar a qualidade de seus portais de dados abertos e decidir onde concentrar esforços de "
                "correção.",
            ),
            ("h", "2. Metodologia"),
            (
                "p",
                "Os indicadores foram definidos a partir de uma revisão de modelos de maturidade de dados abertos e "
                "agrupados em três dimensões: atualidade, reusabilidade e documentação. Cada indicador é calculado "
                "automaticamente a partir dos metadados expostos pela interface de programação dos portais, sem "
                "necessidade de inspeção manual.",
            ),
            (
                "p",
                "O painel foi aplicado, em junho de 2021, a 24 portais de municípios dos três estados do Sul que "
                "expunham uma interface compatível, somando 1.873 conjuntos de dados. Em seguida, gestores de seis "
                "prefeituras usaram o painel por quatro semanas e responderam a um questionário de utilidade "
                "percebida.",
            ),
            ("h", "3. Resultados"),
            (
                "p",
                "Apenas 29% dos conjuntos haviam sido atualizados nos doze meses anteriores, e 38% estavam "
                "publicados exclusivamente em formatos não abertos, como planilhas proprietárias ou PDF. A "
                "documentação foi a dimensão mais fraca: 61% dos conjuntos não tinham dicionário de dados.",
            ),
            (
                "p",
                "Os seis gestores consideraram o painel útil ou muito útil, e quatro prefeituras corrigiram ao "
                "menos dez conjuntos durante o período de uso, priorizando os que o painel apontava como mais "
                "acessados e mais desatualizados.",
            ),
        ],
        [
            ("head", S06, "214"),
            ("h", "4. Conclusão"),
            (
                "p",
                "O painel proposto torna visíveis problemas de qualidade que os próprios gestores desconheciam e "
                "apoia a priorização de correções com baixo custo. Como trabalhos futuros, pretende-se incluir "
                "indicadores de uso a partir dos registros de acesso dos portais.",
            ),
            ("h", "Referências"),
            (
                "refs",
                [
                    "Coelho, B. S. e Lemos, G. H. (2020). Metadados em portais municipais: um diagnóstico. In "
                    "*Anais do XIV SBSIM*, p. 88–99. Sociedade de Sistemas Municipais.",
                    "Fagundes, R. M. (2018). *Modelos de maturidade para dados abertos governamentais*. Editora do "
                    "Litoral, Florianópolis.",
                    "Tavares Filho, M. O. (2019). Indicadores de transparência ativa em prefeituras catarinenses. "
                    "*Revista de Gestão Pública Local*, 6(2):45–61.",
                    "Wendhausen, L. e Pires, C. (2021). Reuso de dados abertos por jornalistas locais. *Informação "
                    "& Cidade*, 3(1):10–27.",
                ],
            ),
        ],
    ],
}

DOCS = [T06]
