"""Call the service's MCP tools from Python or a notebook, with the official MCP client.

The MCP server lives at ``<base_url>/mcp/`` and takes the same ``x-api-key`` as REST.
:class:`McpSession` is a blocking wrapper (its event loop runs on a private thread, so it
also works inside Jupyter, whose own loop is already running); async code can use
:func:`open_mcp` to get the SDK's ``mcp.Client`` directly.

Tool errors (``{error: {code, message, status}}`` in the tool result) raise
:class:`McpToolError`; transport errors (401, 403, 429) raise the SDK's ``MCPError``.

Example:
    >>> with McpSession(api_key, base_url=sandbox.url) as mcp:  # doctest: +SKIP
    ...     started = mcp.call("ask", message="How does sentiment split?")
    ...     reply = mcp.call("get_message", **started)
    ...     print(reply["blocks"][0]["text"])
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, ExitStack, asynccontextmanager
from typing import Any

from rdskit._extras import require

require("mcp", "rdskit.mcp")

import httpx2  # noqa: E402  (after the check that names the extra)
from anyio.from_thread import BlockingPortal, start_blocking_portal  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

from rdskit._config import SecretKey, resolve_api_key, resolve_base_url  # noqa: E402

__all__ = ["TOOL_PREFIX", "McpSession", "McpToolError", "mcp_url", "open_mcp", "tool_result"]

TOOL_PREFIX = "service__"
_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # get_message long-polls for minutes


class McpToolError(Exception):
    """A tool answered ``{error: {code, message, status}}`` (same codes as REST)."""

    def __init__(self, tool: str, code: str, message: str, status: int | None) -> None:
        super().__init__(f"{tool}: {code} ({status}): {message}")
        self.tool = tool
        self.code = code
        self.message = message
        self.status = status


def mcp_url(base_url: str | None = None) -> str:
    """The MCP endpoint of the service (``base_url`` or ``RDSKIT_BASE_URL``).

    The trailing slash matters: ``/mcp`` answers 307, which some clients follow by
    dropping the body.

    Example:
        >>> mcp_url("http://127.0.0.1:8000/v1")
        'http://127.0.0.1:8000/mcp/'
    """
    return resolve_base_url(base_url) + "/mcp/"


def tool_result(name: str, result: CallToolResult) -> dict[str, Any]:
    """The structured content of a tool result; a tool error raises :class:`McpToolError`."""
    data = dict(result.structured_content or {})
    error = data.get("error")
    if result.is_error or isinstance(error, dict):
        details = error if isinstance(error, dict) else {}
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise McpToolError(
            name,
            str(details.get("code", "tool_error")),
            str(details.get("message", text)),
            details.get("status"),
        )
    return data


@asynccontextmanager
async def open_mcp(
    api_key: str | SecretKey | None = None, *, base_url: str | None = None
) -> AsyncIterator[Client]:
    """An initialized official ``mcp.Client`` on the service's MCP endpoint (async code).

    ``api_key`` and ``base_url`` default to ``RDSKIT_API_KEY`` and ``RDSKIT_BASE_URL``.

    Example:
        >>> async with open_mcp(api_key) as client:  # doctest: +SKIP
        ...     tools = await client.list_tools()
    """
    key = SecretKey(resolve_api_key(api_key))

    def sign(request: httpx2.Request) -> httpx2.Request:
        # The key joins the headers as the request leaves: no dict or local holds it.
        request.headers["x-api-key"] = key.reveal()
        return request

    url = mcp_url(base_url)
    async with httpx2.AsyncClient(auth=sign, timeout=_TIMEOUT) as http:
        try:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                yield client
        except BaseExceptionGroup as group:  # the SDK's task groups wrap transport errors
            error = _first_mcp_error(group)
            if error is None:
                raise
            raise error from None


def _first_mcp_error(group: BaseExceptionGroup[Any]) -> MCPError | None:
    for exc in group.exceptions:
        found = _first_mcp_error(exc) if isinstance(exc, BaseExceptionGroup) else exc
        if isinstance(found, MCPError):
            return found
    return None


class McpSession(AbstractContextManager["McpSession"]):
    """A blocking MCP session: list tools and call them with keyword arguments.

    Tool names may omit the ``service__`` prefix. Close it (or use ``with``) when done.

    Example:
        >>> with McpSession(api_key, base_url=url) as mcp:  # doctest: +SKIP
        ...     mcp.tools()[:2]
        ['service__ask', 'service__get_message']
    """

    def __init__(
        self, api_key: str | SecretKey | None = None, *, base_url: str | None = None
    ) -> None:
        self._stack = ExitStack()
        try:
            self._portal: BlockingPortal = self._stack.enter_context(start_blocking_portal())
            connection = self._portal.wrap_async_context_manager(
                open_mcp(api_key, base_url=base_url)
            )
            self._client: Client = self._stack.enter_context(connection)
        except BaseException:
            self._stack.close()
            raise

    def tools(self) -> list[str]:
        """The server's tool names."""
        listed = self._portal.call(self._client.list_tools)
        return [tool.name for tool in listed.tools]

    def call(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """Call ``tool`` (prefix optional) and return its structured result."""
        name = tool if tool.startswith(TOOL_PREFIX) else TOOL_PREFIX + tool
        result = self._portal.call(self._client.call_tool, name, arguments)
        return tool_result(name, result)

    def close(self) -> None:
        """End the session and stop its event loop thread."""
        self._stack.close()

    def __exit__(self, *exc: object) -> None:
        self.close()
