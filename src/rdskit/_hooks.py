"""Extension points: features the core offers and the layers above it implement.

The core (configuration, HTTP, models, errors, resources, billing, waiting) imports nothing
from ``rdskit.frames``, ``rdskit.jupyter`` or ``rdskit.sandbox`` (``tests/test_layers.py``
checks it). Where a core object offers a feature one of those layers implements (a
resource's ``to_frame()``, the notebook HTML of a model or an error, the live display of
``wait()``, ``Client.sandbox()``), it calls that feature's :class:`Hook`, declared here with
its signature (a protocol): mypy checks every caller against it, and every provider too (the
``TYPE_CHECKING`` block at the end hands each provider to its hook's ``register``).

Each hook names the ``module:attribute`` implementing it; the module is imported the first
time the hook is used. So a script's ``run.wait()`` never loads the Jupyter layer, and
``import rdskit`` loads neither pandas loaders nor the sandbox. :meth:`Hook.register`
replaces the implementation (a test, or a layer replacing a default).

Example:
    >>> from collections.abc import Callable
    >>> root: Hook[Callable[[float], float]] = Hook("math:sqrt")
    >>> root.call(9.0)
    3.0
    >>> root.register(lambda value: -value)
    >>> root.call(9.0)
    -9.0
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

if TYPE_CHECKING:
    import pandas as pd

    from rdskit.answers import Answer
    from rdskit.progress import Reporter
    from rdskit.validation import Codebook

__all__ = ["HOOKS", "Hook"]

F = TypeVar("F", bound=Callable[..., Any])


class Hook(Generic[F]):
    """One extension point: the ``module:attribute`` implementing it and (as the type
    parameter) the signature its callers and its provider share."""

    __slots__ = ("_implementation", "target")

    def __init__(self, target: str) -> None:
        module, _, attribute = target.partition(":")
        if not module or not attribute:
            raise ValueError(f"a hook target is 'module:attribute', got {target!r}")
        self.target = target
        self._implementation: F | None = None

    def __repr__(self) -> str:
        return f"Hook({self.target!r})"

    def register(self, implementation: F) -> None:
        """Make ``implementation`` this hook's (replacing the target or an earlier one)."""
        self._implementation = implementation

    @property
    def call(self) -> F:
        """The implementation, to call: ``hook.call(*args)`` (its module imported the first
        time).

        Raises:
            ImportError: the target's module cannot be imported here (a missing optional
                dependency); the message names the hook.
        """
        if self._implementation is not None:
            return self._implementation
        module, _, attribute = self.target.partition(":")
        try:
            found = cast(F, getattr(import_module(module), attribute))
        except ImportError as exc:
            if getattr(exc, "extra", None):  # rdskit's MissingExtra says what to install
                raise
            raise ImportError(
                f"{self.target} needs {module}, which cannot be imported here: {exc}"
            ) from exc
        self._implementation = found
        return found


# -- the signatures ------------------------------------------------------------------------
class ToFrame(Protocol):
    """A resource's frame of one listing: ``client`` is the sync :class:`~rdskit.Client`."""

    def __call__(self, client: Any) -> pd.DataFrame: ...


class QueryToFrame(Protocol):
    """A listing's frame under the arguments of its ``list()``."""

    def __call__(self, client: Any, **query: Any) -> pd.DataFrame: ...


class MentionsToFrame(Protocol):
    def __call__(self, client: Any, *, cache: bool = ..., **query: Any) -> pd.DataFrame: ...


class MentionsToParquet(Protocol):
    def __call__(self, client: Any, path: str | os.PathLike[str], **options: Any) -> int: ...


class MentionsFrame(Protocol):
    def __call__(
        self, mentions: Iterable[Any], parameter_names: Mapping[str, str] | None = ...
    ) -> pd.DataFrame: ...


class PatternItemsToFrame(Protocol):
    def __call__(self, client: Any, pattern_id: str, posts: bool = ...) -> pd.DataFrame: ...


class MessagesToFrame(Protocol):
    def __call__(self, client: Any, agent_id: str) -> pd.DataFrame: ...


class CodingWidget(Protocol):
    def __call__(
        self,
        frame: pd.DataFrame,
        codebook: Codebook,
        *,
        coder: str,
        sample: pd.DataFrame | None = ...,
        directory: str | os.PathLike[str] = ...,
        blind: bool = ...,
        label: str = ...,
        pseudonymise: str | bytes | None = ...,
    ) -> object: ...


class AdjudicationWidget(Protocol):
    def __call__(
        self,
        frame: pd.DataFrame,
        codebook: Codebook,
        *,
        coders: Sequence[str],
        adjudicator: str,
        sample: pd.DataFrame | None = ...,
        directory: str | os.PathLike[str] = ...,
        label: str = ...,
    ) -> object: ...


class AnswerDisplay(Protocol):
    def __call__(
        self, answer: Answer, fmt: str, record: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]: ...


class Embedded(Protocol):
    """The process's embedded sandbox: a handle with its ``url`` and ``api_key``."""

    def __call__(self) -> EmbeddedHandle: ...


class EmbeddedHandle(Protocol):
    @property
    def url(self) -> str: ...

    @property
    def api_key(self) -> str: ...


# -- the hooks -----------------------------------------------------------------------------
mentions_frame: Hook[MentionsFrame] = Hook("rdskit.frames.mentions:mentions_frame")
mentions_to_frame: Hook[MentionsToFrame] = Hook("rdskit.frames.fetch:mentions_to_frame")
mentions_to_parquet: Hook[MentionsToParquet] = Hook("rdskit.frames.parquet:mentions_to_parquet")
profiles_to_frame: Hook[QueryToFrame] = Hook("rdskit.frames.fetch:profiles_to_frame")
datasets_to_frame: Hook[ToFrame] = Hook("rdskit.frames.fetch:datasets_to_frame")
usage_history_to_frame: Hook[ToFrame] = Hook("rdskit.frames.fetch:usage_history_to_frame")
pattern_items_to_frame: Hook[PatternItemsToFrame] = Hook(
    "rdskit.frames.fetch:pattern_items_to_frame"
)
messages_to_frame: Hook[MessagesToFrame] = Hook("rdskit.frames.fetch:messages_to_frame")
html: Hook[Callable[[object], str | None]] = Hook("rdskit.jupyter.reprs:html_of")
code: Hook[CodingWidget] = Hook("rdskit.jupyter.coding:coding_widget")
adjudicate: Hook[AdjudicationWidget] = Hook("rdskit.jupyter.coding:adjudication_widget")
traceback: Hook[Callable[[BaseException], list[str]]] = Hook(
    "rdskit.jupyter.errors:short_traceback"
)
answer_bundle: Hook[Callable[[Answer], dict[str, str]]] = Hook(
    "rdskit.jupyter.render:answer_bundle"
)
answer_display: Hook[AnswerDisplay] = Hook("rdskit.jupyter.provenance:formatted_bundle")
progress: Hook[Callable[[Any, bool | None], Reporter | None]] = Hook(
    "rdskit.jupyter.progress:reporter"
)
checkpoint_failed: Hook[Callable[[str, str | None, str], bool]] = Hook(
    "rdskit.jupyter.checkpoints:show_failed"
)
announce_client: Hook[Callable[[], None]] = Hook("rdskit.jupyter.session:announce_client")
embedded: Hook[Embedded] = Hook("rdskit.sandbox.server:embedded")

HOOKS: tuple[Hook[Any], ...] = (
    mentions_frame,
    mentions_to_frame,
    mentions_to_parquet,
    profiles_to_frame,
    datasets_to_frame,
    usage_history_to_frame,
    pattern_items_to_frame,
    messages_to_frame,
    html,
    code,
    adjudicate,
    traceback,
    answer_bundle,
    answer_display,
    progress,
    checkpoint_failed,
    announce_client,
    embedded,
)
"""Every hook (``tests/test_layers.py`` resolves each and matches it to its provider below)."""

if TYPE_CHECKING:  # never run: mypy checks each provider against its hook's signature

    def _providers() -> None:
        from rdskit.frames import fetch, parquet
        from rdskit.frames import mentions as frames_mentions
        from rdskit.jupyter import checkpoints, coding, errors, provenance, render, reprs, session
        from rdskit.jupyter import progress as jupyter_progress
        from rdskit.sandbox import server

        mentions_frame.register(frames_mentions.mentions_frame)
        mentions_to_frame.register(fetch.mentions_to_frame)
        mentions_to_parquet.register(parquet.mentions_to_parquet)
        profiles_to_frame.register(fetch.profiles_to_frame)
        datasets_to_frame.register(fetch.datasets_to_frame)
        usage_history_to_frame.register(fetch.usage_history_to_frame)
        pattern_items_to_frame.register(fetch.pattern_items_to_frame)
        messages_to_frame.register(fetch.messages_to_frame)
        html.register(reprs.html_of)
        code.register(coding.coding_widget)
        adjudicate.register(coding.adjudication_widget)
        traceback.register(errors.short_traceback)
        answer_bundle.register(render.answer_bundle)
        answer_display.register(provenance.formatted_bundle)
        progress.register(jupyter_progress.reporter)
        checkpoint_failed.register(checkpoints.show_failed)
        announce_client.register(session.announce_client)
        embedded.register(server.embedded)
