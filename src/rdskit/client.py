"""``rdskit.Client`` and ``rdskit.AsyncClient``: the resources over one HTTP core.

Both clients are assembled from the same parts: the resource classes of
``rdskit.resources`` and the top-level calls (``ask``, ``me``, ``usage_history``,
``prices``, ``estimate``, ``wait``) are written once; :class:`Client` runs each call and
returns its value, :class:`AsyncClient` returns an awaitable (and list calls an
``AsyncPager`` for ``async for``).

Example:
    >>> import rdskit
    >>> with rdskit.Client() as client:  # RDSKIT_API_KEY and RDSKIT_BASE_URL  # doctest: +SKIP
    ...     ds = client.datasets.create("Oat milk")
    ...     run = client.datasets.runs.create(ds.id, search_query={"type": "prompt",
    ...         "sources": ["reddit"], "search_query": "oat milk"}, count=50).wait()
    >>> async with rdskit.AsyncClient() as aclient:  # doctest: +SKIP
    ...     ds = await aclient.datasets.get("ds_1")
    ...     async for mention in aclient.mentions.list(dataset_ids=[ds.id]):
    ...         print(mention.title)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, Self

from rdskit import _hooks
from rdskit._base_client import AsyncAPIClient, SyncAPIClient
from rdskit._gateway_auth import announce_to_gateway
from rdskit.billing import BillingMixin
from rdskit.resources.account import AccountMixin
from rdskit.resources.audiences import AudienceDatasets, AudienceProfiles
from rdskit.resources.chats import AskMixin, Chats
from rdskit.resources.custom_parameters import CustomParameters
from rdskit.resources.datasets import Datasets
from rdskit.resources.mentions import Mentions
from rdskit.resources.patterns import PatternDetections, Patterns
from rdskit.resources.research_previews import ResearchPreviews
from rdskit.resources.tracking import TrackingAgents
from rdskit.waiting import WaitingMixin

__all__ = ["AsyncClient", "Client", "latest_client", "remember_client"]


class _Service(AccountMixin, AskMixin, BillingMixin, WaitingMixin):
    """The service's surface, shared by both clients: resources and top-level calls."""

    @cached_property
    def datasets(self) -> Datasets:
        """Datasets and their collection runs (``.runs``)."""
        return Datasets(self)

    @cached_property
    def audience_datasets(self) -> AudienceDatasets:
        """Audience datasets and their profiling runs (``.runs``)."""
        return AudienceDatasets(self)

    @cached_property
    def audience_profiles(self) -> AudienceProfiles:
        """Collected audience profiles (free queries)."""
        return AudienceProfiles(self)

    @cached_property
    def mentions(self) -> Mentions:
        """Collected posts (free queries and lookups)."""
        return Mentions(self)

    @cached_property
    def custom_parameters(self) -> CustomParameters:
        """Extraction rules and their runs (``.runs``)."""
        return CustomParameters(self)

    @cached_property
    def tracking_agents(self) -> TrackingAgents:
        """Scheduled re-collection with alert messages."""
        return TrackingAgents(self)

    @cached_property
    def chats(self) -> Chats:
        """The seat's assistant conversations (``client.ask`` starts them)."""
        return Chats(self)

    @cached_property
    def pattern_detections(self) -> PatternDetections:
        """Pattern detection runs over datasets."""
        return PatternDetections(self)

    @cached_property
    def patterns(self) -> Patterns:
        """Detected patterns and their items."""
        return Patterns(self)

    @cached_property
    def research_previews(self) -> ResearchPreviews:
        """Paid samples of what a search would collect."""
        return ResearchPreviews(self)

    @classmethod
    def sandbox(cls, **options: Any) -> Self:
        """A client of the process's embedded sandbox (started once, stopped at exit).

        No key and no network: the sandbox serves the whole API on a loopback port with a
        ready Pro account. ``options`` are the client's other arguments (``timeout``,
        ``budget_credits``...).

        Example:
            >>> client = Client.sandbox()
            >>> client.me().plan.name
            'Pro'
        """
        handle = _hooks.embedded.call()
        # The mixin has no constructor of its own: each client's (SyncAPIClient's or
        # AsyncAPIClient's, the same arguments) takes the key and the URL.
        make: Callable[..., Self] = cls
        return make(handle.api_key, base_url=handle.url, **options)


class Client(_Service, SyncAPIClient):
    """The blocking client; see :class:`~rdskit._base_client.SyncAPIClient` for arguments.

    Example:
        >>> client = Client("bz_test_0123456789abcdef0123456789abcdef",
        ...                 base_url="http://127.0.0.1:8000")
        >>> client
        Client(base_url='http://127.0.0.1:8000', api_key=SecretKey('bz_test_…#0044f9ce'))
        >>> client.close()
    """

    if not TYPE_CHECKING:  # type checkers keep SyncAPIClient's full signature

        def __init__(self, *args: Any, **options: Any) -> None:
            super().__init__(*args, **options)
            remember_client(self)

    def close(self) -> None:
        """Close the HTTP connections (not those of an ``http_client`` you passed in)."""
        super().close()
        if _made.pop(id(self), None) is not None:
            announce_to_gateway()


# The open Clients of this process, oldest first (weak: a client nobody holds is gone):
# a notebook's magics use the last one the user made (rdskit.jupyter.session).
_made: dict[int, weakref.ref[Client]] = {}


def remember_client(client: Client) -> None:
    """Make ``client`` the process's latest (``%rds connect`` does, for a client it checked).

    Example:
        >>> first, second = Client.sandbox(), Client.sandbox()
        >>> remember_client(first)
        >>> latest_client() is first
        True
    """
    _made.pop(id(client), None)
    _made[id(client)] = weakref.ref(client)
    announce_to_gateway()


def latest_client() -> Client | None:
    """The last :class:`Client` made (or remembered) in this process and not closed.

    Example:
        >>> client = Client.sandbox()
        >>> latest_client() is client
        True
        >>> client.close()
    """
    for key, ref in reversed(list(_made.items())):
        client = ref()
        if client is not None:
            return client
        _made.pop(key, None)
    return None


if TYPE_CHECKING:
    # Type checkers see the generated signatures (rdskit/_async.pyi, from rdskit/_stubgen.py):
    # the same methods, returning awaitables and AsyncPager.
    from rdskit._async import AsyncClient as AsyncClient
else:

    class AsyncClient(_Service, AsyncAPIClient):
        """The asyncio client: the same arguments and resources as :class:`Client`, but
        every call returns an awaitable and list calls return an ``AsyncPager``.

        Example:
            >>> async def main() -> None:
            ...     async with AsyncClient() as client:
            ...         print((await client.me()).email)
        """
