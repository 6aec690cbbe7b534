"""The text of the fictional article build_docx.py lays out (written for the rq-rag tests, CC BY 4.0)."""

TITLE = (
    "Desempenho de sensores capacitivos de baixo custo no monitoramento da umidade "
    "do solo em pequenas propriedades do semiárido pernambucano"
)
AUTHORS = ["Francisca Raimunda de Sousa", "José Wellington Bezerra", "Ana Cláudia Menezes Lins"]

RESUMO = (
    "O manejo da irrigação em pequenas propriedades do semiárido brasileiro raramente se baseia "
    "em medições da umidade do solo, em grande parte devido ao custo dos sensores comerciais. "
    "O objetivo deste trabalho foi avaliar a exatidão e a durabilidade de sensores capacitivos de "
    "baixo custo, calibrados localmente, no monitoramento da umidade de dois solos representativos "
    "do Sertão do Pajeú, em Pernambuco. Foram instalados 36 sensores em três propriedades familiares "
    "cultivadas com feijão-caupi e palma forrageira, e as leituras foram comparadas com o método "
    "gravimétrico ao longo de 14 meses. A calibração específica para cada solo reduziu a raiz do erro "
    "quadrático médio de 0,058 para 0,021 cm³ cm⁻³ no Neossolo Regolítico e de 0,071 para "
    "0,026 cm³ cm⁻³ no Luvissolo Crômico. Ao final do período, 31 dos 36 sensores permaneciam em "
    "funcionamento. Conclui-se que sensores capacitivos de baixo custo, desde que calibrados para o "
    "solo local e protegidos contra a umidade nos conectores, são adequados para apoiar o manejo da "
    "irrigação em pequenas propriedades."
)
PALAVRAS_CHAVE = "agricultura familiar; calibração; irrigação; sensores capacitivos; umidade do solo."

# (kind, text): kind is "h1", "h2", "p", "table" or "caption".
BODY = [
    ("h1", "1. INTRODUÇÃO"),
    (
        "p",
        "O semiárido brasileiro ocupa cerca de 12% do território nacional e concentra grande número de "
        "estabelecimentos de agricultura familiar. A irregularidade das chuvas, associada a taxas elevadas "
        "de evapotranspiração, faz com que a água disponível para irrigação seja escassa e cara, seja ela "
        "proveniente de cisternas, barreiros ou poços. Secas prolongadas, como a observada entre 2012 e "
        "2017, agravaram esse quadro e reduziram a produção agrícola em grande parte da região "
        "(MARENGO; TORRES; ALVES, 2017).",
    ),
    (
        "p",
        "Na maioria das pequenas propriedades, a decisão de irrigar baseia-se na observação visual das "
        "plantas ou em turnos fixos, o que leva tanto ao desperdício de água quanto a períodos de déficit "
        "hídrico. O monitoramento da umidade do solo permitiria ajustar a lâmina e o momento da irrigação, "
        "mas os sensores comerciais de reflectometria no domínio do tempo (TDR), baseados no princípio "
        "descrito por Topp, Davis e Annan (1980), têm custo incompatível com a renda dessas famílias.",
    ),
    (
        "p",
        "Sensores capacitivos de baixo custo, vendidos para uso com microcontroladores, tornaram-se uma "
        "alternativa atraente. Estudos anteriores indicam, porém, que sua resposta depende da textura e da "
        "salinidade do solo e que as curvas de calibração fornecidas pelos fabricantes produzem erros "
        "elevados (BOGENA et al., 2007; NASCIMENTO; FARIAS, 2021). Além disso, há pouca informação sobre a "
        "durabilidade desses sensores em campo, sob temperaturas elevadas e ciclos intensos de "
        "umedecimento e secagem.",
    ),
    (
        "p",
        "Diante disso, o objetivo deste trabalho foi avaliar a exatidão e a durabilidade de sensores "
        "capacitivos de baixo custo, calibrados localmente, no monitoramento da umidade do solo em "
        "pequenas propriedades do semiárido pernambucano. Buscou-se, ainda, verificar se as leituras "
        "desses sensores são suficientes para orientar decisões de irrigação em cultivos típicos da região.",
    ),
    ("h1", "2. MATERIAIS E MÉTODOS"),
    ("h2", "2.1 Área de estudo"),
    (
        "p",
        "O estudo foi conduzido entre março de 2021 e abril de 2022 em três propriedades familiares "
        "localizadas no Sertão do Pajeú, Pernambuco. O clima da região é do tipo BSh, segundo a "
        "classificação de Köppen, com precipitação média anual de 640 mm, concentrada entre fevereiro e "
        "maio, e temperatura média de 25,8 °C. Duas propriedades apresentam Neossolo Regolítico de textura "
        "franco-arenosa e a terceira, Luvissolo Crômico de textura franco-argilosa. Em cada propriedade, "
        "foi delimitada uma área de 0,5 ha cultivada com feijão-caupi (Vigna unguiculata) no período "
        "chuvoso e com palma forrageira (Opuntia stricta) irrigada por gotejamento.",
    ),
    ("h2", "2.2 Sensores e sistema de aquisição"),
    (
        "p",
        "Foram utilizados 36 sensores capacitivos de umidade do solo, com custo unitário de "
        "aproximadamente R$ 18,00. Em cada propriedade, 12 sensores foram instalados em quatro pontos, "
        "nas profundidades de 10, 20 e 40 cm. Os sensores foram conectados a registradores baseados no "
        "microcontrolador ESP32, alimentados por painel solar de 5 W, que armazenavam leituras a cada "
        "30 minutos. Antes da instalação, os circuitos foram revestidos com resina epóxi e os conectores "
        "foram protegidos com tubo termorretrátil. O custo total de cada estação, com quatro pontos de "
        "medição, foi de R$ 412,00.",
    ),
    ("h2", "2.3 Calibração e análise dos dados"),
    (
        "p",
        "A calibração foi realizada em laboratório e conferida em campo. Em laboratório, amostras de cada "
        "solo foram acondicionadas em recipientes de 2 L e umedecidas em sete níveis de umidade, de 0,05 a "
        "0,35 cm³ cm⁻³, com três repetições. Em campo, foram coletadas 412 amostras de solo junto aos "
        "sensores, em intervalos quinzenais, para determinação da umidade pelo método gravimétrico "
        "(TEIXEIRA et al., 2017), convertida em base volumétrica com a densidade do solo de cada ponto.",
    ),
    (
        "p",
        "As leituras brutas foram relacionadas à umidade volumétrica por regressão polinomial de segunda "
        "ordem, ajustada separadamente para cada solo. O desempenho foi avaliado pela raiz do erro "
        "quadrático médio (RMSE), pelo coeficiente de determinação (R²) e pelo viés médio, comparando-se a "
        "curva do fabricante com as curvas ajustadas. A durabilidade foi registrada como o número de "
        "sensores em funcionamento ao final de cada mês.",
    ),
    (
        "p",
        "Para avaliar a utilidade prática das leituras, a irrigação da palma forrageira foi definida com "
        "base nos sensores em metade dos pontos e por turno fixo semanal na outra metade. Nos pontos "
        "monitorados, irrigou-se sempre que a umidade a 20 cm atingia 50% da água disponível, seguindo o "
        "procedimento de balanço hídrico descrito por Allen et al. (1998). O volume aplicado foi medido "
        "com hidrômetros, e a produção de matéria verde foi determinada ao final do ciclo.",
    ),
    ("h1", "3. RESULTADOS E DISCUSSÃO"),
    (
        "p",
        "A curva de calibração fornecida pelo fabricante superestimou a umidade em ambos os solos, "
        "especialmente acima de 0,20 cm³ cm⁻³. Com essa curva, o RMSE foi de 0,058 cm³ cm⁻³ no Neossolo "
        "Regolítico e de 0,071 cm³ cm⁻³ no Luvissolo Crômico (Tabela 1). A calibração específica para cada "
        "solo reduziu esses valores para 0,021 e 0,026 cm³ cm⁻³, respectivamente, com R² igual ou superior "
        "a 0,92 nos dois casos. Esses erros são próximos aos relatados para sensores comerciais de custo "
        "muito mais elevado e atendem à exatidão de 0,03 cm³ cm⁻³ usualmente recomendada para o manejo da "
        "irrigação.",
    ),
    (
        "caption",
        "Tabela 1. Desempenho dos sensores capacitivos com a curva do fabricante e com a calibração "
        "local, por tipo de solo (n = número de pares de leitura e amostra gravimétrica)",
    ),
    (
        "table",
        [
            ["Solo", "n", "Curva", "RMSE (cm³ cm⁻³)", "R²", "Viés (cm³ cm⁻³)"],
            ["Neossolo Regolítico", "274", "Fabricante", "0,058", "0,81", "+0,041"],
            ["Neossolo Regolítico", "274", "Local", "0,021", "0,94", "+0,003"],
            ["Luvissolo Crômico", "138", "Fabricante", "0,071", "0,77", "+0,052"],
            ["Luvissolo Crômico", "138", "Local", "0,026", "0,92", "−0,004"],
        ],
    ),
    (
        "p",
        "O maior erro no Luvissolo Crômico pode ser atribuído ao teor mais elevado de argila e à maior "
        "condutividade elétrica do extrato de saturação, que alcançou 1,9 dS m⁻¹ em um dos pontos. "
        "Resultados semelhantes foram descritos por Bogena et al. (2007), que observaram maior "
        "sensibilidade de sensores capacitivos à salinidade e à textura do solo.",
    ),
    (
        "p",
        "Quanto à durabilidade, 31 dos 36 sensores (86%) permaneciam em funcionamento ao final dos "
        "14 meses. Das cinco falhas, quatro ocorreram por corrosão nos conectores e uma por dano mecânico "
        "causado por roedores. Nenhuma falha foi observada nos sensores cujo circuito recebeu duas camadas "
        "de resina, o que indica que a proteção dos componentes eletrônicos é decisiva para o uso "
        "prolongado em campo. A deriva das leituras foi pequena: a diferença média entre a primeira e a "
        "última verificação em campo foi de 0,006 cm³ cm⁻³.",
    ),
    (
        "p",
        "No manejo da palma forrageira, os pontos irrigados com base nos sensores receberam 27% menos água "
        "do que os pontos irrigados por turno fixo, sem diferença significativa na produção de matéria "
        "verde (teste t, p = 0,41). A economia foi maior entre março e junho, quando chuvas esporádicas "
        "mantinham a umidade acima do limite de irrigação e o turno fixo resultava em aplicações "
        "desnecessárias. Em entrevistas realizadas ao final do estudo, os agricultores consideraram fácil "
        "interpretar as leituras apresentadas em um painel simples, com três cores indicando solo úmido, "
        "atenção e necessidade de irrigação.",
    ),
    ("h1", "4. CONSIDERAÇÕES FINAIS"),
    (
        "p",
        "Os sensores capacitivos de baixo custo avaliados apresentaram exatidão adequada para o manejo da "
        "irrigação em pequenas propriedades do semiárido pernambucano, desde que calibrados para o solo "
        "local. A curva do fabricante não deve ser utilizada nesses solos, pois produziu erros duas a três "
        "vezes maiores que os obtidos com a calibração local. A proteção dos circuitos com resina e dos "
        "conectores com tubo termorretrátil permitiu que a maioria dos sensores funcionasse por mais de um "
        "ano em condições de campo.",
    ),
    (
        "p",
        "O uso das leituras para decidir o momento da irrigação reduziu o consumo de água sem prejuízo à "
        "produção da palma forrageira. Recomenda-se que estudos futuros avaliem o desempenho desses "
        "sensores em solos salinos e a viabilidade de redes comunitárias de monitoramento compartilhadas "
        "entre propriedades vizinhas.",
    ),
    ("h1", "REFERÊNCIAS"),
    (
        "ref",
        "ALLEN, R. G.; PEREIRA, L. S.; RAES, D.; SMITH, M. Crop evapotranspiration: guidelines for "
        "computing crop water requirements. Roma: FAO, 1998. (FAO Irrigation and Drainage Paper, 56).",
    ),
    (
        "ref",
        "BOGENA, H. R.; HUISMAN, J. A.; OBERDÖRSTER, C.; VEREECKEN, H. Evaluation of a low-cost soil "
        "water content sensor for wireless network applications. Journal of Hydrology, v. 344, n. 1-2, "
        "p. 32-42, 2007.",
    ),
    (
        "ref",
        "MARENGO, J. A.; TORRES, R. R.; ALVES, L. M. Drought in Northeast Brazil: past, present, and "
        "future. Theoretical and Applied Climatology, v. 129, p. 1189-1200, 2017.",
    ),
    (
        "ref",
        "NASCIMENTO, R. P.; FARIAS, M. L. Calibração de sensores capacitivos de umidade em solos arenosos "
        "do Agreste. Revista Nordestina de Engenharia Agrícola, v. 9, n. 1, p. 22-31, 2021.",
    ),
    (
        "ref",
        "TEIXEIRA, P. C.; DONAGEMMA, G. K.; FONTANA, A.; TEIXEIRA, W. G. (ed.). Manual de métodos de "
        "análise de solo. 3. ed. Brasília, DF: Embrapa, 2017.",
    ),
    (
        "ref",
        "TOPP, G. C.; DAVIS, J. L.; ANNAN, A. P. Electromagnetic determination of soil water content: "
        "measurements in coaxial transmission lines. Water Resources Research, v. 16, n. 3, p. 574-582, "
        "1980.",
    ),
]
