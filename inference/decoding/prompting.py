"""How one tree expansion becomes a generation request, in the two modes of the decoder.

* **trained** — the model speaks the trajectory language. The request is the path's exact token ids plus
  the forced action token; generation stops at `[EOS]`. A path's ids grow by appending what the model
  emitted and the evidence block, tokenized as its own segments: the same segments training masks, and no
  prefix is ever re-tokenized. Siblings share everything but the action token, which is what the backends'
  prefix reuse exploits.
* **prompted** — a plain instruct model (the embedded SmolLM2 before training). Each refinement is asked
  for by an instruction written *after* the question and the evidence, so siblings still share a long
  prefix. The model answers in one line, which becomes the query or the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from rqrag.inference.backends.base import TERMINATED, ChatPrompt, Completion, GenerationRequest, SamplingParams
from rqrag.inference.decoding.prompt_text import PROMPT_TEXT, prompt_text
from rqrag.inference.decoding.tree import Path, Question
from rqrag.prompt_formats import NATIVE, PromptFormat
from rqrag.prompt_formats import prompt_format as resolve_prompt_format
from rqrag.retrieval.base import Hit
from rqrag.trajectory import EOS, SPECIAL_TOKENS, Action, ParsedStep, Step, clean_text, parse_generation
from rqrag.trajectory_render import Segment, as_messages, tokenize_segments


def visible_text(tokenizer, token_ids: Sequence[int], finish_reason: str) -> str:
    """The text of a completion without its terminating token and without the model's own special tokens
    (e.g. `<|im_end|>`), but keeping ours so the parser can see stray ones."""
    ids = list(token_ids[:-1] if finish_reason in TERMINATED and token_ids else token_ids)
    text = tokenizer.decode(ids, skip_special_tokens=False)
    for token in tokenizer.all_special_tokens:
        if token not in SPECIAL_TOKENS:
            text = text.replace(token, "")
    return text


class TrainedPrompter:
    """Requests and path updates for a model fine-tuned on RQ-RAG trajectories."""

    prompting = "trained"

    def __init__(self, tokenizer, prompt_format: PromptFormat = NATIVE):
        self.tokenizer = tokenizer
        self.format = prompt_format
        self.action_ids = {a: tokenizer.convert_tokens_to_ids(a.value) for a in Action}
        self.eos_id = tokenizer.convert_tokens_to_ids(EOS)
        self.stop_ids = prompt_format.stop_token_ids(tokenizer)
        self.special_ids = {tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS} | set(self.stop_ids)

    def root_ids(self, question: Question) -> tuple[int, ...]:
        """The framed prompt, then any given steps, tokenized as training does (`tokenize_segments`)."""
        messages = self.format.task_messages(question.task, as_messages(question.messages), question.choices)
        prompt, _ = self.format.frame(self.tokenizer, messages)
        given = (seg for step in question.steps for seg in self.format.step_segments(step))
        ids, _ = tokenize_segments(self.tokenizer, [Segment(prompt, False, "prompt"), *given])
        return tuple(ids)

    def request(self, question: Question, path: Path, action: Action, params: SamplingParams, seed: int):
        return GenerationRequest(
            prompt_ids=(*path.prompt_ids, self.action_ids[action]),
            params=params,
            stop_token_ids=self.stop_ids,
            seed=seed,
            shared_prefix_len=len(path.prompt_ids),
        )

    def parse(self, action: Action, completion: Completion) -> ParsedStep:
        reason = completion.finish_reason
        return parse_generation(action, visible_text(self.tokenizer, completion.token_ids, reason), reason)

    def extend_ids(self, path: Path, action: Action, completion: Completion, hits: Sequence[Hit]) -> tuple[int, ...]:
        """The path's ids after this step: action, the query as recorded, `[EOS]`, evidence.

        Only the tokens `parse` kept go into the context: an echoed action token is dropped, and whatever the
        model ran on into after the query (a stray `[A_Response] ...`, a second `[EOS]`, the original format's
        `</s>`) is cut, so the model
        conditions on exactly the trajectory that is recorded and scored.
        """
        emitted = list(completion.token_ids)
        if completion.finish_reason == "eos" and emitted:
            emitted.pop()  # the model's own end of turn, not ours
        if emitted and emitted[0] == self.action_ids[action]:
            emitted = emitted[1:]  # "[S_Rewritten_Query][S_Rewritten_Query] foo": parse skips the echo too
        cut = next((i for i, t in enumerate(emitted) if t in self.special_ids), len(emitted))
        emitted = [*emitted[:cut], self.eos_id]
        evidence_ids = self.format.evidence_ids(self.tokenizer, action, hits)
        return (*path.prompt_ids, self.action_ids[action], *emitted, *evidence_ids)


_EVIDENCE_CHARS = 600  # per hit: keeps prompted prompts short on CPU


class PromptedPrompter:
    """Requests for a plain instruct model: the tree's refinements requested by instructions."""

    prompting = "prompted"

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        # One line per reply: stop at the first newline token (and at the model's own end of turn).
        newline_ids = [tokenizer("\n" * n, add_special_tokens=False)["input_ids"] for n in (1, 2)]
        self.stop_ids = tuple(ids[0] for ids in newline_ids if len(ids) == 1)

    def root_ids(self, question: Question) -> tuple[int, ...]:
        return ()  # prompts are rebuilt from the steps; nothing is carried token by token

    def messages(self, question: Question, path: Path, action: Action) -> list[dict]:
        return self.compose(question, path.steps, prompt_text(question.language).instruction(action))

    def compose(self, question: Question, steps: Sequence[Step], instruction: str, notes: str = "") -> list[dict]:
        """System and user messages: the search results so far, the conversation, the question, any `notes`
        (the iterative baselines' reasoning so far), then the instruction. Written after the question and the
        evidence, so requests that differ only in the instruction still share a long prefix."""
        words = prompt_text(question.language)
        parts = []
        hits = [h for step in steps for h in step.evidence]
        if steps:
            results = "\n".join(
                f"[{i}] {clean_text(h.title)}: {clean_text(h.text)[:_EVIDENCE_CHARS]}" for i, h in enumerate(hits, 1)
            )
            searches = "; ".join(s.text for s in steps)
            parts.append(f"{words.results.format(searches=searches)}\n{results or words.nothing_found}\n")
        if len(question.messages) > 1:
            turns = "\n".join(
                f"{words.roles.get(m['role'], m['role'])}: {m['content']}" for m in question.messages[:-1]
            )
            parts.append(f"{words.conversation}\n{turns}\n")
        parts.append(f"{words.question} {question.text}\n")
        if notes:
            parts.append(notes + "\n")
        parts.append(instruction)
        return [{"role": "system", "content": words.system}, {"role": "user", "content": "\n".join(parts)}]

    def request(self, question: Question, path: Path, action: Action, params: SamplingParams, seed: int):
        lead = prompt_text(question.language).lead(action)
        return self.encode(self.messages(question, path, action), lead, question.language, params, seed)

    def encode(self, messages: list[dict], lead: str, language: str, params: SamplingParams, seed: int):
        """The request for `messages`, the reply made to start with `lead` (prefilled in the assistant turn)."""
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = tuple(self.tokenizer(text + lead, add_special_tokens=False)["input_ids"])
        # At least one token before a newline may end the reply: small models like to break the line
        # right after the lead-in.
        params = SamplingParams(params.temperature, params.top_p, params.max_tokens, min_tokens=1)
        # The shared prefix is set by the decoder from the siblings' common tokens.
        return GenerationRequest(prompt_ids=ids, params=params, stop_token_ids=self.stop_ids, seed=seed)

    def reply(self, completion: Completion, leads: Sequence[str]) -> tuple[str, str]:
        """(the one-line reply, finish reason as `parse_generation` reads it). `leads` are the lead-ins a chat
        endpoint may repeat; a prefilled one is not in the completion."""
        text = visible_text(self.tokenizer, completion.token_ids, completion.finish_reason).strip().strip('"').strip()
        # A newline or the model's own end of turn both close a one-line reply properly.
        return text, "stop" if completion.finish_reason == "eos" else completion.finish_reason

    def parse(self, action: Action, completion: Completion) -> ParsedStep:
        text, reason = self.reply(completion, {words.lead(action) for words in PROMPT_TEXT.values()})
        return parse_generation(action, text, reason)

    def extend_ids(self, path: Path, action: Action, completion: Completion, hits: Sequence[Hit]) -> tuple[int, ...]:
        return ()


class ChatPrompter(PromptedPrompter):
    """Prompted mode for a chat endpoint: the same instructions, sent as messages instead of token ids.

    The lead-in the token-id backends write into the assistant's turn ("Search query:") cannot be prefilled
    through the chat API, so the user turn asks for it and `reply` removes it when the reply repeats it.
    """

    prompting = "prompted"

    @staticmethod
    def _with_reply_format(messages: list[dict], lead: str, language: str) -> tuple[tuple[str, str], ...]:
        messages[-1]["content"] += "\n" + prompt_text(language).reply_format.format(lead=lead)
        return tuple((m["role"], m["content"]) for m in messages)

    def encode(self, messages: list[dict], lead: str, language: str, params: SamplingParams, seed: int):
        chat = self._with_reply_format([dict(m) for m in messages], lead, language)
        # The local tokenizer's count stands in for the endpoint's (context check, statistics), and the ids
        # address the content: the same messages give the same ids, so identical expansions merge.
        text = "\n\n".join(f"{role}: {content}" for role, content in chat)
        ids = tuple(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return GenerationRequest(prompt_ids=ids, params=params, seed=seed, chat=ChatPrompt(chat, stop=("\n",)))

    def reply(self, completion: Completion, leads: Sequence[str]) -> tuple[str, str]:
        lines = [line for line in completion.text.strip().splitlines() if line.strip()]
        text = lines[0] if lines else ""  # one line, even from an endpoint that ignored the stop string
        text = text.strip().strip("*").strip()
        # The reply may repeat the lead-in it was asked for, in whichever language the question was asked.
        for lead in leads:
            if text.lower().startswith(lead.lower()):
                text = text[len(lead) :]
                break
        text = text.strip().strip("*").strip().strip('"').strip()
        return text, "length" if completion.finish_reason == "length" else "stop"


def has_rqrag_tokens(tokenizer) -> bool:
    from rqrag.special_tokens import missing_special_tokens

    return not missing_special_tokens(tokenizer)


def make_prompter(prompting: str, tokenizer, generator=None, prompt_format: str = "auto"):
    """The prompter for `prompting` ("auto": trained if the tokenizer has the RQ-RAG tokens). A generator that
    `takes_messages` (a chat endpoint: no token ids, no RQ-RAG tokens) is prompted with chat messages. A trained
    model's context is laid out in `prompt_format` (`rqrag.prompt_formats`; "auto" decides from the tokenizer)."""
    if getattr(generator, "takes_messages", False):
        if prompting == "trained":
            raise ValueError(
                "a chat endpoint cannot run trained mode (it has no RQ-RAG tokens): use --prompting prompted"
            )
        return ChatPrompter(tokenizer)
    if prompting == "auto":
        prompting = "trained" if has_rqrag_tokens(tokenizer) else "prompted"
    if prompting == "trained" and not has_rqrag_tokens(tokenizer):
        raise ValueError("trained mode needs a tokenizer with the RQ-RAG special tokens (a fine-tuned model)")
    if prompting == "prompted":
        return PromptedPrompter(tokenizer)
    return TrainedPrompter(tokenizer, resolve_prompt_format(prompt_format, tokenizer))
