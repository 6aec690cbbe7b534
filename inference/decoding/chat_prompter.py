"""Prompted mode for a chat endpoint (`backends/chat_endpoint.py`): the prompted-mode instructions sent as chat
messages instead of token ids. Chosen by `prompting.make_prompter` for a generator with `takes_messages`.
"""

from __future__ import annotations

from rqrag.inference.backends.base import ChatPrompt, Completion, GenerationRequest, SamplingParams
from rqrag.inference.decoding.prompt_text import PROMPT_TEXT, prompt_text
from rqrag.inference.decoding.prompting import PromptedPrompter
from rqrag.inference.decoding.tree import Path, Question
from rqrag.trajectory import Action, ParsedStep, parse_generation


class ChatPrompter(PromptedPrompter):
    """Prompted mode for a chat endpoint: the same instructions, sent as messages instead of token ids.

    The lead-in the token-id backends write into the assistant's turn ("Search query:") cannot be prefilled
    through the chat API, so the user turn asks for it and `parse` removes it when the reply repeats it.
    """

    mode = "prompted"

    def chat_messages(self, question: Question, path: Path, action: Action) -> tuple[tuple[str, str], ...]:
        messages = self.messages(question, path, action)
        words = prompt_text(question.language)
        messages[-1]["content"] += "\n" + words.reply_format.format(lead=words.lead(action))
        return tuple((m["role"], m["content"]) for m in messages)

    def request(self, question: Question, path: Path, action: Action, params: SamplingParams, seed: int):
        messages = self.chat_messages(question, path, action)
        # The local tokenizer's count stands in for the endpoint's (context check, statistics), and the ids
        # address the content: the same messages give the same ids, so identical expansions merge.
        text = "\n\n".join(f"{role}: {content}" for role, content in messages)
        ids = tuple(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        return GenerationRequest(prompt_ids=ids, params=params, seed=seed, chat=ChatPrompt(messages, stop=("\n",)))

    def parse(self, action: Action, completion: Completion) -> ParsedStep:
        lines = [line for line in completion.text.strip().splitlines() if line.strip()]
        text = lines[0] if lines else ""  # one line, even from an endpoint that ignored the stop string
        text = text.strip().strip("*").strip()
        # The reply may repeat the lead-in it was asked for, in whichever language the question was asked.
        for lead in {words.lead(action) for words in PROMPT_TEXT.values()}:
            if text.lower().startswith(lead.lower()):
                text = text[len(lead) :]
                break
        text = text.strip().strip("*").strip().strip('"').strip()
        return parse_generation(action, text, "length" if completion.finish_reason == "length" else "stop")
