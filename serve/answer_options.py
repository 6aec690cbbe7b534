"""What a request may choose about how its question is answered, one type from the request body to the services.

`AnswerOptions` is validated by pydantic where a request arrives: the `/v1/ask` and `/v1/chat` bodies are
`AnswerOptions` with their question (`serve/server/schema.py`), and a `/v1/chat/completions` body carries one under
`rqrag`; the conversation service reads the same object (None in a field: the server's default). The services
resolve it into what questions must share to be decoded together (`Batch`, `serve/answer_service.py`) and the answer
step's own settings (`AnswerSettings`); nothing copies it field by field on the way.

The text types every request field uses live here too, so that the options and the bodies check text alike.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from rqrag.answer import StrategyName
from rqrag.text.languages import ANSWER_LANGUAGES


def unicode_text(value: str) -> str:
    """Text that is valid Unicode: JSON may carry a lone surrogate ("\\ud800"), which Python keeps in a str
    and every tokenizer, database and encoder then fails on; refused here, at the edge, as a 400."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (a lone surrogate such as \\ud800 is not)") from None
    return value


Text = Annotated[str, AfterValidator(unicode_text)]
ShortName = Annotated[Text, Field(max_length=200)]  # model, retriever: names, not text


class AnswerOptions(BaseModel):
    """How a request wants its question answered, the same on every route that answers (None: the server's
    default): at the top of a `/v1/ask` or `/v1/chat` body, under `rqrag` in a `/v1/chat/completions` one."""

    model_config = ConfigDict(extra="forbid")  # a misspelt option is an error, not silently ignored

    retriever: ShortName | None = None
    strategy: StrategyName | None = None
    max_depth: int | None = Field(default=None, ge=0, le=64)
    language: Literal[ANSWER_LANGUAGES] | None = None  # the answer's; None: the library's, else the question's
