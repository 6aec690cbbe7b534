"""rqrag review "TOPIC" --index LIBRARY [--database_url URL] [--k 30] [--per_document 5] [--out DIR]
                      [--language en|pt] [--llm_base_url URL] [--llm_model NAME] [--serve_model MODEL]
                      [--retrieval_mode bm25|dense|hybrid] [--per_field 1] [--config YAML]

    rqrag review "avaliação de RAG" --index meus_artigos --language pt          # extractive: no model started
    rqrag review "notas" --index meus_artigos --database_url postgresql://localhost/rqrag
    rqrag review "query refinement for retrieval-augmented generation" --index indexes/my_papers \\
        --llm_base_url https://api.openai.com/v1 --llm_model gpt-4o-mini --out runs/review

A literature review of your own documents: the top `k` chunks of a library (`rqrag docs add`: a folder, or
PostgreSQL + pgvector with `--database_url`) or of an index (`rqrag index build`) for the topic, grouped by
document. A scientific article is read whole, by its sections: its title, authors and year, and its objective,
method, data, main result and conclusion, each quoted from the right section with its page; other documents get a
summary, objectives and conclusions quoted from their excerpts. With `--llm_base_url` (or `--serve_model`, started
on this machine for the run) a chat model's text replaces a quote only where it passes the check (no invented word,
repeated bullet or cut line). Writes review.md (with a comparison table), review.json, articles.bib, articles.csv
and resolved_config.yaml to `--out`. How: `rqrag.review` (run.py, article_review.py, field_check.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rqrag.config_loader import log_config, make_parser, parse
from rqrag.review.review_config import ReviewConfig
from rqrag.review.run import review


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(ReviewConfig, prog="rqrag review", description=__doc__.split("\n\n")[2])
    parser.add_argument("topic", nargs="+", help="the review topic (quote it)")
    config, extra = parse(parser, argv)
    topic = " ".join(" ".join(extra.topic).split())
    if not topic:
        parser.error("the topic is empty")
    if not config.index:
        parser.error("--index is required: a library or index name or folder, or 'embedded'")
    log_config("rqrag review", config)
    return review(config, topic)


if __name__ == "__main__":
    sys.exit(main())
