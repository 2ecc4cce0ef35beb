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

# The engine's __all__ is the package's: one list, so the two cannot drift apart.
from rdskit.sandbox.assistant.engine import *  # noqa: F403
from rdskit.sandbox.assistant.engine import __all__ as __all__
