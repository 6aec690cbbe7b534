"""Server-sent events for both streams of the server — the chat page's `/v1/chat` and OpenAI's streamed
`/v1/chat/completions` — framed by FastAPI's own SSE support (`fastapi.sse`, FastAPI >= 0.135): its
`ServerSentEvent` checks each event (one-line names, no stray fields), `format_sse_event` writes the wire format,
`EventSourceResponse` is the `text/event-stream` response. Each event is framed when it is made, so the response
sends the handler's own generator: no wrapping generator sits between a request and its answer.

    return event_stream(sse(data, event=name) async for name, data in events)    # event: NAME / data: {...}
    sse(chunk)                                                   # data-only, as OpenAI's chunks are

The handlers return the response (rather than being generator path operations) because both answer some
requests before any stream starts: a bad option is a JSON 4xx, and `/v1/chat/completions` replies in one piece
unless the client asked for a stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable

from fastapi.sse import EventSourceResponse, ServerSentEvent, format_sse_event


# A proxy must pass each event on as it comes, and a browser must never replay a cached stream.
STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def framed(event: ServerSentEvent) -> bytes:
    """`event` on the wire."""
    return format_sse_event(
        data_str=event.raw_data, event=event.event, id=event.id, retry=event.retry, comment=event.comment
    )


DONE = framed(ServerSentEvent(raw_data="[DONE]"))  # how OpenAI's streams end


def sse(data, event: str | None = None) -> bytes:
    """One event, framed: `data` as JSON (non-ASCII text as is: the page reads Portuguese), named `event` if
    given."""
    return framed(ServerSentEvent(event=event, raw_data=json.dumps(data, ensure_ascii=False)))


def event_stream(events: AsyncIterable[bytes]) -> EventSourceResponse:
    """The response that sends `events` (made by `sse`) as they come."""
    return EventSourceResponse(events, headers=STREAM_HEADERS)
