"""Who reads the pooled evidence for the short answer, one package: each file holds one reader or what
one reader reads with.

- `registry.py` — `Readers`: which reader the settings name (`--reader features`, a reader model, a .gguf file),
  made once and kept; what the pipeline calls.
- `span_reader.py` — the feature reader: a logistic model over sentences and the spans in them (no language model),
  shipped beside the tree's model (`models/<model>/reader/`, fitted by `rqrag fit reader`).
- `span_features.py` — the rows the span reader scores: each sentence's and each span's named features.
- `candidate_spans.py` — the spans a sentence offers as answers (names, numbers, dates, quoted titles).
- `year_comparison.py` — "which came first" questions answered by comparing the years the evidence gives.
- `model_reader.py` — a language model on llama.cpp reads numbered sentences and names the answer and the sentences
  that state it (`--reader qwen2.5-0.5b|qwen2.5-1.5b`).
- `model_decision.py` — what a person reads when a model read: the judge over its reading (`rqrag fit decision`),
  the quote, or the model's own knowledge said to be its own.

The package sits above grounding and the verifier and below the pipeline (pyproject's import contracts).
"""
