"""Talking to a language model over HTTP: one OpenAI-compatible endpoint with its retries, concurrency limit and
error policy (`openai_endpoint.py`), and the JSON chat client the annotator, the memory judge and the review use
(`client.py`)."""
