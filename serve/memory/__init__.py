"""Episodic memory of the chat page: conversations (`conversations.py`), remembered statements with the time they
were told and the time they name (`store.py`, `dates.py`), what is worth remembering (`writer.py`) and the
retriever that searches them (`retriever.py`). Below the server; knows nothing of HTTP.
"""
