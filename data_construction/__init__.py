"""Raw tasks -> LLM-annotated search-augmented trajectories (JSONL in the HF chat format).

Filled by the data-construction issue; this package only reserves the name and the place in the data flow.
"""
