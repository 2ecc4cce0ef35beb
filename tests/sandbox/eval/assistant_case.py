"""The shape of one evaluation case of the sandbox assistant (data only, no logic).

A case names a question, the intents its plan must have (in order) and the slots each
intent must carry. Slots left out are not checked, except ``terms`` and ``missing``:
a case that names none expects the plan to search for no keyword at all (instruction and
function words are never search terms).

Slot keys: ``sources`` (set), ``sentiment``, ``content_type`` (``ad``/``organic``),
``terms`` (content terms found in the data, compared by stem), ``missing`` (content terms
that found nothing), ``brands`` (entities, case-insensitive), ``metric``, ``limit``,
``group_by`` (``time`` accepts day, week or month), ``window_days``, ``since`` / ``until``
(ISO date prefixes), ``since_month`` (month number of the window's start).

``after`` holds the chat's earlier questions (a follow-up); ``style`` names the kind of
paraphrase (plain, terse, verbose, typo, polite, imperative, multi, follow, fr, es, de,
pt, absent, unknown, hostile).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One question with the plan it must get."""

    question: str
    intents: tuple[str, ...]
    slots: Mapping[str, Any] = field(default_factory=dict)
    per: tuple[Mapping[str, Any], ...] = ()
    after: tuple[str, ...] = ()
    style: str = "plain"


def q(
    question: str,
    *intents: str,
    after: tuple[str, ...] | str = (),
    style: str = "plain",
    per: tuple[Mapping[str, Any], ...] = (),
    **slots: Any,
) -> Case:
    """A case: ``q("How many negative posts?", "count", sentiment="negative")``."""
    earlier = (after,) if isinstance(after, str) else after
    return Case(question, intents, slots, per, earlier, style)
