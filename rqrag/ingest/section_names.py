"""What a section is for, by its heading's name: "4. CONSIDERAÇÕES FINAIS" -> "conclusion".

    section_role("3 Metodologia")      # "method"
    section_role("Sumário")            # None: a thesis's table of contents is no section of the text

The names are Portuguese and English, folded (no accents, lower case), numbering dropped ("3.", "IV.", "Capítulo
2"). Used to cut an article into sections (`rqrag.ingest.article`) and to tell a section's name from a title
(`rqrag.ingest.front_matter`).
"""

from __future__ import annotations

import re

from rqrag.ingest.article_layout import heading_key


# Section roles by their names (folded, numbering dropped), Portuguese and English.
SECTION_ROLES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (role, re.compile(rf"^(?:{pattern})$"))
    for role, pattern in (
        ("abstract", r"resumo|abstract|resumo expandido|summary"),  # "Sumário" is a thesis's contents page
        ("keywords", r"palavras[- ]chave|keywords|key words|index terms"),
        ("introduction", r"introducao|introduction|introducao e motivacao|contextualizacao"),
        (
            "objectives",
            r"objetivos?( gerais?| especificos?| da pesquisa| do trabalho| e hipoteses?)?|objectives?|aims?( and scope)?"
            r"|goals?|research questions?|questoes de pesquisa|hipoteses?",
        ),
        (
            "related_work",
            r"trabalhos relacionados|related work|revisao (da|de) literatura|literature review|fundamentacao teorica"
            r"|referencial teorico|background|estado da arte|theoretical (framework|background)|marco teorico"
            r"|preliminaries|conceitos basicos",
        ),
        (
            "method",
            r"metodologia|metodos?|materiais e metodos|material e metodos|methods?|methodology|materials and methods"
            r"|data and methods?|methods and data|experimental (setup|design)|procedimentos metodologicos"
            r"|abordagem proposta|proposed (method|approach)|(o )?metodo proposto|study (area|design)"
            r"|dados e metodos|experimentos?|experiments?|experimental methodology|approach",
        ),
        (
            "results",
            r"resultados( e discussao| e discussoes| obtidos)?|results( and discussion)?|avaliacao|evaluation"
            r"|analise dos resultados|findings|experimental results",
        ),
        ("discussion", r"discussao|discussion|discussao dos resultados|limitacoes|limitations"),
        (
            "conclusion",
            r"conclus(ao|oes)|consideracoes finais|conclusions?|concluding remarks|final remarks"
            r"|conclus(ao|oes) e trabalhos futuros|conclusions? and future work|sintese|summary and conclusions?",
        ),
        ("references", r"referencias( bibliograficas)?|references|bibliografia|bibliography|works cited"),
        ("acknowledgements", r"agradecimentos?|acknowledge?ments?|funding|financiamento"),
        ("appendix", r"apendices?( [a-z])?|anexos?( [a-z])?|appendix( [a-z])?|appendices"),
    )
)
# What a heading's number looks like: "3", "3.", "3.1", "IV.", "A.", "Capítulo 2", "Seção 3".
_NUMBERING = re.compile(r"^(?:(?:capitulo|secao|chapter|section)\s+)?(?:\d+(?:\.\d+)*|[ivx]+|[a-h])[.)]?\s+")


def section_role(heading: str) -> str | None:
    """The role a heading names ("4. CONSIDERAÇÕES FINAIS" -> "conclusion"), or None."""
    key = _NUMBERING.sub("", heading_key(heading)).strip(" .:")
    return next((role for role, pattern in SECTION_ROLES if pattern.match(key)), None)
