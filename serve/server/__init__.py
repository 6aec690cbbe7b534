"""The HTTP edge of `rqrag serve`: the FastAPI app (`app.py`), the OpenAI-compatible routes, the chat page's routes
(`chat_routes.py`) and its static page (`web/`), the documents routes, request limits and metrics. The only place
that knows HTTP status codes (`schema.http_error` maps the services' domain errors); it calls the services below
it, which handlers get as FastAPI dependencies (`dependencies.py`), and frames both event streams one way (`sse.py`).
"""
