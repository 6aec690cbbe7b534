"""FlashRAG's side of scripts/compare_flashrag.py: its own pipeline classes, run on our corpus, questions and model.

Needs the optional extra: `pip install -e .[compare]` then `pip install --no-deps flashrag-dev==0.1.2`
(`make install-compare` does both; docs/compare.md says why the second step cannot be part of the extra).

What is FlashRAG's and what is ours, so nothing of its logic is re-implemented here:
- FlashRAG's: the index builder (`Index_Builder`, bm25s backend), `BM25Retriever`, `HFCausalLMGenerator`,
  `PromptTemplate`, `SequentialPipeline` (`naive_run`: generation without retrieval; `run`: standard RAG),
  `IRCOTPipeline`, and the EM/F1 normalisation compare_flashrag.py scores every row with.
- Ours, the thinnest adapter: its settings. flashrag-dev 0.1.2's wheel lacks the `basic_config.yaml` its `Config`
  reads its defaults from (FileNotFoundError as shipped), so `Settings` passes every setting the classes above
  read, and nothing else; and two counters around its generator and retriever (tokens generated, searches made).
  They hand every call on unchanged but one: a search with no token, which bm25s refuses and which would end the
  whole IRCoT run, finds nothing instead (counted as `empty_queries`).
- "corrected" runs (`bm25_stemmed=True`): its index builder hands bm25s the raw strings, so the index's vocabulary
  is the corpus's single characters, while its retriever looks queries up as stemmed English words. The corrected
  run builds the index from the same stemmed words through bm25s itself and leaves the retriever as shipped.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import NamedTuple


PIPELINES = ("naive", "standard_rag", "ircot")


class Run(NamedTuple):
    predictions: dict[str, str]  # question id -> the answer FlashRAG's pipeline returned (after its own parsing)
    seconds: float
    generated_tokens: int
    searches: int
    empty_queries: int  # IRCoT thoughts with no words, which its retriever cannot search (see _Counted.search)


def write_corpus(passages, path: Path) -> Path:
    """Our passages in FlashRAG's corpus layout: {"id", "contents": '"Title"\\ntext'}, id = line number."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for number, passage in enumerate(passages):
            contents = f'"{passage.title}"\n{passage.text}'
            out.write(json.dumps({"id": str(number), "contents": contents, "docid": passage.docid}) + "\n")
    return path


def build_index(corpus: Path, out: Path, *, bm25_stemmed: bool) -> Path:
    """FlashRAG's own bm25s index builder as shipped, or (corrected) the same index tokenised with its query stemmer."""
    index = out / "bm25"
    if (index / "data.csc.index.npy").is_file():
        return index
    if not bm25_stemmed:
        from flashrag.retriever.index_builder import Index_Builder

        builder = Index_Builder(
            retrieval_method="bm25", model_path=None, corpus_path=str(corpus), save_dir=str(out),
            max_length=512, batch_size=256, use_fp16=False, bm25_backend="bm25s",
            # Without an instruction its constructor raises Warning("Instruction is not set!") for every method.
            instruction="", pooling_method="mean",
        )  # fmt: skip
        builder.build_index()
        return index
    import bm25s
    import datasets
    import Stemmer

    rows = datasets.load_dataset("json", data_files=str(corpus), split="train")
    tokens = bm25s.tokenize(rows["contents"], stemmer=Stemmer.Stemmer("english"))
    retriever = bm25s.BM25(corpus=rows, backend="numba")
    retriever.index(tokens)
    retriever.save(str(index), corpus=rows)
    return index


def write_questions(examples, folder: Path) -> Path:
    """The questions as FlashRAG's dataset file, `folder/test.jsonl`: {"id", "question", "golden_answers"}."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"id": e.uid, "question": e.question, "golden_answers": list(e.golds)}) for e in examples]
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def settings(*, model_path: str, corpus: Path, index: Path, data_dir: Path, task: str, out: Path, top_k: int,
             max_new_tokens: int, max_input_tokens: int) -> dict:  # fmt: skip
    """Every setting FlashRAG 0.1.2's config, retriever, generator, prompt and pipelines read: greedy decoding,
    the same top-k and token limits as our side, BM25 through bm25s, no reranker, refiner or cache."""
    return {
        "data_dir": str(data_dir), "dataset_name": task, "split": ["test"], "test_sample_num": None,
        "random_sample": False, "save_dir": str(out), "save_note": "compare", "seed": 2024, "gpu_id": None,
        "retrieval_method": "bm25", "bm25_backend": "bm25s", "index_path": str(index), "corpus_path": str(corpus),
        "retrieval_topk": top_k, "retrieval_batch_size": 64, "retrieval_use_fp16": False,
        "retrieval_query_max_length": 128, "use_sentence_transformer": False, "faiss_gpu": False,
        "model2path": {}, "model2pooling": {}, "method2index": {}, "use_reranker": False, "rerank_model_name": None,
        "rerank_pooling_method": None, "save_retrieval_cache": False, "use_retrieval_cache": False,
        "retrieval_cache_path": None, "refiner_name": None, "use_fid": False, "framework": "hf",
        "generator_model": Path(model_path).name, "generator_model_path": model_path, "generator_lora_path": None,
        "generator_max_input_len": max_input_tokens, "generator_batch_size": 8, "gpu_memory_utilization": 0.85,
        "generation_params": {"do_sample": False, "max_tokens": max_new_tokens},
        "metrics": ["em", "f1"], "metric_setting": {"retrieval_recall_topk": top_k, "tokenizer_name": None},
        "save_intermediate_data": False, "save_metric_score": False, "instruction": "",
    }  # fmt: skip


def make_config(values: dict):
    """FlashRAG's `Config` with `values`: its missing defaults file read as empty (the wheel does not ship it)."""
    from flashrag.config import Config

    class Settings(Config):
        def _get_internal_config(self):
            return {}

    return Settings(config_dict=values)


def bm25s_tokens(query: str) -> list:
    """The tokens FlashRAG's BM25 retriever makes of `query` (bm25s, English stemmer)."""
    import bm25s
    import Stemmer

    return bm25s.tokenize([query], stemmer=Stemmer.Stemmer("english"), return_ids=False, show_progress=False)[0]


class _Counted:
    """Counts what passes through a FlashRAG generator or retriever; every call is handed on unchanged, except a
    search with no token (see `search`)."""

    def __init__(self, inner, tokenizer=None):
        self._inner, self._tokenizer = inner, tokenizer
        self.generated_tokens = self.searches = self.empty_queries = 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def generate(self, input_list, *args, **kwargs):  # FlashRAG's own name: its RQ-RAG pipeline passes it by keyword
        outputs = self._inner.generate(input_list, *args, **kwargs)
        if kwargs.get("return_raw_output"):  # vLLM-style objects (the RQ-RAG pipeline): their own token ids
            self.generated_tokens += sum(len(o.outputs[0].token_ids) for o in outputs)
            return outputs
        texts = outputs if isinstance(outputs, list) else [outputs]
        self.generated_tokens += sum(len(self._tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)
        return outputs

    def search(self, query, *args, **kwargs):
        self.searches += 1
        try:
            return self._inner.search(query, *args, **kwargs)
        except ValueError:
            # An IRCoT thought with no word left after tokenising (empty, or stop words only) is searched as it is,
            # and bm25s refuses a query with no token: the whole pipeline run stops at that question. Nothing is
            # found for it instead (the one change to its behaviour, made on both index variants and counted).
            if not self._counted_as_empty(query):
                raise
            return ([], []) if kwargs.get("return_score") else []

    def _counted_as_empty(self, query) -> bool:
        """Whether a query bm25s refused had no token left (counted; it finds nothing): else the error stands."""
        if bm25s_tokens(query):
            return False
        self.empty_queries += 1
        return True

    def batch_search(self, queries, *args, **kwargs):
        self.searches += len(queries)
        try:
            return self._inner.batch_search(queries, *args, **kwargs)
        except ValueError:
            # bm25s refuses a whole batch when its FIRST query has no token left (empty, stop words only), and
            # RQ-RAG's tree searches every query it generates: one such query at a node stopped FlashRAG's run.
            # The batch is searched query by query instead; one refused alone finds nothing, as in `search`.
            found = [self._one_of_batch(q, *args, **kwargs) for q in queries]
            if kwargs.get("return_score"):
                return [r for r, _ in found], [s for _, s in found]
            return [r for r, _ in found]

    def _one_of_batch(self, query, *args, **kwargs):
        """(passages, scores) for one query of a refused batch; nothing for one bm25s refuses alone."""
        try:
            results, scores = self._inner.batch_search([query], *args, **{**kwargs, "return_score": True})
        except ValueError:
            if not self._counted_as_empty(query):
                raise
            return [], []
        return results[0], scores[0]


def run_pipeline(
    pipeline: str,
    config,
    generator=None,
    retriever=None,
    *,
    done_ids=frozenset(),
    only_ids=None,
    chunk=None,
    make_runner=None,
):
    """One FlashRAG pipeline over the config's test split (or its questions in `only_ids`), leaving out `done_ids` and
    stopping after `chunk` questions (a resumable run saves between chunks); its generator and retriever are returned
    for reuse.
    `make_runner(config, generator, retriever)` builds a pipeline not in 0.1.2 (RQ-RAG: flashrag_rqrag.py)."""
    from flashrag.dataset.dataset import Dataset
    from flashrag.pipeline import IRCOTPipeline, SequentialPipeline
    from flashrag.utils import get_dataset, get_generator, get_retriever

    full = get_dataset(config)["test"]
    wanted = [item for item in full.data if only_ids is None or item.id in only_ids]
    todo = [item for item in wanted if item.id not in done_ids][:chunk]
    dataset = Dataset(config, data=todo)
    generator = generator or get_generator(config)
    retriever = retriever or get_retriever(config)
    counted_generator, counted_retriever = _Counted(generator, generator.tokenizer), _Counted(retriever)
    started = time.perf_counter()
    if make_runner is not None:
        done = make_runner(config, counted_generator, counted_retriever).run(dataset, do_eval=False)
    elif pipeline == "ircot":
        runner = IRCOTPipeline(config, generator=counted_generator, retriever=counted_retriever)
        done = runner.run(dataset, do_eval=False)
    else:
        runner = SequentialPipeline(config, generator=counted_generator, retriever=counted_retriever)
        done = runner.naive_run(dataset, do_eval=False) if pipeline == "naive" else runner.run(dataset, do_eval=False)
    seconds = time.perf_counter() - started
    predictions = {item.id: str(item.pred) for item in done}
    run = Run(
        predictions, seconds, counted_generator.generated_tokens, counted_retriever.searches,
        counted_retriever.empty_queries,
    )  # fmt: skip
    return run, generator, retriever


def merged(before: dict | None, run: Run) -> dict:
    """A saved run (`Run._asdict()`) with one more chunk's predictions and counts added."""
    if before is None:
        return run._asdict()
    return {
        "predictions": {**before["predictions"], **run.predictions},
        **{
            key: before[key] + getattr(run, key)
            for key in ("seconds", "generated_tokens", "searches", "empty_queries")
        },
    }
