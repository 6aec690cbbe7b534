"""`rqrag.review` — a literature review of your own documents (`rqrag review "TOPIC" --index LIB`).

`review_config.py` (its settings), `sources.py` (the library or index searched, and its language), `reviewer.py`
(chunks grouped by document, the model's prompt, schema and reply), `check.py` (each field checked against the
document's excerpts, or quoted from them), `review_markdown.py` (review.md) and `run.py` (search, model, check, write).
"""
