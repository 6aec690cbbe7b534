"""rq-rag: learning to refine queries for retrieval-augmented generation.

One import namespace, three layers (checked by import-linter, see pyproject.toml):

* the core, imported by everything and importing no stage: the trajectory language (`rqrag.trajectory`),
  model resolution (`rqrag.models`, `rqrag.adapters`), retrieval (`rqrag.retrieval`), benchmark loaders and
  id splits (`rqrag.benchmarks`), answer normalisation (`rqrag.text.answer_text`), JSONL input/output (`rqrag.records`,
  `rqrag.resumable`), process supervision (`rqrag.local_servers.processes`, `rqrag.local_servers.local_server`) and configs (`rqrag.config_loader`);
* the stages, in data-flow order, each importing only earlier ones: `rqrag.data_construction`,
  `rqrag.training`, `rqrag.inference` (the tree), `rqrag.answer` (the answer a person reads), `rqrag.serve` (the
  served application), `rqrag.eval`, `rqrag.self_training` (in the checkout: the top-level folders of those names);
* the CLI (`rqrag.cli`, the checkout's cli/ folder, its subcommands in `rqrag.cli.commands`), which may import
  every stage.

`rqrag.Pipeline` is the Python API (`answer/api.py`, docs/python.md):

    from rqrag import Pipeline
    print(Pipeline.from_config("rqrag_trained").ask("What is the capital of France?").text)
"""

__version__ = "0.1.0"

__all__ = ["Pipeline"]


def __getattr__(name: str):
    # `from rqrag import Pipeline` (the Python API, answer/api.py), imported on first use: the core must
    # not import a stage when it is itself imported (import-linter's layers), and `import rqrag` stays instant.
    if name == "Pipeline":
        from rqrag.answer.api import Pipeline

        return Pipeline
    raise AttributeError(f"module 'rqrag' has no attribute {name!r}")
