"""`rqrag.data_construction` — installed from the checkout's `data_construction/` folder (setuptools package-dir).

Raw tasks -> annotated search-augmented trajectories, JSONL in the HF chat format (`rqrag data build`).
"""
