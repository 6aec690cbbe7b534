"""Raw task formats -> `SourceExample`: one loader per source, each mapped to a category (paper §2.1, App. A).

| category      | sources                                        | refinement the annotator writes     |
|---------------|------------------------------------------------|-------------------------------------|
| multi_turn    | alpaca, self_instruct, oasst, mt_bench         | none, or a rewrite in context       |
| decompose     | hotpotqa, 2wikimultihopqa, musique             | sub-questions, one search each      |
| disambiguate  | asqa                                           | clarified readings, one search each |
| single_hop    | arc_challenge, openbookqa (popqa: eval only)   | a rewrite                           |

Each loader accepts the benchmark files (`files.py`: shipped slices or fetched full files) and the same
dataset's hub layout, and normalises what later stages need: the conversation (ending with the user's turn), the
dataset's own answer and aliases, refinements the dataset carries or implies (MuSiQue's decomposition, 2Wiki's evidence triples and
ASQA's qa_pairs — gold; one query per HotpotQA supporting paragraph — silver, by rule), and for
multi-hop sources the candidate paragraphs in IRCoT layout (so `CandidateRetriever` reads any of them).
A record a loader cannot use (no question, no answer where one is needed) raises `BadRecord`, which the
caller counts and skips.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rqrag.benchmarks.refinements import (
    hotpot_silver_queries,
    musique_gold_queries,
    wiki2_gold_queries,
)
from rqrag.benchmarks.refinements import (
    squash_spaces as _text,
)
from rqrag.trajectory import Action


CATEGORY_ACTION = {
    "multi_turn": Action.REWRITE,
    "decompose": Action.DECOMPOSE,
    "disambiguate": Action.DISAMBIGUATE,
    "single_hop": Action.REWRITE,
}


class BadRecord(ValueError):
    """A record this loader cannot turn into an example; skipped and counted, never fatal."""


@dataclass(frozen=True)
class SourceExample:
    source: str
    source_id: str
    category: str
    messages: tuple[dict, ...]  # the conversation, ending with the user's turn
    answer: str  # the dataset's own output; "" when it has none (MT-Bench)
    aliases: tuple[str, ...] = ()  # every accepted short answer, for checks and evaluation
    gold_queries: tuple[str, ...] = ()  # refinements carried by the dataset itself
    gold_query_answers: tuple[str, ...] = ()
    pool: tuple[dict, ...] = ()  # candidate paragraphs {idx, title, paragraph_text, is_supporting}
    choices: tuple[tuple[str, str], ...] = ()  # (label, text) for multiple-choice sources
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def uid(self) -> str:
        return f"{self.source}:{self.source_id}"

    @property
    def question(self) -> str:
        return self.messages[-1]["content"]

    @property
    def action(self) -> Action:
        return CATEGORY_ACTION[self.category]

    def pool_record(self) -> dict:
        """This example's candidates as an IRCoT record, keyed by uid (ids repeat across benchmark files)."""
        return {"question_id": self.uid, "contexts": list(self.pool)}


# ------------------------------------------------------------------------------------------ helpers


def _require(record: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        value = record.get(key)
        if value not in (None, "", [], {}):
            return value
    raise BadRecord(f"missing {' / '.join(keys)}")


def _ircot_answers(record: Mapping[str, Any]) -> list[str]:
    spans = [s for obj in record.get("answers_objects") or [] for s in obj.get("spans") or []]
    return [_text(s) for s in spans if _text(s)]


def format_choice_question(question: str, choices: Sequence[tuple[str, str]]) -> str:
    """The user turn of a multiple-choice question: the stem, then one `A. text` line per option."""
    lines = [_text(question), *(f"{label}. {_text(text)}" for label, text in choices)]
    return "\n".join(lines)


def format_choice_answer(label: str, choices: Sequence[tuple[str, str]]) -> str:
    text = dict(choices)[label]
    return f"{label}. {_text(text)}"


def _user(content: str) -> tuple[dict, ...]:
    return ({"role": "user", "content": content},)


# ---------------------------------------------------------------------------------------- multi-hop


def _pool_from_contexts(contexts: Sequence[Mapping[str, Any]]) -> tuple[dict, ...]:
    pool = []
    for position, para in enumerate(contexts):
        idx = next((para[k] for k in ("idx", "id") if para.get(k) not in (None, "")), position)
        text = para.get("paragraph_text", para.get("text", ""))
        pool.append(
            {
                "idx": idx,
                "title": _text(para.get("title")),
                "paragraph_text": _text(text),
                "is_supporting": bool(para.get("is_supporting")),
            }
        )
    return tuple(pool)


def _pool_from_original(record: Mapping[str, Any]) -> tuple[dict, ...]:
    """HotpotQA/2Wiki original layout: context as [[title, sentences], ...] (GitHub) or {title: [], sentences: []} (hub)."""
    context, facts = record["context"], record.get("supporting_facts") or []
    if isinstance(context, Mapping):
        context = list(zip(context["title"], context["sentences"]))
    if isinstance(facts, Mapping):
        facts = list(zip(facts["title"], facts.get("sent_id", [])))
    gold = {fact[0] for fact in facts}
    return tuple(
        {
            "idx": i,
            "title": _text(title),
            "paragraph_text": _text(" ".join(sents) if isinstance(sents, list) else sents),
            "is_supporting": title in gold,
        }
        for i, (title, sents) in enumerate(context)
    )


def _multihop(source: str, record: Mapping[str, Any]) -> SourceExample:
    qid = str(_require(record, "question_id", "id", "_id"))
    question = _text(_require(record, "question_text", "question"))
    answers = _ircot_answers(record) or ([_text(record["answer"])] if _text(record.get("answer")) else [])
    answers += [_text(a) for a in record.get("answer_aliases") or [] if _text(a) and _text(a) not in answers]
    if not answers:
        raise BadRecord("no answer")
    if "contexts" in record or "paragraphs" in record:
        pool = _pool_from_contexts(record.get("contexts") or record.get("paragraphs") or [])
    elif "context" in record:
        pool = _pool_from_original(record)
    else:
        pool = ()
    if not pool:
        raise BadRecord("no candidate paragraphs")
    extra: dict[str, Any] = {"type": record.get("type")} if record.get("type") else {}
    if record.get("question_decomposition"):
        gold_queries, gold_answers = musique_gold_queries(record["question_decomposition"])
        extra["refinement_origin"] = "gold"
    elif record.get("evidences"):
        gold_queries, gold_answers = wiki2_gold_queries(record["evidences"])
        extra["refinement_origin"] = "gold"
    elif source == "hotpotqa":
        gold_queries, gold_answers = hotpot_silver_queries(question, pool)
        extra["refinement_origin"] = "silver"
    else:
        gold_queries, gold_answers = (), ()
    return SourceExample(
        source=source,
        source_id=qid,
        category="decompose",
        messages=_user(question),
        answer=answers[0],
        aliases=tuple(answers),
        gold_queries=gold_queries,
        gold_query_answers=gold_answers,
        pool=pool,
        extra=extra,
    )


# ------------------------------------------------------------------------------------- disambiguate


def _asqa(record: Mapping[str, Any]) -> SourceExample:
    qid = str(_require(record, "sample_id", "id"))
    question = _text(_require(record, "ambiguous_question", "question"))
    pairs = record.get("qa_pairs") or []
    long_answers = [
        _text(a.get("long_answer")) for a in record.get("annotations") or [] if _text(a.get("long_answer"))
    ]
    if not pairs or not long_answers:
        raise BadRecord("no qa_pairs or no long answer")
    return SourceExample(
        source="asqa",
        source_id=qid,
        category="disambiguate",
        messages=_user(question),
        answer=long_answers[0],
        aliases=tuple(_text(s) for p in pairs for s in p.get("short_answers") or []),
        gold_queries=tuple(_text(p["question"]) for p in pairs),
        gold_query_answers=tuple(" / ".join(_text(s) for s in p.get("short_answers") or []) for p in pairs),
        # Per reading, every accepted short answer: what ASQA's STR-EM checks a long answer against.
        extra={"answer_sets": [[_text(s) for s in p.get("short_answers") or [] if _text(s)] for p in pairs]},
    )


# --------------------------------------------------------------------------------- multiple choice


def _choices(raw: Any) -> tuple[tuple[str, str], ...]:
    if isinstance(raw, Mapping):  # hub layout: {"text": [...], "label": [...]}
        pairs = zip(raw.get("label", []), raw.get("text", []))
    else:  # [{"label", "text"}, ...]
        pairs = ((c.get("label"), c.get("text")) for c in raw or [])
    return tuple((str(label), _text(text)) for label, text in pairs if label is not None)


def _multiple_choice(source: str, record: Mapping[str, Any]) -> SourceExample:
    qid = str(_require(record, "id"))
    question = record.get("question_stem") or record.get("question")
    if isinstance(question, Mapping):  # original ARC layout: {"stem", "choices"}
        choices = _choices(question.get("choices"))
        question = question.get("stem")
    else:
        choices = _choices(record.get("choices") or record.get("options"))
    label = str(_require(record, "answerKey", "answer"))
    if not _text(question) or len(choices) < 2 or label not in dict(choices):
        raise BadRecord("needs a question, at least two options and an answer key among them")
    return SourceExample(
        source=source,
        source_id=qid,
        category="single_hop",
        messages=_user(format_choice_question(question, choices)),
        answer=format_choice_answer(label, choices),
        aliases=(label, dict(choices)[label]),
        choices=choices,
        extra={"answer_label": label},
    )


def _popqa(record: Mapping[str, Any]) -> SourceExample:
    answers = record.get("answers") or record.get("possible_answers") or []
    if isinstance(answers, str):  # the hub's possible_answers is a JSON-encoded list
        import json

        answers = json.loads(answers)
    if not answers:
        raise BadRecord("no answers")
    return SourceExample(
        source="popqa",
        source_id=str(_require(record, "id")),
        category="single_hop",
        messages=_user(_text(_require(record, "question"))),
        answer=_text(answers[0]),
        aliases=tuple(_text(a) for a in answers),
        extra={"s_wiki_title": record.get("s_wiki_title"), "pop": record.get("s_pop", record.get("pop"))},
    )


# ------------------------------------------------------------------------------------ instructions


def _instruction(source: str, qid: str, instruction: str, input_: str, output: str) -> SourceExample:
    # Instructions keep their line breaks (code, lists); only the ends are trimmed.
    prompt = instruction.strip() if not _text(input_) else f"{instruction.strip()}\n\n{input_.strip()}"
    if not prompt.strip() or not _text(output):
        raise BadRecord("needs an instruction and an output")
    return SourceExample(source, qid, "multi_turn", _user(prompt.strip()), output.strip())


def _alpaca(record: Mapping[str, Any], position: int) -> SourceExample:
    return _instruction(
        "alpaca",
        str(record.get("id", position)),
        record.get("instruction") or "",
        record.get("input") or "",
        record.get("output") or "",
    )


def _self_instruct(record: Mapping[str, Any], position: int) -> SourceExample:
    instance = (record.get("instances") or [{}])[0]
    return _instruction(
        "self_instruct",
        str(_require(record, "id")),
        record.get("instruction") or "",
        instance.get("input") or "",
        instance.get("output") or "",
    )


def _oasst(record: Mapping[str, Any], position: int) -> SourceExample:
    """The best-ranked path of an OpenAssistant tree, cut after its deepest assistant reply."""
    node = record.get("prompt")
    if not node or node.get("role") != "prompter":
        raise BadRecord("tree has no prompter root")
    path: list[dict] = []
    while node is not None:
        path.append({"role": "user" if node["role"] == "prompter" else "assistant", "content": node["text"].strip()})
        replies = [r for r in node.get("replies") or [] if not r.get("deleted") and r.get("text", "").strip()]
        node = min(replies, key=lambda r: (r.get("rank") is None, r.get("rank") or 0)) if replies else None
    while path and path[-1]["role"] != "assistant":
        path.pop()
    if len(path) < 2:
        raise BadRecord("tree has no assistant reply")
    return SourceExample(
        "oasst",
        str(record.get("message_tree_id", position)),
        "multi_turn",
        tuple(path[:-1]),
        path[-1]["content"],
        extra={"turns": len(path) // 2},
    )


def _mt_bench(record: Mapping[str, Any], position: int) -> SourceExample:
    # MT-Bench ships no reference answers, so only the first turn is usable and its answer must be generated.
    turns = record.get("turns") or []
    if not turns or not _text(turns[0]):
        raise BadRecord("no turns")
    return SourceExample(
        "mt_bench",
        str(record.get("question_id", position)),
        "multi_turn",
        _user(turns[0].strip()),
        "",
        extra={"mt_category": record.get("category")},
    )


# ----------------------------------------------------------------------------------------- registry

LoaderFn = Callable[[Mapping[str, Any], int], SourceExample]

LOADERS: dict[str, LoaderFn] = {
    "hotpotqa": lambda r, i: _multihop("hotpotqa", r),
    "2wikimultihopqa": lambda r, i: _multihop("2wikimultihopqa", r),
    "musique": lambda r, i: _multihop("musique", r),
    "asqa": lambda r, i: _asqa(r),
    "arc_challenge": lambda r, i: _multiple_choice("arc_challenge", r),
    "openbookqa": lambda r, i: _multiple_choice("openbookqa", r),
    "popqa": lambda r, i: _popqa(r),
    "alpaca": _alpaca,
    "self_instruct": _self_instruct,
    "oasst": _oasst,
    "mt_bench": _mt_bench,
}

# The full file of each source, relative to `benchmarks_dir()` (where `rqrag data fetch` writes it).
DEFAULT_FILES = {
    "hotpotqa": "hotpotqa/hotpotqa_dev_500_ircot_format.jsonl",
    # The original format: its `evidences` triples are the gold sub-questions (the DERIVED IRCoT file joins them
    # into strings); the 36 records without `context` are skipped as unusable, leaving the same 164 questions.
    "2wikimultihopqa": "2wikimultihopqa/2wikimultihopqa_dev_200_migres_original_format.jsonl",
    "musique": "musique/musique_ans_dev_292_ircot_format.DERIVED.jsonl",
    "asqa": "asqa/asqa_dev_948.json",
    "arc_challenge": "arc_challenge/arc_challenge_test_1172_hf_format.DERIVED.jsonl",
    "openbookqa": "openbookqa/openbookqa_main_test_500.jsonl",
    "popqa": "popqa/popqa_longtail_1399.DERIVED.jsonl",
    "alpaca": "instruct_chat/alpaca_data_1k_sample.json",
    "self_instruct": "instruct_chat/self_instruct_seed_tasks_175.jsonl",
    "oasst": "instruct_chat/oasst1_en_100_message_trees.jsonl",
    "mt_bench": "instruct_chat/mt_bench_questions_80.jsonl",
}


def parse_records(
    source: str, records: Iterator[Mapping[str, Any]], on_bad: Callable[[int, str], None]
) -> Iterator[SourceExample]:
    """Examples of `source` from raw records; a record the loader rejects goes to `on_bad(position, reason)`."""
    if source not in LOADERS:
        raise ValueError(f"unknown source {source!r}; known sources: {sorted(LOADERS)}")
    loader = LOADERS[source]
    for position, record in enumerate(records):
        try:
            yield loader(record, position)
        except (BadRecord, KeyError, TypeError, AttributeError, IndexError) as err:
            on_bad(position, f"{type(err).__name__}: {err}")
