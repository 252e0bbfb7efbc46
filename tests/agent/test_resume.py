"""``saved_history``: a saved conversation as the model's history (questions and answers only,
the last ``MAX_RESUMED_MESSAGES``, starting with a question, each message cut to a bound)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from vaultctx.agent.resume import MAX_MESSAGE_CHARS, MAX_RESUMED_MESSAGES, saved_history
from vaultctx.conversations import Message


def texts(history: Sequence[object]) -> list[tuple[str, str]]:
    found = []
    for message in history:
        if isinstance(message, ModelRequest):
            part = message.parts[0]
            assert isinstance(part, UserPromptPart) and isinstance(part.content, str)
            found.append(("user", part.content))
        else:
            assert isinstance(message, ModelResponse)
            answer = message.parts[0]
            assert isinstance(answer, TextPart)
            found.append(("assistant", answer.content))
    return found


def test_questions_and_answers_in_order_other_roles_and_empty_answers_left_out() -> None:
    saved = [
        Message("user", "first?"),
        Message("assistant", "first answer"),
        Message("system", "not for the model"),
        Message("user", "failed?"),
        Message("assistant", "", partial=True),  # nothing arrived
        Message("user", "cut off?"),
        Message("assistant", "half an ans", partial=True),
    ]
    assert texts(saved_history(saved)) == [
        ("user", "first?"),
        ("assistant", "first answer"),
        ("user", "failed?"),
        ("user", "cut off?"),
        ("assistant", "half an ans"),
    ]


def test_a_long_conversation_keeps_its_end_from_a_question_and_bounds_each_message() -> None:
    saved = []
    for n in range(MAX_RESUMED_MESSAGES):
        saved += [Message("user", f"q{n}"), Message("assistant", f"a{n}")]
    saved.append(Message("user", "x" * (MAX_MESSAGE_CHARS + 5)))
    history = texts(saved_history(saved))
    assert len(history) <= MAX_RESUMED_MESSAGES and history[0][0] == "user"
    assert history[-1] == ("user", "x" * MAX_MESSAGE_CHARS)
    assert history[-2] == ("assistant", f"a{MAX_RESUMED_MESSAGES - 1}")


def test_nothing_saved_is_an_empty_history() -> None:
    assert saved_history([]) == []
    assert saved_history([Message("assistant", "orphan answer")]) == []
