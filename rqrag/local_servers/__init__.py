"""Processes rq-rag starts and owns: children that die with their parent (`child_launcher.py`, `processes.py`),
a local server started and waited for (`local_server.py`), and llama.cpp serving a GGUF file (`gguf_server.py`)."""
