"""rqrag ask "QUESTION" [--retriever corpus|candidates|web] [--depth N]
                      [--strategy ppl|ppl_path|confidence|ensemble|support|vote] [--show-tree] [--json]
                      [--config YAML] [--history conversation.json] [--output_dir DIR]

    rqrag ask "Which university did the author of The Old Man and the Sea attend?" --show-tree
    rqrag ask "When was he born?" --history tests/assets/conversation.json       # multi-turn follow-up
    rqrag ask "Who wrote Hamlet?" --prompting prompted --depth 1        # the base model, refinements by instruction

Answers one question with the RQ-RAG tree decoder and prints the answer, the selected trajectory (each
refined query with the titles of the evidence it retrieved) and where the time went. By default it runs
the shipped model (models/rqrag-smollm2-135m: SmolLM2-135M fine-tuned on RQ-RAG trajectories, trained mode)
over the embedded Wikipedia corpus, offline on a CPU; `--prompting prompted` runs its base model with the
refinements asked for by instructions. `--history` takes a JSON list of earlier {"role", "content"} turns.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rqrag.answer import AnswerKind, DecodeConfig
from rqrag.config_loader import log_config, make_parser, parse, save_resolved_config


@dataclass
class AskOptions:
    show_tree: bool = field(default=False, metadata={"help": "print every trajectory with its scores"})
    json_output: bool = field(default=False, metadata={"help": "print the full result as JSON", "aliases": ["--json"]})
    history: str | None = field(
        default=None, metadata={"help": "JSON file with the earlier turns of the conversation"}
    )
    language: str | None = field(
        default=None,
        metadata={"help": "the answer's language (pt, en, ...); default: the library's, else the question's"},
    )
    output_dir: str | None = field(
        default=None, metadata={"help": "also write result.json and resolved_config.yaml here"}
    )


def _history(history_file: str | None) -> list[dict]:
    history = json.loads(Path(history_file).read_text()) if history_file else []
    if not isinstance(history, list) or not all(
        isinstance(m, dict) and {"role", "content"} <= set(m) for m in history
    ):
        raise SystemExit(f"rqrag ask: {history_file} must hold a JSON list of {{'role', 'content'}} objects")
    return history


def _print_trajectory(t, indent: str = "  ") -> None:
    for i, step in enumerate(t.trajectory.steps, start=1):
        print(f"{indent}{i}. [{step.action.short}] {step.text}")
        if step.evidence:
            print(f"{indent}     evidence: " + " | ".join(_cite(h) for h in step.evidence))


def _cite(hit) -> str:
    """A hit's title, with its page span when it is a chunk of the user's documents (`rqrag docs add`)."""
    from rqrag.answer.printed import cite_source

    return cite_source({**hit.extra, "title": hit.title, "file": None})


def _report(answer, decoder, seconds: float, show_tree: bool) -> None:
    # imported once the answer is made: the wording is not on the way to the first model call (test_question_path)
    from rqrag.answer.printed import headline, quoted_without_model, written_lines

    result = answer.result
    if answer.kind is AnswerKind.NOT_FOUND:  # outside the documents: said plainly, no model was run
        print(answer.text)
        return
    if result is None and answer.kind is AnswerKind.WRITTEN:  # no tree: written from the question's own search
        print("\n".join(written_lines(answer)))
        print(f"\nTime: {seconds:.1f} s total; written, no tree decoded.")
        return
    if result is None:  # answered without the model: quoted from the evidence only
        print("\n".join(quoted_without_model(answer)))
        print(f"\nTime: {seconds:.1f} s total; {answer.kind.value}, no model loaded.")
        return
    best = result.best
    if best is None:
        print(f"No answer: {result.error}")
        return
    print("\n".join(headline(answer)) + "\n")
    shown_id = answer.grounded.path_id if answer.grounded and answer.grounded.path_id else best.path_id
    shown = next(t for t in result.trajectories if t.path_id == shown_id)
    scored = shown.scored()
    rejected = answer.grounded.rejected if answer.grounded else {}
    why = (
        f"; {result.strategy} picked path {best.path_id}, not shown: {rejected[best.path_id]}"
        if (best.path_id in rejected)
        else ""
    )
    print(
        f"Trajectory shown (path {shown.path_id}{why}; answer perplexity {scored.answer_perplexity:.2f}, "
        f"path perplexity {scored.perplexity:.2f}; answer confidence {scored.confidence:.2f}):"
    )
    _print_trajectory(shown)
    answers = "; ".join(f"{s} -> {result.answer_by(s)!r}" for s in result.selected)
    ok = sum(t.ok for t in result.trajectories)
    print(f"\nBy strategy: {answers}  ({ok} of {len(result.trajectories)} trajectories finished)")
    if show_tree:
        print("\nAll trajectories:")
        for t in result.trajectories:
            if t.ok:
                s = t.scored()
                head = (
                    f"path {t.path_id}: {t.trajectory.answer!r}  ppl {s.answer_perplexity:.2f}  "
                    f"ppl_path {s.perplexity:.2f}  conf {s.confidence:.2f}"
                )
            else:
                head = f"path {t.path_id}: failed ({t.error})"
            if answer.grounded and t.path_id in answer.grounded.rejected:
                head += f"  not shown: {answer.grounded.rejected[t.path_id]}"
            statuses = ",".join(p.value for p in t.parse_statuses)
            print(f"- {head}  [{statuses}]")
            _print_trajectory(t, indent="    ")
    g, d = decoder.generator.stats, decoder.stats
    print(
        f"\nTime: {seconds:.1f} s total; generation {d.generate_seconds:.1f} s in {g.model_calls} model call(s) "
        f"({g.requests} expansions, {g.prompt_tokens_computed} of {g.prompt_tokens} prompt tokens computed, "
        f"{g.generated_tokens} generated); retrieval {d.retrieval_seconds:.2f} s for {d.searches} search(es). "
        f"Prompting {decoder.prompting}{f' ({decoder.prompt_format} format)' if decoder.prompt_format else ''}, "
        f"backend {decoder.config.backend}, retriever {decoder.config.retriever}."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(DecodeConfig, AskOptions, prog="rqrag ask", description=__doc__.split("\n\n")[2])
    parser.add_argument("question", nargs="+", help="the question (quote it)")
    parser.add_argument("--depth", type=int, default=None, help="shortcut for --max_depth")
    config, options, extra = parse(parser, argv)
    if extra.depth is not None:
        config.max_depth = extra.depth
    question = " ".join(" ".join(extra.question).split())
    if not question:
        parser.error("the question is empty")  # exits 2 before any model is loaded
    log_config("rqrag ask", config, options)

    from rqrag.answer.api import Pipeline

    started = time.perf_counter()
    # The model is loaded only if the question needs it: not when it is outside the documents, nor when the
    # settings quote the evidence only (`--answerer extractive`).
    pipeline = Pipeline(config)
    answer = pipeline.ask(question, _history(options.history), options.language)
    seconds = time.perf_counter() - started
    # the command's span: the pipeline built, the model loaded if the question needs it, the answer (the pipeline's
    # own call is `answer_seconds`); `total_seconds`, its former name, is repeated for one release
    answer.timings["command_seconds"] = round(seconds, 3)
    answer.timings["total_seconds"] = answer.timings["command_seconds"]
    decoder = pipeline.decoder

    record = {
        **answer.to_dict(include_tree=True),
        "outside_documents": answer.kind is AnswerKind.NOT_FOUND,
        "seconds": round(seconds, 3),
        "model_loaded": decoder is not None,
    }
    if decoder is not None:
        record.update(
            generator=decoder.generator.stats.as_dict(),
            decoder=decoder.stats.as_dict(),
            prompting=decoder.prompting,
            # "mode": the former name of "prompting", same value, kept for one release for readers of the old key.
            mode=decoder.prompting,
            prompt_format=decoder.prompt_format,
        )
    if options.output_dir:
        out = Path(options.output_dir)
        save_resolved_config(out, "rqrag ask", config, options)
        (out / "result.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    if options.json_output:
        print(json.dumps(record, indent=2, ensure_ascii=False))
    else:
        _report(answer, decoder, seconds, options.show_tree)
    return 0 if answer.text and answer.kind is not AnswerKind.NOT_FOUND else 1


if __name__ == "__main__":
    sys.exit(main())
