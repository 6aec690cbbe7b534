"""BM25 languages: Portuguese stemming and stopwords, the language saved with the index, English unchanged."""

from __future__ import annotations

import json

import bm25s
import pytest
import Stemmer

from rqrag.retrieval.bm25 import SETTINGS_FILE, BM25Retriever, normalize_language
from rqrag.retrieval.corpus_index import CorpusIndex
from rqrag.retrieval.passages import Passage, indexed_text


# Only "rede-config" holds a form of "configuração"; the query below uses the plural, which no document has.
PT_DOCS = [
    Passage("rede-config", "Rede", "A configuração da rede fica no servidor principal."),
    Passage("impressora", "Impressoras", "As impressoras são geridas pelo CUPS na interface web."),
    Passage("senhas", "Senhas", "Para que o usuário troque a senha, use o GOsa."),
    Passage("backup", "Cópias", "O backup diário de dados é feito com o rdiff-backup."),
]
NEW_PT_DOC = Passage("ldap", "LDAP", "As contas ficam guardadas no diretório LDAP.")
EN_DOCS = [
    Passage("d1", "Alpha", "apple banana apple, the cherries of Paris"),
    Passage("d2", "Beta", "banana cherry running runners"),
    Passage("d3", "Gamma", "cherry cherry cherry grape"),
    Passage("d4", "Delta", "grape melon kiwi apple ran"),
]
EN_QUERIES = ["apple cherry", "running", "the cherries", "grape kiwi", "Paris"]


@pytest.fixture
def pt_bm25() -> BM25Retriever:
    return BM25Retriever.from_passages(PT_DOCS, show_progress=False, language="pt")


def test_portuguese_stemming_matches_plural_to_singular_where_english_does_not(pt_bm25):
    query = "configurações"
    assert [h.docid for h in pt_bm25.search(query, k=4)] == ["rede-config"]
    english = BM25Retriever.from_passages(PT_DOCS, show_progress=False)
    assert english.search(query, k=4) == []  # English Snowball leaves "configuraçõ" != "configuração"


def test_portuguese_stopwords_are_ignored(pt_bm25):
    assert pt_bm25.batch_search(["de que para", "para que de"], k=4) == [[], []]
    assert pt_bm25.search("senha de que para", k=4) == pt_bm25.search("senha", k=4)
    # The English analyzer keeps them as terms: "para que" hits "senhas", "de" hits "backup".
    english = BM25Retriever.from_passages(PT_DOCS, show_progress=False)
    assert [h.docid for h in english.search("de que para", k=4)] == ["senhas", "backup"]


def test_language_is_saved_and_a_loaded_index_analyses_queries_the_same_way(pt_bm25, tmp_path):
    pt_bm25.save(tmp_path / "bm25")
    settings = json.loads((tmp_path / "bm25" / SETTINGS_FILE).read_text())
    assert (settings["language"], settings["stopwords"], settings["stemmer"]) == ("pt", "pt", "portuguese")
    loaded = BM25Retriever.load(tmp_path / "bm25")
    assert loaded.language == "pt" and loaded.name == pt_bm25.name
    for query in ("configurações de rede", "impressora", "de que para", "backups diários"):
        assert loaded.search(query, k=4) == pt_bm25.search(query, k=4)
    assert loaded.search("configurações", k=1)[0].docid == "rede-config"


def test_corpus_index_keeps_the_language_through_build_load_and_add(tmp_path):
    CorpusIndex.build(PT_DOCS, tmp_path / "idx", modes=["bm25"], language="pt-BR", show_progress=False)
    assert json.loads((tmp_path / "idx" / "meta.json").read_text())["language"] == "pt"
    index = CorpusIndex.load(tmp_path / "idx")
    assert index.language == "pt" and index.bm25().language == "pt"
    assert index.add_passages([NEW_PT_DOC], show_progress=False) == 1
    reloaded = CorpusIndex.load(tmp_path / "idx")
    assert reloaded.bm25().language == "pt"
    # "guardada" shares the stem of "guardadas" only under the Portuguese stemmer.
    assert reloaded.retriever("bm25").search("conta guardada", k=1)[0].docid == "ldap"


def test_unknown_language_is_a_clear_error_listing_the_supported_ones():
    with pytest.raises(ValueError, match=r"'klingon'.*pt \(portuguese\).*en \(english\)|'klingon'.*en.*pt"):
        BM25Retriever.from_passages(PT_DOCS, show_progress=False, language="klingon")
    assert [normalize_language(x) for x in ("pt", "pt_BR", "PT-br", "Portuguese", None)] == ["pt"] * 4 + ["en"]


def test_english_default_ranks_exactly_as_plain_bm25s_with_english_analysis():
    """The default must equal what the code did before languages existed: bm25s, "en" stopwords, english stemmer."""
    retriever = BM25Retriever.from_passages(EN_DOCS, show_progress=False)
    stemmer = Stemmer.Stemmer("english")
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(
        bm25s.tokenize([indexed_text(d) for d in EN_DOCS], stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    for query in EN_QUERIES:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False)
        indices, scores = reference.retrieve(tokens, k=len(EN_DOCS), show_progress=False, return_as="tuple")
        expected = {EN_DOCS[i].docid: float(s) for i, s in zip(indices[0], scores[0]) if s > 0}
        hits = retriever.search(query, k=len(EN_DOCS))
        assert {h.docid: h.score for h in hits} == pytest.approx(expected, rel=1e-9)
    assert retriever.language == "en" and retriever.name.startswith("bm25:")


def test_an_index_saved_before_languages_existed_loads_as_english(tmp_path):
    retriever = BM25Retriever.from_passages(EN_DOCS, show_progress=False)
    retriever.save(tmp_path / "bm25")
    # The settings file older versions wrote had no "language" key.
    (tmp_path / "bm25" / SETTINGS_FILE).write_text(
        json.dumps({"stopwords": "en", "stemmer": "english", "num_docs": 4})
    )
    loaded = BM25Retriever.load(tmp_path / "bm25")
    assert loaded.language == "en"
    assert loaded.search("running", k=4) == retriever.search("running", k=4) != []


def test_language_changes_the_cache_namespace_but_not_for_english():
    english = BM25Retriever.from_passages(PT_DOCS, show_progress=False)
    portuguese = BM25Retriever.from_passages(PT_DOCS, show_progress=False, language="pt")
    assert english.name.startswith("bm25:") and portuguese.name.startswith("bm25-pt:")
    assert english.name.split(":")[1] == portuguese.name.split(":")[1]
