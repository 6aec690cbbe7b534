"""A user's documents beyond ingestion: the literature review of a library (`review.py`). Below the server; knows
nothing of HTTP.
"""
