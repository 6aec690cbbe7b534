"""A user's documents beyond ingestion: the server's libraries and upload jobs (`service.py`), the literature review
of a library (`review.py`). Below the server; knows nothing of HTTP.
"""
