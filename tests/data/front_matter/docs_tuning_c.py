"""Tuning set, documents t05-t07: an English journal article (DOCX), a Portuguese conference paper (PDF) and an
English preprint (PDF).

All people, institutions, journals, venues and results are fictional (see SOURCES.md).
"""

# ------------------------------------------------------------------ t05: journal article (en), DOCX, right core props
T05_TITLE = "Sediment yield under shifting land cover: evidence from a subtropical headwater basin"

T05 = {
    "id": "t05", "file": "t05_journal_en.docx", "kind": "journal", "language": "en", "format": "docx",
    "title": T05_TITLE, "authors": ["Camila Duarte Reis", "Oliver J. Whitcombe", "Sunita Raghunathan"],
    "year": 2022, "metadata_right": True,
    "traps": ["journal_line_above_title", "article_type_label", "running_head", "doi_issn", "authors_and_list",
              "superscript_affiliations", "affiliation_emails", "received_accepted_dates", "subtitle_after_colon",
              "docx_core_right"],
    "core": {"author": "Camila Duarte Reis", "title": T05_TITLE, "last_modified_by": "Oliver Whitcombe",
             "revision": 17, "created": "2021-10-20T14:03:00", "modified": "2022-03-01T08:30:00"},
    "header": "J. Appl. Watershed Sci. 9(4): 233–249 (2022) · https://doi.org/10.5555/jaws.2022.0914",
    "docx_font": "Calibri",
    "must_contain": ["Abstract", "1 Introduction", "2 Methods", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [("pn", "Journal of Applied Watershed Science, Vol. 9, No. 4 (2022), pp. 233–249 · ISSN 2811-4407"),
         ("pn", "**ORIGINAL RESEARCH ARTICLE**"),
         ("title", T05_TITLE),
         ("c", "Camila Duarte Reis^a^, Oliver J. Whitcombe^b^ and Sunita Raghunathan^a,c^", ""),
         ("block", ["^a^ Department of Environmental Engineering, Universidade Federal do Alto Paranapanema, Avaré, "
                    "Brazil", "^b^ School of Geography, University of Eastmoor, Leeds, United Kingdom",
                    "^c^ Institute for Catchment Studies, Pune, India",
                    "Corresponding author: Camila Duarte Reis (camila.reis@ufapn.edu.br)"], "small"),
         ("block", ["Received 3 November 2021; Revised 18 January 2022; Accepted 2 March 2022; Published online "
                    "15 April 2022", "© 2022 The Authors. Published under a CC BY 4.0 licence."], "small"),
         ("h", "Abstract"),
         ("pn", "Land-cover change in subtropical headwaters alters how much sediment reaches downstream "
                "reservoirs, yet few basins have records long enough to separate land-use effects from rainfall "
                "variability. We combined eleven years (2010–2020) of turbidity-derived suspended sediment data "
                "from the 46 km² Ribeirão das Pedras basin with annual land-cover maps classified from satellite "
                "imagery. A multiple regression with rainfall erosivity, the share of bare soil and unpaved road "
                "density explained 78% of the interannual variance in sediment yield. Unpaved road density had "
                "the largest effect per unit area, ahead of cropland expansion. Improving road drainage may "
                "therefore cut sediment delivery at lower cost than restoring riparian forest alone."),
         ("pn", "**Keywords:** sediment yield; land-cover change; unpaved roads; headwater catchments")],
        [("h", "1 Introduction"),
         ("p", "Small reservoirs in south-eastern Brazil lose storage capacity every year as sediment eroded "
               "from their catchments settles behind the dam. Land-cover change is usually blamed, but rainfall "
               "in the region varies so much from year to year that short monitoring records cannot tell the two "
               "causes apart."),
         ("p", "The objective of this study was to quantify how changes in cropland, pasture, forest and unpaved "
               "roads affected the annual sediment yield of a subtropical headwater basin, after accounting for "
               "rainfall erosivity."),
         ("h", "2 Methods"),
         ("p", "The Ribeirão das Pedras basin (46 km²) drains into a water-supply reservoir. From 2010 to 2020 a "
               "turbidity sensor at the outlet recorded values every 15 minutes; 212 depth-integrated water "
               "samples were used to convert turbidity into suspended sediment concentration, and discharge was "
               "measured at a rated section."),
         ("p", "Land cover was mapped for each year from dry-season satellite images with a random forest "
               "classifier (overall accuracy 0.91), and unpaved roads were digitised from aerial photographs. "
               "Annual sediment yield was regressed on rainfall erosivity, the share of bare soil, cropland and "
               "forest, and road density, with variables selected by cross-validation."),
         ("h", "3 Results"),
         ("p", "Annual sediment yield ranged from 38 to 164 t km⁻², with the two highest values in the wettest "
               "years. The selected model (Table 1) explained 78% of the interannual variance. Road density had "
               "the largest standardised coefficient: the 21% increase in unpaved roads between 2012 and 2018 "
               "corresponded to about 19 t km⁻² per year of additional sediment."),
         ("table", "Table 1. Standardised coefficients of the selected regression model (n = 11 years).",
          ["Predictor", "Coefficient", "95% CI"],
          [["Rainfall erosivity", "0.52", "0.31 to 0.73"], ["Unpaved road density", "0.41", "0.18 to 0.64"],
           ["Share of bare soil", "0.27", "0.02 to 0.52"]], None),
         ("h", "4 Conclusions"),
         ("p", "After accounting for rainfall, unpaved roads were the land-cover feature most strongly linked to "
               "sediment yield in this headwater basin. Catchment managers should consider road drainage works, "
               "which are cheaper per hectare than riparian restoration, as a first measure to protect small "
               "reservoirs."),
         ("h", "References"),
         ("refs", ["Almeida, T. R., & Koenig, P. (2019). Turbidity as a surrogate for suspended sediment in small "
                   "Brazilian rivers. *Hydrology of the Tropics, 14*(2), 88–103.",
                   "Reis, C. D. (2018). *Erosão em estradas rurais não pavimentadas* [Doctoral thesis, Universidade "
                   "Federal do Alto Paranapanema].",
                   "Whitcombe, O. J., & Sandoval, M. (2020). Separating climate and land-use signals in sediment "
                   "records. *Earth Surface Letters, 7*, 1–15.",
                   "Raghunathan, S., Iyer, K., & Reis, C. D. (2021). Road networks and sediment connectivity. "
                   "*Journal of Applied Watershed Science, 8*(1), 12–30."])],
    ],
}

# ------------------------------------------------------------------ t06: conference paper (pt), PDF, wrong metadata
S06 = "Anais do XV Simpósio Brasileiro de Sistemas de Informação Municipais (SBSIM 2021)"
T06_TITLE = "Um painel de indicadores de qualidade para portais de dados abertos municipais"

T06 = {
    "id": "t06", "file": "t06_anais_pt.pdf", "kind": "conference", "language": "pt", "format": "pdf",
    "font": "sans",
    "title": T06_TITLE, "authors": ["Gustavo Henrique Lemos", "Beatriz Sant'Anna Coelho",
                                    "Márcio de Oliveira Tavares Filho"], "year": 2021, "metadata_right": False,
    "traps": ["running_head", "proceedings_header", "authors_one_line_comma", "superscript_affiliations",
              "affiliation_block", "affiliation_emails", "english_abstract_first", "table_header_like_title",
              "apostrophe_name", "name_suffix", "name_particle", "pdf_metadata_wrong"],
    "meta": {"title": "Modelo para publicação de artigos - SBC", "author": "LENOVO",
             "creator": "Microsoft® Word 2016", "producer": "Microsoft® Word 2016", "date": "2021-09-02"},
    "must_contain": ["Abstract", "Resumo", "1. Introdução", "2. Metodologia", "3. Resultados", "4. Conclusão",
                     "Referências"],
    "pages": [
        [("head", S06, "212"),
         ("title", T06_TITLE),
         ("c", "Gustavo Henrique Lemos^1^, Beatriz Sant'Anna Coelho^1^, Márcio de Oliveira Tavares Filho^2^", "b"),
         ("block", ["^1^Instituto de Computação – Universidade Federal do Litoral Catarinense (UFLC)",
                    "Caixa Postal 476 – 88040-900 – Florianópolis – SC – Brasil",
                    "^2^Departamento de Sistemas de Informação – Faculdade Tecnológica de Joinville (FTJ)",
                    "Joinville – SC – Brasil",
                    "{gustavo.lemos, beatriz.coelho}@ic.uflc.br, marcio.tavares@ftj.edu.br"], "center"),
         ("pn", "**Abstract.** *Municipal open data portals often publish outdated or hard-to-reuse datasets. This "
                "paper presents a dashboard that computes eight quality indicators for such portals. We applied it "
                "to 24 portals of municipalities in southern Brazil. Only 29% of the datasets had been updated in "
                "the previous year, and the dashboard helped city staff prioritise fixes.*"),
         ("pn", "**Resumo.** Portais municipais de dados abertos frequentemente publicam conjuntos desatualizados ou "
                "difíceis de reutilizar. Este artigo apresenta um painel que calcula oito indicadores de qualidade "
                "para esses portais. O painel foi aplicado a 24 portais de municípios do Sul do Brasil. Apenas 29% "
                "dos conjuntos haviam sido atualizados no último ano, e o painel ajudou as equipes municipais a "
                "priorizar correções."),
         ("h", "1. Introdução"),
         ("p", "Desde a aprovação de leis de acesso à informação, muitos municípios criaram portais de dados "
               "abertos, mas a simples existência do portal não garante que os dados sejam úteis. A Tabela 1 "
               "mostra exemplos de portais analisados e ilustra a variedade de formatos e licenças encontrada."),
         ("table", "Tabela 1. Exemplos de portais municipais analisados",
          ["Município", "Portal", "Conjuntos de dados", "Formato aberto", "Última atualização", "Licença"],
          [["Município A", "dados.munia.sc.gov.br", "112", "Sim", "03/2021", "CC BY"],
           ["Município B", "transparencia.munib.pr.gov.br", "41", "Parcial", "11/2019", "Não informada"],
           ["Município C", "portal.munic.rs.gov.br/dados", "67", "Sim", "08/2020", "ODbL"]], None),
         ],
        [("head", S06, "213"),
         ("p", "O objetivo deste trabalho é propor e avaliar um painel de indicadores que permita às prefeituras "
               "acompanhar a qualidade de seus portais de dados abertos e decidir onde concentrar esforços de "
               "correção."),
         ("h", "2. Metodologia"),
         ("p", "Os indicadores foram definidos a partir de uma revisão de modelos de maturidade de dados abertos e "
               "agrupados em três dimensões: atualidade, reusabilidade e documentação. Cada indicador é calculado "
               "automaticamente a partir dos metadados expostos pela interface de programação dos portais, sem "
               "necessidade de inspeção manual."),
         ("p", "O painel foi aplicado, em junho de 2021, a 24 portais de municípios dos três estados do Sul que "
               "expunham uma interface compatível, somando 1.873 conjuntos de dados. Em seguida, gestores de seis "
               "prefeituras usaram o painel por quatro semanas e responderam a um questionário de utilidade "
               "percebida."),
         ("h", "3. Resultados"),
         ("p", "Apenas 29% dos conjuntos haviam sido atualizados nos doze meses anteriores, e 38% estavam "
               "publicados exclusivamente em formatos não abertos, como planilhas proprietárias ou PDF. A "
               "documentação foi a dimensão mais fraca: 61% dos conjuntos não tinham dicionário de dados."),
         ("p", "Os seis gestores consideraram o painel útil ou muito útil, e quatro prefeituras corrigiram ao "
               "menos dez conjuntos durante o período de uso, priorizando os que o painel apontava como mais "
               "acessados e mais desatualizados."),
         ],
        [("head", S06, "214"),
         ("h", "4. Conclusão"),
         ("p", "O painel proposto torna visíveis problemas de qualidade que os próprios gestores desconheciam e "
               "apoia a priorização de correções com baixo custo. Como trabalhos futuros, pretende-se incluir "
               "indicadores de uso a partir dos registros de acesso dos portais."),
         ("h", "Referências"),
         ("refs", ["Coelho, B. S. e Lemos, G. H. (2020). Metadados em portais municipais: um diagnóstico. In "
                   "*Anais do XIV SBSIM*, p. 88–99. Sociedade de Sistemas Municipais.",
                   "Fagundes, R. M. (2018). *Modelos de maturidade para dados abertos governamentais*. Editora do "
                   "Litoral, Florianópolis.",
                   "Tavares Filho, M. O. (2019). Indicadores de transparência ativa em prefeituras catarinenses. "
                   "*Revista de Gestão Pública Local*, 6(2):45–61.",
                   "Wendhausen, L. e Pires, C. (2021). Reuso de dados abertos por jornalistas locais. *Informação "
                   "& Cidade*, 3(1):10–27."])],
    ],
}

# ------------------------------------------------------------------ t07: preprint (en), PDF, right metadata
T07_TITLE = "Query Rewriting Helps Small Retrievers on Portuguese Legal Questions"

T07 = {
    "id": "t07", "file": "t07_preprint_en.pdf", "kind": "preprint", "language": "en", "format": "pdf",
    "title": T07_TITLE, "authors": ["Lucas Matheus Bragança", "Yuki Tanabe", "Fernanda de Castro Villela"],
    "year": 2024, "metadata_right": True, "pdf_stamp": "arXiv:2405.11873v2  [cs.CL]  21 May 2024",
    "traps": ["arxiv_stamp", "preprint_line", "superscript_affiliations", "affiliation_emails", "name_particle",
              "accented_names", "pdf_metadata_right"],
    "meta": {"title": T07_TITLE, "author": "Lucas Matheus Bragança, Yuki Tanabe, Fernanda de Castro Villela",
             "creator": "LaTeX with hyperref", "producer": "pdfTeX-1.40.25", "date": "2024-05-21"},
    "must_contain": ["Abstract", "1 Introduction", "2 Method", "3 Results", "4 Conclusions", "References"],
    "pages": [
        [("fill",), ("space", 8),
         ("title", T07_TITLE), ("space", 4),
         ("c", "**Lucas Matheus Bragança**^1^      **Yuki Tanabe**^2^      **Fernanda de Castro Villela**^1,3^", ""),
         ("block", ["^1^Department of Computer Science, Universidade Federal do Triângulo Norte, Brazil",
                    "^2^Institute for Language Technology, Hokuriku University of Science, Japan",
                    "^3^Laboratório de Direito Computacional, Brasília, Brazil",
                    "{lucas.braganca, fernanda.villela}@dcc.uftn.br, tanabe@ilt.hus.ac.jp"], "center"),
         ("c", "**Abstract**", "gap"),
         ("pn", "Retrieval-augmented generation for legal questions depends on a retriever that often fails when a "
                "citizen's question uses everyday words instead of statutory terms. We study whether rewriting the "
                "question with a small instruction-tuned language model before retrieval helps compact retrievers "
                "on Brazilian Portuguese legal questions. On a new set of 1,150 questions paired with articles of "
                "consumer-protection and tenancy law, rewriting raised recall@10 of a BM25 retriever from 0.48 to "
                "0.61 and of a 110M-parameter dense retriever from 0.55 to 0.64. Gains were largest for questions "
                "that mentioned no legal term at all, which suggests that rewriting is a cheap way to make small "
                "retrievers competitive with much larger ones."),
         ("h", "1 Introduction"),
         ("p", "Citizens rarely phrase legal questions the way statutes are written. A tenant asks whether the "
               "landlord can keep the deposit, while the relevant article speaks of guarantees and contractual "
               "termination. Lexical retrievers miss such matches, and small dense retrievers trained mostly on "
               "English data do only slightly better."),
         ("push",), ("block", ["Preprint. Under review."], "small")],
        [("p", "This paper asks whether a small model that rewrites the question into legal vocabulary before "
               "retrieval closes part of this gap. Our contributions are a test set of everyday legal questions in "
               "Brazilian Portuguese and a controlled comparison of retrieval with and without rewriting."),
         ("h", "2 Method"),
         ("p", "We collected 1,150 questions from a public legal-aid forum, removed personal data, and asked two "
               "law graduates to link each question to the articles that answer it (Cohen's κ = 0.81). The "
               "retrieval corpus contains 4,912 articles from consumer-protection and tenancy legislation."),
         ("p", "The rewriter is a 0.5B-parameter instruction-tuned model prompted with four examples to restate "
               "the question using legal terms. We compare BM25 and a 110M-parameter dense retriever with the "
               "original question, the rewritten question, and both concatenated, reporting recall@10 and "
               "MRR@10."),
         ("h", "3 Results"),
         ("p", "Rewriting helped both retrievers (Table 1). Concatenating the original and rewritten questions "
               "was best, raising BM25 recall@10 from 0.48 to 0.61. For the 412 questions without any legal term, "
               "the gain was 0.19 for BM25 and 0.14 for the dense retriever; for questions that already used legal "
               "terms, it was below 0.03."),
         ("table", "Table 1: Recall@10 on 1,150 questions.", ["Retriever", "Original", "Rewritten", "Both"],
          [["BM25", "0.48", "0.57", "0.61"], ["Dense (110M)", "0.55", "0.60", "0.64"]], None),
         ("h", "4 Conclusions"),
         ("p", "A small rewriter makes compact retrievers markedly better on everyday legal questions, at the cost "
               "of one short generation per query. The test set will be released with the camera-ready version."),
         ("h", "References"),
         ("refs", ["Castro Villela, F. de, & Moura, A. (2022). Plain-language access to consumer law. *Revista de "
                   "Direito e Tecnologia*, 5(1), 33–52.",
                   "Okada, R., & Tanabe, Y. (2023). Small rewriters for retrieval. In *Proceedings of the Workshop "
                   "on Efficient Retrieval* (pp. 14–22).",
                   "Bragança, L. M. (2023). *Recuperação de informação jurídica em português* [Master's "
                   "dissertation, Universidade Federal do Triângulo Norte]."])],
    ],
}

DOCS = [T05, T06, T07]
