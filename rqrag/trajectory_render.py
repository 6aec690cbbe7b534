"""The trajectory language written out: a `Trajectory` as the text a model reads and learns to write, framed by the
tokenizer's own chat template, and tokenized with a label per token (`rqrag.trajectory` defines the language and
parses it back).

    example = render_example(tokenizer, "Who directed Titanic?", trajectory)
    input_ids, labels = tokenize_segments(tokenizer, example.segments)
    prompt = render_prompt(tokenizer, messages, steps_so_far)     # what the decoder feeds the model
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rqrag.retrieval.base import Hit
from rqrag.trajectory import EOS, EVIDENCE_END, EVIDENCE_START, Action, Step, Trajectory, clean_text


@dataclass(frozen=True)
class Segment:
    """A piece of a rendered example. `supervise` is True for what the model must learn to emit."""

    text: str
    supervise: bool
    part: str  # which part of the example it is: prompt | action | query | answer | eos | evidence | end_of_turn


def format_evidence(hits: Iterable[Hit]) -> str:
    """The evidence block's body: one `Title: ...` / `Text: ...` pair per hit, as in the paper."""
    return "\n".join(f"Title: {clean_text(h.title)}\nText: {clean_text(h.text)}" for h in hits)


def step_segments(step: Step) -> list[Segment]:
    """Segments of one step. Queries and answers are written with a leading space after their token."""
    segments = [
        Segment(step.action.value, True, "action"),
        Segment(" " + clean_text(step.text), True, "answer" if step.action is Action.ANSWER else "query"),
        Segment(EOS, True, "eos"),
    ]
    if step.action.is_query:
        # The decoder, not the model, writes the evidence block; so none of it is supervised.
        segments.append(Segment("\n" + EVIDENCE_START, False, "evidence"))
        body = format_evidence(step.evidence)
        if body:
            segments.append(Segment(body, False, "evidence"))
        segments.append(Segment(EVIDENCE_END + "\n", False, "evidence"))
    return segments


def trajectory_segments(trajectory: Trajectory) -> list[Segment]:
    return [seg for step in trajectory.steps for seg in step_segments(step)]


def render_assistant(trajectory: Trajectory) -> str:
    """The assistant turn's text (no chat template): what a data file stores as the assistant message."""
    return "".join(seg.text for seg in trajectory_segments(trajectory))


_SENTINEL = "\ue000rqrag-assistant-turn\ue000"

# Used only when a tokenizer has no chat template (e.g. a base Llama-2 as in the paper).
FALLBACK_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}"
    "{% if m['role'] == 'system' %}{{ m['content'] + '\\n\\n' }}"
    "{% elif m['role'] == 'user' %}{{ '### User:\\n' + m['content'] + '\\n\\n' }}"
    "{% else %}{{ '### Assistant:\\n' + m['content'] + eos_token + '\\n\\n' }}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}{{ '### Assistant:\\n' }}{% endif %}"
)


def chat_frame(tokenizer, messages: Sequence[dict]) -> tuple[str, str]:
    """(prompt, end_of_turn) around the final assistant turn, from the tokenizer's own chat template.

    Rendering a sentinel as the assistant content and splitting on it gives the exact text before and
    after the turn, whatever the template (ChatML, Llama-3, Gemma, ...), so training and inference frame
    the trajectory identically.
    """
    messages = list(messages)
    if not messages or messages[-1].get("role") != "user":
        raise ValueError("messages must end with a user turn (the question)")
    template = getattr(tokenizer, "chat_template", None) or FALLBACK_CHAT_TEMPLATE
    full = tokenizer.apply_chat_template(
        [*messages, {"role": "assistant", "content": _SENTINEL}], tokenize=False, chat_template=template
    )
    if full.count(_SENTINEL) != 1:
        raise ValueError("the chat template did not render the assistant turn verbatim")
    prompt, end_of_turn = full.split(_SENTINEL)
    return prompt, end_of_turn


def as_messages(question: str | Sequence[dict]) -> list[dict]:
    """A bare question becomes a one-turn conversation; a message list is used as is."""
    if isinstance(question, str):
        return [{"role": "user", "content": question}]
    return [dict(m) for m in question]


@dataclass(frozen=True)
class RenderedExample:
    segments: tuple[Segment, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments)


def render_example(tokenizer, messages: str | Sequence[dict], trajectory: Trajectory) -> RenderedExample:
    """A full training example: chat prompt (masked), the trajectory, and the template's end of turn."""
    prompt, end_of_turn = chat_frame(tokenizer, as_messages(messages))
    segments = [Segment(prompt, False, "prompt"), *trajectory_segments(trajectory)]
    if end_of_turn:
        # Supervised so a trained model also closes its chat turn after the final [EOS].
        segments.append(Segment(end_of_turn, True, "end_of_turn"))
    return RenderedExample(tuple(segments))


def render_prompt(tokenizer, messages: str | Sequence[dict], steps: Sequence[Step] = ()) -> str:
    """What the decoder feeds the model: chat prompt plus the steps taken so far (with their evidence)."""
    prompt, _ = chat_frame(tokenizer, as_messages(messages))
    return prompt + "".join(seg.text for step in steps for seg in step_segments(step))


def tokenize_segments(tokenizer, segments: Sequence[Segment], ignore_index: int = -100) -> tuple[list[int], list[int]]:
    """input_ids and labels of the segments' text; unsupervised tokens get `ignore_index`.

    The text is tokenized whole, once, and each token labelled by the segment its first character is in: the
    ids are the whole text's whatever the tokenizer. (Tokenizing segment by segment is not the same for every
    tokenizer: a Llama tokenizer writes a word-start mark before a segment that starts a string, not before
    the same text after a special token.) A slow tokenizer, which has no offsets, is tokenized per segment.
    """
    if not getattr(tokenizer, "is_fast", False):
        input_ids: list[int] = []
        labels: list[int] = []
        for seg, ids in zip(segments, tokenizer([s.text for s in segments], add_special_tokens=False)["input_ids"]):
            input_ids.extend(ids)
            labels.extend(ids if seg.supervise else [ignore_index] * len(ids))
        return input_ids, labels
    ends = list(itertools.accumulate(len(s.text) for s in segments))
    encoded = tokenizer("".join(s.text for s in segments), add_special_tokens=False, return_offsets_mapping=True)
    input_ids = list(encoded["input_ids"])
    labels = []
    for token, (start, _end) in zip(input_ids, encoded["offset_mapping"]):
        segment = segments[min(bisect.bisect_right(ends, start), len(segments) - 1)]
        labels.append(token if segment.supervise else ignore_index)
    return input_ids, labels
