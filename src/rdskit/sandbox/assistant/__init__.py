"""The sandbox assistant: a deterministic analytic engine that answers Ask questions.

The package's public surface is the engine's (:mod:`.engine`): :func:`answer` reads a
question with the chat's earlier turns and returns a :class:`Reply`. See
docs/assistant.md for the pipeline and the modules that make it.

Example:
    >>> from rdskit.sandbox.assistant import Scope, answer
    >>> answer("How many posts?", [], [Scope("ds_1", "Oat")]).intent
    'count'
"""

from __future__ import annotations

from rdskit.sandbox.assistant.engine import (
    ASSISTANT_USD_PER_TOKEN,
    INTENTS,
    MOOD_INTENTS,
    OPINION_INTENTS,
    Related,
    Reply,
    Scope,
    Stats,
    Turn,
    answer,
    chat_name,
    count_tokens,
    detect_intent,
    engagement,
    inference_cost,
    period_of,
    pick_datasets,
    plan_question,
    sentiment_label,
)

__all__ = [
    "ASSISTANT_USD_PER_TOKEN",
    "INTENTS",
    "MOOD_INTENTS",
    "OPINION_INTENTS",
    "Related",
    "Reply",
    "Scope",
    "Stats",
    "Turn",
    "answer",
    "chat_name",
    "count_tokens",
    "detect_intent",
    "engagement",
    "inference_cost",
    "period_of",
    "pick_datasets",
    "plan_question",
    "sentiment_label",
]
