"""Lazy auto-pagination over the service's cursor lists.

A list call on :class:`~rdskit.Client` returns a :class:`SyncPage`: it holds the first
page (``data``, ``has_next``, ``cursor``) and iterating it walks every item of every page,
fetching the next page only when the previous one is used up. Each next page repeats the
same request (same ``limit``, ``order``, ``sort`` and filters) with the new cursor, as the
service's sort-aware cursors require.

A walk stops with :class:`~rdskit.errors.RepeatedCursor` when the service sends a cursor
it sent before (it would loop), and with :class:`~rdskit.errors.TooManyPages` past the
client's ``max_pages``: a broken or hostile service cannot page the client forever. A walk
told how many items the list holds (``page.expecting(dataset.mentions_count)``) stops far
sooner, with :class:`~rdskit.errors.BeyondDeclaredSize`, once it has read twice that many
items plus two pages, or more pages than that many items fill twice over plus two: a server
sending a new cursor forever is stopped in time and memory proportional to the dataset
(cursors are remembered as 16-byte digests, whatever their length).

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

import hashlib
from collections.abc import AsyncIterator, Generator, Iterator
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from rdskit.errors import BeyondDeclaredSize, RepeatedCursor, TooManyPages

if TYPE_CHECKING:
    from rdskit._base_client import APIRequest, AsyncAPIClient, Page, SyncAPIClient

__all__ = ["AsyncPage", "AsyncPager", "PageWalk", "SyncPage"]

T = TypeVar("T")


class PageWalk:
    """The cursors one walk over a list has followed: refuses a cursor seen before and a
    page past ``max_pages``.

    Example:
        >>> walk = PageWalk("GET", "/v1/datasets", max_pages=10)
        >>> walk.follow(True, "c1")
        'c1'
        >>> walk.follow(True, "c1")
        Traceback (most recent call last):
        ...
        rdskit.errors.RepeatedCursor: GET /v1/datasets sent a cursor it had already sent ...
    """

    def __init__(self, method: str, path: str, *, max_pages: int, first_cursor: Any = None) -> None:
        self._where = (method, path)
        self._max_pages = max_pages
        self._seen: set[bytes] = {_digest(first_cursor)} if isinstance(first_cursor, str) else set()
        self.pages = 1
        self.items = 0  # items of the pages followed from (this walk's first page on)
        self._declared: tuple[int, int] | None = None  # (items the list holds, page limit)
        self._field = "mentions_count"  # what declared it, named in the error

    def expect(self, items: int, limit: int, field: str = "mentions_count") -> None:
        """Bound the walk by what the list says it holds: ``items`` (declared by ``field``)
        in pages of ``limit``."""
        self._declared = (max(int(items), 0), max(int(limit), 1))
        self._field = field

    @classmethod
    def of(cls, request: APIRequest[Any], max_pages: int) -> PageWalk:
        """The walk that starts with ``request`` (its own cursor, if any, counts as seen)."""
        cursor = (request.json or {}) if request.cursor_in == "json" else (request.params or {})
        first = cursor.get("cursor") if hasattr(cursor, "get") else None
        return cls(request.method, request.path, max_pages=max_pages, first_cursor=first)

    def copy(self) -> PageWalk:
        """A walk that goes on from here on its own (another iteration from the same page
        must not find this one's cursors)."""
        other = PageWalk(*self._where, max_pages=self._max_pages)
        other._seen = set(self._seen)
        other.pages, other.items, other._declared = self.pages, self.items, self._declared
        other._field = self._field
        return other

    def follow(self, has_next: bool, cursor: str | None, items: int = 0) -> str | None:
        """The cursor of the next page, or None at the end (a server that says has_next
        without a cursor cannot be followed).

        Raises:
            RepeatedCursor: ``cursor`` was followed before in this walk.
            TooManyPages: the next page would be past ``max_pages``.
            BeyondDeclaredSize: the walk went well past what the list says it holds.
        """
        self.items += items
        if not has_next or not cursor:
            return None
        method, path = self._where
        digest = _digest(cursor)
        if digest in self._seen:
            raise RepeatedCursor(method, path, pages=self.pages)
        if self.pages >= self._max_pages:
            raise TooManyPages(method, path, pages=self._max_pages)
        if self._declared is not None:
            declared, limit = self._declared
            page_cap = 2 * -(-declared // limit) + 2
            if self.items > 2 * declared + 2 * limit or self.pages >= page_cap:
                raise BeyondDeclaredSize(
                    method,
                    path,
                    pages=self.pages,
                    items=self.items,
                    declared=declared,
                    field=self._field,
                )
        self._seen.add(digest)
        self.pages += 1
        return cursor


def _digest(cursor: str) -> bytes:
    """A cursor as 16 bytes: what a walk remembers, however long the server made it."""
    return hashlib.blake2b(cursor.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _PageBase(Generic[T]):
    """One fetched page: its items and where the next one starts."""

    def __init__(self, request: APIRequest[T], page: Page[T], walk: PageWalk) -> None:
        self._request = request
        self._walk = walk
        self.data: list[T] = page.data
        self.has_next: bool = page.has_next
        self.cursor: str | None = page.cursor

    def _next_request(self, walk: PageWalk) -> APIRequest[T] | None:
        """The request of the page after this one, followed on ``walk``."""
        cursor = walk.follow(self.has_next, self.cursor, len(self.data))
        return None if cursor is None else self._request.with_cursor(cursor)

    def expecting(
        self, items: int | None, limit: int | None = None, field: str = "mentions_count"
    ) -> Self:
        """This page, its walks bounded by what the list says it holds (``items``, e.g. a
        dataset's ``mentions_count``, named by ``field``; None: unbounded) in pages of
        ``limit`` (default: the request's ``limit``, else this page's length): past twice
        that, plus two pages, a walk raises :class:`~rdskit.errors.BeyondDeclaredSize`.

        Example:
            >>> ds = client.datasets.get("ds_1")  # doctest: +SKIP
            >>> rows = list(client.mentions.list(dataset_ids=[ds.id]).expecting(
            ...     ds.mentions_count))  # doctest: +SKIP
        """
        if items is not None:
            asked = (self._request.json or {}) if self._request.cursor_in == "json" else None
            asked = asked if asked is not None else (self._request.params or {})
            wanted = limit or (asked.get("limit") if hasattr(asked, "get") else None)
            self._walk.expect(items, int(wanted or len(self.data) or 1), field)
        return self

    def __repr__(self) -> str:
        return f"<{type(self).__name__} items={len(self.data)} has_next={self.has_next}>"


class SyncPage(_PageBase[T]):
    """A page of a list call; iterate it to walk every item across all pages."""

    def __init__(
        self,
        client: SyncAPIClient,
        request: APIRequest[T],
        page: Page[T],
        walk: PageWalk | None = None,
    ) -> None:
        super().__init__(request, page, walk or PageWalk.of(request, client._core.max_pages))
        self._client = client

    def next_page(self) -> SyncPage[T] | None:
        """The following page, or None on the last one (asking twice fetches it twice)."""
        return self._following(self._walk.copy())

    def _following(self, walk: PageWalk) -> SyncPage[T] | None:
        request = self._next_request(walk)
        if request is None:
            return None
        client = self._client
        page = client._run(client._core.call_page(request))
        return SyncPage(client, request, page, walk)

    def pages(self) -> Iterator[SyncPage[T]]:
        """This page and every following one, fetched as the iteration reaches them (each
        iteration is a walk of its own: iterating a page twice is two walks)."""
        walk = self._walk.copy()
        page: SyncPage[T] | None = self
        while page is not None:
            yield page
            page = page._following(walk)

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.data


class AsyncPage(_PageBase[T]):
    """A page of an async list call."""

    def __init__(
        self, client: AsyncAPIClient, request: APIRequest[T], page: Page[T], walk: PageWalk
    ) -> None:
        super().__init__(request, page, walk)
        self._client = client

    async def next_page(self) -> AsyncPage[T] | None:
        """The following page, or None on the last one (asking twice fetches it twice)."""
        return await self._following(self._walk.copy())

    async def _following(self, walk: PageWalk) -> AsyncPage[T] | None:
        request = self._next_request(walk)
        if request is None:
            return None
        return await _fetch(self._client, request, walk)


class AsyncPager(Generic[T]):
    """An async list call: ``await`` it for the first page, ``async for`` for every item."""

    def __init__(self, client: AsyncAPIClient, request: APIRequest[T]) -> None:
        self._client = client
        self._request = request

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        walk = PageWalk.of(self._request, self._client._core.max_pages)
        return _fetch(self._client, self._request, walk).__await__()

    async def pages(self) -> AsyncIterator[AsyncPage[T]]:
        """Every page, fetched as the iteration reaches it."""
        first = await self
        walk = first._walk  # a new walk, made by the await
        page: AsyncPage[T] | None = first
        while page is not None:
            yield page
            page = await page._following(walk)

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.data:
                yield item


async def _fetch(client: AsyncAPIClient, request: APIRequest[T], walk: PageWalk) -> AsyncPage[T]:
    page = await client._run(client._core.call_page(request))
    return AsyncPage(client, request, page, walk)
