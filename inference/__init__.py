"""`rqrag.inference` — the RQ-RAG tree, installed from the checkout's `inference/` folder (setuptools package-dir),
so `inference/decoding/decoder.py` is imported as `rqrag.inference.decoding.decoder`.

    build.py    a tree decoder from its config: generator, tokenizer, retriever
    decoding/   the tree: expansion, prompts, guards, selection; the iterative baselines
    backends/   generation (transformers, vLLM, remote endpoints); nothing of the tree

The answer a person reads is made above it, in `rqrag.answer`; the application that serves it is `rqrag.serve`.
"""
