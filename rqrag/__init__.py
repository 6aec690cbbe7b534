"""rq-rag: learning to refine queries for retrieval-augmented generation.

The shared core: the trajectory language (`rqrag.trajectory`), model resolution (`rqrag.models`),
retrieval (`rqrag.retrieval`), the config pattern (`rqrag.config`) and the `rqrag` CLI (`rqrag.cli`).
"""

__version__ = "0.1.0"
