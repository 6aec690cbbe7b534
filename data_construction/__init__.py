"""Raw tasks -> annotated search-augmented trajectories, JSONL in the HF chat format (`rqrag data build`)."""
