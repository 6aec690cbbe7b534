"""The HTTP edge of `rqrag serve`: the FastAPI app (`app.py`), the OpenAI-compatible routes, the chat page's routes
(`chat_routes.py`) and its static page (`web/`), the documents routes, request limits and metrics. The only place
that knows HTTP status codes; it calls the services below it.
"""
