"""How a trained model's context is laid out: this package's format, and the original RQ-RAG code's.

    fmt = prompt_format("original", tokenizer)       # or "native", or "auto" (decided from the tokenizer)
    prompt, _ = fmt.frame(tokenizer, messages)       # the text before the model's first token
    fmt.step_segments(step)                          # one searched step as the decoder writes it back

Both formats speak the same trajectory language (`rqrag.trajectory`: action token, query, `[EOS]`, evidence,
`[A_Response]`); they differ in the frame around it and in a few newlines, and a model only answers well in the
layout it was trained on.

* **native** — what `training/sft.py` trains here: the tokenizer's own chat template (`chat_frame`), a space
  before each query and answer, the evidence block on its own line.
* **original** — models trained by the original code (github.com/chanchimin/RQ-RAG, `retrieval_lm/finetune.py`;
  the released `zorowin123/rq_rag_llama2_7B`). Read from that code, not copied:
  - the frame is Tulu-style role tags, each turn closed by the tokenizer's `</s>` and a newline, the whole prompt
    opened by a literal `<s>` (`finetune.py` `_concat_messages`, `utils.py` `preprocess_eval_data`):
    `<s><|system|>\\n{system}</s>\\n<|user|>\\n{question}</s>\\n<|assistant|>\\n`;
  - the model writes `\\n{query}\\n` between its action token and `[EOS]` (as `merge_intermediate.py` built the
    training data), and the decoder appends `[R_Evidences]` + `Title: {t}\\nText: {x}\\n` per passage +
    `[/R_Evidences]` with no newline around it, then the next action token (`inference.py`,
    `generate_tree_of_thoughts` and `format_evidences`);
  - generation stops at `[EOS]` or at `</s>` (`inference.py` sets both as end-of-sequence ids);
  - every training example had a system message; benchmark questions get the task's own (`utils.py`
    `system_prompt`), any other question the one the multi-turn training data carried;
  - its tokenizer has one more special token, `[S_Response]` (a disambiguated question's short answer, written
    only in training data); "auto" recognises the format by it.

Tokens are framed so every segment boundary sits next to a special token, hence the decoder's segment-by-segment
ids equal the original's whole-string tokenization (tests/test_prompt_formats.py, with a Llama tokenizer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rqrag.trajectory import EOS, EVIDENCE_END, EVIDENCE_START, Step, clean_text
from rqrag.trajectory_render import Segment, chat_frame, step_segments, tokenize_segments


# The original code's one token ours lacks: a clarified question's short answer, written only in its training data
# (`rqrag data import` keeps it as metadata). "auto" recognises the original's tokenizer by it.
INTERMEDIATE_ANSWER = "[S_Response]"

# Task instructions the original code gives its model (`retrieval_lm/utils.py`, `system_prompt`), and the one its
# general training data carried (`merge_intermediate.py`). They are the exact strings the released model was
# trained and evaluated with, so they are kept verbatim: they are inputs the weights expect, not prose.
_MULTI_HOP = (
    "Given a question that requires multi-hop reasoning, you need to decompose the question and answer based on "
    "the given context. Please provide a short and concise response."
)
_CHOICE = "Given four answer candidates, A, B, C and D, choose the best answer choice."
ORIGINAL_SYSTEM_PROMPTS = {
    "hotpotqa": _MULTI_HOP,
    "2wikimultihopqa": _MULTI_HOP,
    "musique": _MULTI_HOP,
    "popqa": "Please answer the question.",
    "arc_challenge": _CHOICE,
    "openbookqa": _CHOICE,
    "asqa": (
        "Answer the following question. The question may be ambiguous and have multiple correct answers, and in "
        "that case, you have to disambiguate the question and provide a long-form answer including all correct "
        "answers."
    ),
}
ORIGINAL_DEFAULT_SYSTEM = (
    "You are a helpful assistant, please provide an answer to the questions, with the option to consider or "
    "ignore the provided context as needed."
)
_ORIGINAL_LABELS = {"1": "A", "2": "B", "3": "C", "4": "D", "5": "E"}


@dataclass(frozen=True)
class PromptFormat:
    """One layout of a trained model's context. `native` and `original` are the two instances."""

    name: str

    @property
    def is_original(self) -> bool:
        return self.name == "original"

    def frame(self, tokenizer, messages: Sequence[dict]) -> tuple[str, str]:
        """(prompt, end_of_turn) around the assistant turn the model writes its trajectory in."""
        if not self.is_original:
            return chat_frame(tokenizer, messages)
        messages = list(messages)
        if not messages or messages[-1].get("role") != "user":
            raise ValueError("messages must end with a user turn (the question)")
        if messages[0].get("role") != "system":
            messages.insert(0, {"role": "system", "content": ORIGINAL_DEFAULT_SYSTEM})
        eos = tokenizer.eos_token or "</s>"
        text = "<s>"  # written out, as the original prompt strings do (tokenized without adding another)
        for message in messages:
            if message["role"] not in ("system", "user", "assistant"):
                raise ValueError(f"unknown role {message['role']!r}")
            # Not stripped: the original's inference prompts keep the question as given (its multiple-choice
            # questions end with a newline before `</s>`).
            text += f"<|{message['role']}|>\n{message['content']}{eos}\n"
        return text + "<|assistant|>\n", eos

    def step_segments(self, step: Step) -> list[Segment]:
        """A step as it stands in the context: what the model wrote (supervised) and the evidence (not)."""
        if not self.is_original:
            return step_segments(step)
        segments = [
            Segment(step.action.value, True, "action"),
            Segment("\n" + clean_text(step.text) + "\n", True, "answer" if not step.action.is_query else "query"),
            Segment(EOS, True, "eos"),
        ]
        if step.action.is_query:
            segments.append(Segment(EVIDENCE_START, False, "evidence"))
            body = "".join(f"Title: {clean_text(h.title)}\nText: {clean_text(h.text)}\n" for h in step.evidence)
            if body:
                segments.append(Segment(body, False, "evidence"))
            segments.append(Segment(EVIDENCE_END, False, "evidence"))
        return segments

    def evidence_ids(self, tokenizer, action, hits) -> list[int]:
        """The ids of the evidence block the decoder writes after a search step's `[EOS]`, as they stand in the
        whole text: tokenized after that `[EOS]`, which is then dropped (tokenized alone, a Llama tokenizer would
        mark a word start before the block)."""
        evidence = [s for s in self.step_segments(Step(action, "x", tuple(hits))) if s.part == "evidence"]
        ids, _ = tokenize_segments(tokenizer, [Segment(EOS, False, "eos"), *evidence])
        return ids[1:]

    def stop_token_ids(self, tokenizer) -> tuple[int, ...]:
        """`[EOS]` ends every step; the original code also stops at the tokenizer's end of sequence."""
        ids = [tokenizer.convert_tokens_to_ids(EOS)]
        if self.is_original and tokenizer.eos_token_id is not None:
            ids.append(tokenizer.eos_token_id)
        return tuple(ids)

    def task_messages(self, task: str | None, messages: Sequence[dict], choices: Sequence[tuple[str, str]] = ()):
        """A benchmark question as this format's model saw its tasks: the original's system prompt and, for
        multiple choice, its option list (`Please choose from following options:` then `A: text` lines)."""
        messages = [dict(m) for m in messages]
        if not self.is_original or task not in ORIGINAL_SYSTEM_PROMPTS:
            return messages
        if choices:
            stem = messages[-1]["content"].split("\n")[0].strip()
            stem = stem if stem.endswith("?") else stem + "?"
            options = "".join(f"{_ORIGINAL_LABELS.get(label, label)}: {text}\n" for label, text in choices)
            messages[-1]["content"] = f"{stem}\nPlease choose from following options:\n{options}"
        if messages[0]["role"] != "system":
            messages.insert(0, {"role": "system", "content": ORIGINAL_SYSTEM_PROMPTS[task]})
        return messages


NATIVE = PromptFormat("native")
ORIGINAL = PromptFormat("original")
PROMPT_FORMATS = {f.name: f for f in (NATIVE, ORIGINAL)}


def prompt_format(name: str, tokenizer=None) -> PromptFormat:
    """The format called `name`; "auto" is `original` for a tokenizer with the original code's `[S_Response]`
    token, else `native`."""
    if name == "auto":
        has_original_token = tokenizer is not None and INTERMEDIATE_ANSWER in tokenizer.get_vocab()
        return ORIGINAL if has_original_token else NATIVE
    if name not in PROMPT_FORMATS:
        raise ValueError(f"unknown prompt format {name!r}; expected auto or one of {sorted(PROMPT_FORMATS)}")
    return PROMPT_FORMATS[name]
