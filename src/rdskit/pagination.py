"""Lazy auto-pagination over the service's cursor lists.

A list call on :class:`~rdskit.Client` returns a :class:`SyncPage`: it holds the first
page (``data``, ``has_next``, ``cursor``) and iterating it walks every item of every page,
fetching the next page only when the previous one is used up. Each next page repeats the
same request (same ``limit``, ``order``, ``sort`` and filters) with the new cursor, as the
service's sort-aware cursors require.

On :class:`~rdskit.AsyncClient` a list call returns an :class:`AsyncPager`: ``await`` it
for the first page, or ``async for`` over every item.

Example:
    >>> first = client.datasets.list(limit=50)  # doctest: +SKIP
    >>> len(first.data), first.has_next  # doctest: +SKIP
    (50, True)
    >>> names = [ds.name for ds in first]  # every dataset, page after page  # doctest: +SKIP
    >>> async for ds in aclient.datasets.list(limit=50):  # doctest: +SKIP
    ...     print(ds.name)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from rdskit._base_client import APIRequest, AsyncAPIClient, Page, SyncAPIClient

__all__ = ["AsyncPage", "AsyncPager", "SyncPage"]

T = TypeVar("T")


class _PageBase(Generic[T]):
    """One fetched page: its items and where the next one starts."""

    def __init__(self, request: APIRequest[T], page: Page[T]) -> None:
        self._request = request
        self.data: list[T] = page.data
        self.has_next: bool = page.has_next
        self.cursor: str | None = page.cursor

    def _next_request(self) -> APIRequest[T] | None:
        # A server that says has_next without a cursor cannot be followed.
        if not self.has_next or not self.cursor:
            return None
        return self._request.with_cursor(self.cursor)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} items={len(self.data)} has_next={self.has_next}>"


class SyncPage(_PageBase[T]):
    """A page of a list call; iterate it to walk every item across all pages."""

    def __init__(self, client: SyncAPIClient, request: APIRequest[T], page: Page[T]) -> None:
        super().__init__(request, page)
        self._client = client

    def next_page(self) -> SyncPage[T] | None:
        """The following page, or None on the last one."""
        request = self._next_request()
        if request is None:
            return None
        client = self._client
        return SyncPage(client, request, client._run(client._core.call_page(request)))

    def pages(self) -> Iterator[SyncPage[T]]:
        """This page and every following one, fetched as the iteration reaches them."""
        page: SyncPage[T] | None = self
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data


class AsyncPage(_PageBase[T]):
    """A page of an async list call."""

    def __init__(self, client: AsyncAPIClient, request: APIRequest[T], page: Page[T]) -> None:
        super().__init__(request, page)
        self._client = client

    async def next_page(self) -> AsyncPage[T] | None:
        """The following page, or None on the last one."""
        request = self._next_request()
        if request is None:
            return None
        return await _fetch(self._client, request)


class AsyncPager(Generic[T]):
    """An async list call: ``await`` it for the first page, ``async for`` for every item."""

    def __init__(self, client: AsyncAPIClient, request: APIRequest[T]) -> None:
        self._client = client
        self._request = request

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return _fetch(self._client, self._request).__await__()

    async def pages(self) -> AsyncIterator[AsyncPage[T]]:
        """Every page, fetched as the iteration reaches it."""
        page: AsyncPage[T] | None = await self
        while page is not None:
            yield page
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.data:
                yield item


async def _fetch(client: AsyncAPIClient, request: APIRequest[T]) -> AsyncPage[T]:
    return AsyncPage(client, request, await client._run(client._core.call_page(request)))
