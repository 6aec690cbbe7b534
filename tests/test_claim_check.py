"""The claim check of written sentences (rqrag.answer.claim_check): alignment to one or two passage sentences, the
key terms that must stand in that window, verbatim copies, and the judge's floor. The judge here is a function of
the prompt (pure logic); tests/test_writer_model.py runs the real model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rqrag.answer.claim_check import ClaimCheck, align
from rqrag.answer.claim_terms import key_terms, name_runs
from rqrag.retrieval.base import Hit


PASSAGE = Hit(
    "p1",
    "OpenRider",
    "OpenRider is a free bicycle-routing project. Rui Costa founded the project in 2011. Ana Lima joined the "
    "team in 2015 and wrote its mapping engine. The project moved to Porto in 2018.",
    1.0,
)


def never_judged(messages):
    raise AssertionError("the judge must not be asked")


def test_key_terms_are_numbers_and_quoted_terms_and_names_are_runs():
    sentence = 'Ana Lima wrote the "mapping engine" of OpenRider in the 13th year of Guns N\' Roses.'
    terms = key_terms(sentence)
    assert "13" in terms and "mapping engine" in terms and "wrote" not in terms
    assert not any("roses" in t for t in terms)  # an apostrophe quotes nothing
    assert [m.group(0) for m in name_runs(sentence)] == ["Ana Lima", "OpenRider", "Guns N' Roses"]
    assert name_runs("Hoje se recomenda amd64.") == []  # a capitalised first word is not a name by itself


def test_merged_sentences_fail_alignment_though_every_word_is_in_the_passage():
    # subject of one sentence, verb and year of another: all words present, false claim
    check = ClaimCheck(judge=never_judged, mode="align_judge")
    verdict = check.check("Ana Lima founded the project in 2011.", [PASSAGE], "Who founded OpenRider?", "en")
    assert not verdict.ok and verdict.reason == "unsupported_term"


def test_words_mode_lets_the_merged_claim_through():
    # the baseline this check replaces: word overlap over the whole passage passes the false claim
    verdict = ClaimCheck(mode="words").check("Ana Lima founded the project in 2011.", [PASSAGE], "", "en")
    assert verdict.ok


def test_a_rewritten_claim_is_judged_on_its_aligned_window_only():
    seen = {}

    def judge(messages):
        seen["prompt"] = messages[-1]["content"]
        return 0.9

    verdict = ClaimCheck(judge, "align_judge").check(
        "In 2015, Ana Lima joined the OpenRider team.", [PASSAGE], "", "en"
    )
    assert verdict.ok and verdict.p == 0.9
    assert "Ana Lima joined the team in 2015" in seen["prompt"]
    assert "Rui Costa" not in seen["prompt"]  # the judge reads the window, not the page
    assert verdict.window.text.startswith("Ana Lima joined")


def test_the_judges_floor_drops_a_claim():
    verdict = ClaimCheck(lambda m: 0.3, "align_judge", min_p=0.5).check(
        "In 2015, Ana Lima joined the OpenRider team.", [PASSAGE], "", "en"
    )
    assert not verdict.ok and verdict.reason == "judged_unsupported" and verdict.p == 0.3


def test_a_verbatim_copy_passes_without_the_judge():
    verdict = ClaimCheck(never_judged, "align_judge").check(
        "rui costa founded the project in 2011", [PASSAGE], "", "en"
    )
    assert verdict.ok and verdict.window.text == "Rui Costa founded the project in 2011."


def test_a_name_from_the_question_may_be_repeated():
    check = ClaimCheck(lambda m: 0.8, "align_judge")
    verdict = check.check("The OpenRider project moved to Porto in 2018.", [PASSAGE], "Where is OpenRider?", "en")
    assert verdict.ok


def test_no_citation_is_never_shown():
    assert ClaimCheck(mode="align").check("Anything at all.", [], "", "en").reason == "no_citation"


def test_two_adjacent_sentences_make_one_window():
    hit = Hit("p2", "Kew", "Kew Gardens is in London. It opened to the public in 1840. Tea is served daily.", 1.0)
    window = align("Kew Gardens opened to the public in 1840.", [hit], "en")
    assert window.text == "Kew Gardens is in London. It opened to the public in 1840."


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError):
        ClaimCheck(mode="vibes")
    with pytest.raises(ValueError):
        ClaimCheck(judge=None, mode="judge")


def test_labelled_pairs_are_well_formed():
    path = Path(__file__).parent / "data" / "claim_pairs" / "pairs.jsonl"
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert {p["language"] for p in pairs} == {"en", "pt"}
    for language in ("en", "pt"):
        for split in ("tuning", "heldout"):
            labels = {p["label"] for p in pairs if p["language"] == language and p["split"] == split}
            assert labels == {"supported", "unsupported"}


def test_alignment_stops_merged_pairs_that_word_overlap_lets_through():
    """On the hand-labelled merged-sentence pairs, word overlap shows nearly all; alignment stops several by itself
    (the rest, a pronoun's sentence or a name held by the page title, are the judge's: scripts/eval_claim_check.py)."""
    path = Path(__file__).parent / "data" / "claim_pairs" / "pairs.jsonl"
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    merged = [p for p in pairs if p["kind"] == "merged_sentences"]

    def shown(mode):
        check = ClaimCheck(mode=mode)
        return [
            p
            for p in merged
            if check.check(p["sentence"], [Hit(p["id"], p["title"], p["passage"], 1)], "", p["language"]).ok
        ]

    assert len(merged) >= 8
    assert len(shown("words")) >= len(merged) - 1
    assert len(shown("align")) <= len(merged) - 3


def test_ordered_refuses_a_sentence_whose_roles_are_swapped():
    hit = Hit("p3", "Final", "Portugal defeated France in the final of Euro 2016.", 1.0)
    check = ClaimCheck(mode="ordered")
    assert check.check("Portugal defeated France in the final.", [hit], "", "en").ok
    swapped = check.check("France defeated Portugal in the final of Euro 2016.", [hit], "", "en")
    assert not swapped.ok and swapped.reason == "out_of_order"


def test_ordered_refuses_a_negation_the_passage_does_not_have_and_a_spelled_out_wrong_number():
    hit = Hit("p4", "Filtro", "É possível utilizar o filtro padrão para conectar até três condições.", 1.0)
    check = ClaimCheck(mode="ordered")
    assert check.check("O filtro padrão conecta até três condições.", [hit], "", "pt").ok
    assert check.check("O filtro padrão não conecta até três condições.", [hit], "", "pt").reason == "negation_differs"
    assert check.check("O filtro padrão conecta até oito condições.", [hit], "", "pt").reason == "unsupported_term"


def test_cloze_refuses_a_blank_the_passage_fills_otherwise():
    asked = []

    def ask(messages, max_tokens):
        asked.append(messages[-1]["content"])
        return "Rui Costa" if "___ founded" in messages[-1]["content"] else "2011"

    hit = Hit("p5", "OpenRider", "Rui Costa, with Ana Lima's help, founded the project in 2011.", 1.0)
    check = ClaimCheck(mode="ordered_cloze", ask=ask)
    verdict = check.check("Ana Lima founded the project in 2011.", [hit], "", "en")
    assert not verdict.ok and verdict.reason == "filled_otherwise" and verdict.term == "Ana Lima -> Rui Costa"
    assert len(asked) == 1  # one blank read otherwise is enough


def test_cloze_passes_when_every_blank_comes_back():
    def ask(messages, max_tokens):
        return "Rui Costa" if "___ founded" in messages[-1]["content"] else "2011."

    hit = Hit("p5", "OpenRider", "Rui Costa founded the project in 2011.", 1.0)
    verdict = ClaimCheck(mode="ordered_cloze", ask=ask).check("Rui Costa founded it in 2011.", [hit], "", "en")
    assert verdict.ok


def test_the_questions_words_hung_on_an_unrelated_sentence_are_not_aligned():
    hit = Hit(
        "b",
        "Bibliografia",
        "Ainda há o ótimo livro The LATEX Graphics Companion, de Goossens, Rahtz, e Mittelbach.",
        1,
    )
    question = "Sob qual licença o tutorial de XY-pic pode ser copiado e modificado?"
    claim = "O tutorial pode ser copiado e modificado sob a licença do livro The LATEX Graphics Companion."
    assert ClaimCheck(mode="ordered").check(claim, [hit], question, "pt").reason == "unaligned"
    restated = Hit("x", "Ambiente", "O ambiente de trabalho padrão do Debian Edu é o Xfce.", 1)
    one_word = "O ambiente de trabalho gráfico padrão do Debian Edu é o Xfce."
    assert ClaimCheck(mode="ordered").check(one_word, [restated], "Qual ambiente gráfico é o padrão?", "pt").ok


def test_a_qualifier_left_out_makes_another_claim_but_a_list_item_may_go():
    strasbourg = Hit(
        "s",
        "Strasbourg",
        'Strasbourg (German: "Straßburg") is the capital and largest city of the Grand Est region of France and is the '
        "official seat of the European Parliament.",
        1,
    )
    check = ClaimCheck(mode="ordered")
    dropped = check.check("Strasbourg is the capital and largest city of France.", [strasbourg], "", "en")
    assert not dropped.ok and dropped.reason == "qualifier_dropped"
    temple = Hit(
        "t",
        "Shirley Temple",
        "Shirley Temple Black was an American actress, singer, dancer, businesswoman, and diplomat.",
        1,
    )
    assert check.check("Shirley Temple Black was an American actress and diplomat.", [temple], "", "en").ok


def test_a_word_of_the_question_is_not_excused_when_it_is_the_claim():
    hit = Hit("l", "Lempster", "Lempster is a town in Sullivan County, New Hampshire, United States.", 1)
    question = "What is the county seat of the county where East Lempster, New Hampshire is located?"
    claim = "Sullivan County is the county seat of Sullivan County, New Hampshire."
    assert not ClaimCheck(mode="ordered").check(claim, [hit], question, "en").ok
