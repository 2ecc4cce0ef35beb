"""Read endpoints of the gateway for the JupyterLab extension (``labextension/``).

``GET /rdskit/lab/summary`` (Jupyter server authentication: the browser's session cookie
or token and XSRF check, like every ``/api`` route; kernels' gateway tokens do not open it)
answers what the status bar item and the side panel show::

    {"connected": {"mode": "sandbox", "upstream": "http://127.0.0.1:…"},
     "account": {"email": …, "team": …, "plan": …, "credits_left": "990 credits"},
     "datasets": [{"id": …, "name": …, "runs": [{"id": …, "status": "working",
                   "share": 0.5, "mentions": "200 requested"}]}],
     "runs_in_flight": 1, "tracking_agents": 0, "rate_limit": 5.0, "queued": 0,
     "age": 0.4, "next_poll": 5.0}

Every upstream read goes through the gateway's shared request bucket
(:meth:`Gateway.forward`, the one the kernels use), and a summary is reused for
:data:`MIN_INTERVAL` seconds whoever asks (several tabs, several panels): the panel's
polling costs at most ``2 + datasets shown`` requests every :data:`MIN_INTERVAL` seconds,
never more than the bucket allows. Service data is returned as JSON strings; the
extension renders them as text only (``textContent``).

Example:
    >>> [pattern for pattern, *_ in lab_handlers(None, "/")]  # doctest: +SKIP
    ['/rdskit/lab/summary']
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import TYPE_CHECKING, Any

from jupyter_server.base.handlers import APIHandler
from tornado import web

from rdskit._format import credits_text
from rdskit.models import Account, Dataset, DatasetRun
from rdskit.runs import describe

if TYPE_CHECKING:
    from rdskit.jupyter.gateway import Gateway

__all__ = ["DATASETS_SHOWN", "MIN_INTERVAL", "LabSummary", "lab_handlers"]

MIN_INTERVAL = 5.0
"""Seconds a summary is reused before the service is read again."""
DATASETS_SHOWN = 8
"""The most recent datasets the panel lists (each costs one read of its runs)."""
RUNS_SHOWN = 3


class LabSummary:
    """Builds and caches the summary; one read at a time, shared by every caller."""

    def __init__(self, gateway: Gateway, clock: Any = time.monotonic) -> None:
        self.gateway = gateway
        self._clock = clock
        self._cached: tuple[float, dict[str, Any]] | None = None
        self._lock: asyncio.Lock | None = None

    async def get(self) -> dict[str, Any]:
        """The summary, read again once :data:`MIN_INTERVAL` has passed."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # callers arriving during a read share its result
            now = self._clock()
            if self._cached is None or now - self._cached[0] >= MIN_INTERVAL:
                self._cached = (now, await self._read())
            at, summary = self._cached
        return {**summary, "age": round(self._clock() - at, 1), "next_poll": MIN_INTERVAL}

    async def _json(self, path: str, query: str = "") -> Any:
        response = await self.gateway.forward("GET", path, query, b"", {})
        if response.status_code != 200:
            raise web.HTTPError(502, f"the service answered {response.status_code} on {path}")
        return json.loads(response.content)

    async def _read(self) -> dict[str, Any]:
        status = self.gateway.status()
        me = Account.model_validate(_data(await self._json("v1/me")))
        page = await self._json("v1/datasets", f"limit={DATASETS_SHOWN}")
        datasets = [Dataset.model_validate(row) for row in _rows(page)]
        shown, in_flight = [], 0
        for dataset in datasets:
            runs_page = await self._json(f"v1/datasets/{dataset.id}/runs", f"limit={RUNS_SHOWN}")
            runs = []
            for row in _rows(runs_page):
                run = DatasetRun.model_validate(row)
                view = describe(run)
                in_flight += run.status.type not in ("completed", "failed")
                counters = dict(view.counters)
                runs.append(
                    {
                        "id": run.id,
                        "status": view.status,
                        "share": view.fraction,
                        "mentions": counters.get("mentions", ""),
                    }
                )
            shown.append({"id": dataset.id, "name": dataset.name, "runs": runs})
        agents = _rows(await self._json("v1/tracking_agents"))
        usage = me.usage
        left = (
            None
            if usage is None or usage.credits_total is None or usage.credits_used is None
            else f"{credits_text(usage.credits_total - usage.credits_used)} credits"
        )
        return {
            "connected": {"mode": status["mode"], "upstream": status["upstream"]},
            "account": {
                "email": me.email,
                "team": me.team_name,
                "plan": me.plan.name if me.plan else None,
                "credits_left": left,
            },
            "datasets": shown,
            "runs_in_flight": in_flight,
            "tracking_agents": len(agents),
            "rate_limit": status["rate_limit"],
            "queued": status["queued"],
        }


def _data(body: Any) -> Any:
    """The service's envelope (``{"data": ...}``) or the body itself."""
    return body["data"] if isinstance(body, dict) and "data" in body else body


def _rows(body: Any) -> list[Any]:
    rows = _data(body)
    return rows if isinstance(rows, list) else []


class SummaryHandler(APIHandler):
    """``GET /rdskit/lab/summary`` for the JupyterLab extension (server auth required)."""

    summary: LabSummary

    def initialize(self, summary: LabSummary) -> None:
        self.summary = summary

    @web.authenticated
    async def get(self) -> None:
        try:
            body = await self.summary.get()
        except (OSError, RuntimeError, ValueError) as exc:
            raise web.HTTPError(
                502, f"the service could not be read ({type(exc).__name__})"
            ) from None
        self.finish(json.dumps(body))


def lab_handlers(gateway: Gateway, base_url: str = "/") -> list[tuple[str, type, dict[str, Any]]]:
    """The routes of the extension's endpoints under ``base_url``."""
    root = base_url.rstrip("/") + "/rdskit/lab"
    return [(f"{root}/summary", SummaryHandler, {"summary": LabSummary(gateway)})]
