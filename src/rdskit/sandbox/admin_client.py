"""The client of a running sandbox's ``/sandbox/...`` admin endpoints (accounts, plans,
wallets, seats, keys, chaos).

Example:
    >>> from rdskit.sandbox import start
    >>> with start(speed=100) as sb:
    ...     sb.admin.set_plan(sb.account_id, "Business")
    ...     sb.admin.account(sb.account_id)["plan"]
    'Business'
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx

from rdskit.sandbox.store.accounts import NewAccount

__all__ = ["AdminClient"]


class AdminClient:
    """Calls the ``/sandbox/...`` admin endpoints of a running sandbox.

    Example:
        >>> from rdskit.sandbox import start
        >>> with start(speed=100) as sb:
        ...     acct = sb.admin.create_account(plan="Starter", wallet_usd="5")
        ...     sb.admin.set_plan(acct.account_id, "Business")
        ...     sb.admin.account(acct.account_id)["plan"]
        'Business'
    """

    def __init__(self, url: str, admin_token: str) -> None:
        self._http = httpx.Client(
            base_url=f"{url}/sandbox", headers={"x-admin-token": admin_token}, timeout=30
        )

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self._http.request(method, path, json=body)
        response.raise_for_status()
        return response.json()["data"]

    def create_account(
        self,
        *,
        team_name: str = "Test Team",
        email: str = "owner@example.test",
        name: str | None = None,
        plan: str = "Pro",
        wallet_usd: Decimal | str | None = None,
    ) -> NewAccount:
        """A new account with an owner seat and key (``wallet_usd`` default: plan price)."""
        data = self._call(
            "POST",
            "/accounts",
            {
                "team_name": team_name,
                "email": email,
                "name": name,
                "plan": plan,
                "wallet_usd": None if wallet_usd is None else str(wallet_usd),
            },
        )
        return NewAccount(data["account_id"], data["seat_id"], data["api_key"])

    def account(self, account_id: str) -> dict[str, Any]:
        """Plan, wallet (USD strings: total, used, held, available), seats."""
        result: dict[str, Any] = self._call("GET", f"/accounts/{account_id}")
        return result

    def create_seat(
        self, account_id: str, *, email: str, name: str | None = None, kind: str = "member"
    ) -> str:
        """Add a member or an invitation; returns the seat id."""
        body = {"email": email, "name": name, "kind": kind}
        return str(self._call("POST", f"/accounts/{account_id}/seats", body)["seat_id"])

    def delete_seat(self, seat_id: str) -> None:
        """Remove a seat and its keys."""
        self._call("DELETE", f"/seats/{seat_id}")

    def create_key(self, seat_id: str) -> str:
        """Mint a key for a seat (the raw value is only returned here)."""
        return str(self._call("POST", f"/seats/{seat_id}/keys")["api_key"])

    def revoke_key(self, api_key: str) -> None:
        """Revoke a key: its next call is 401."""
        self._call("POST", "/keys/revoke", {"api_key": api_key})

    def set_plan(self, account_id: str, plan: str) -> None:
        """Trial, Starter, Pro, Business or Legacy."""
        self._call("PUT", f"/accounts/{account_id}/plan", {"plan": plan})

    def set_wallet(
        self,
        account_id: str,
        *,
        total_usd: Decimal | str | None = None,
        used_usd: Decimal | str | None = None,
    ) -> None:
        """Overwrite the wallet's total and/or used USD."""
        body = {
            "total_usd": None if total_usd is None else str(total_usd),
            "used_usd": None if used_usd is None else str(used_usd),
        }
        self._call("PUT", f"/accounts/{account_id}/wallet", body)

    def set_assistant_failure(self, account_id: str, failure: str | None) -> None:
        """``ai_assistant_unavailable``, ``ai_assistant_timeout`` or ``None`` (healthy)."""
        self._call("PUT", f"/accounts/{account_id}/assistant", {"failure": failure})

    def truth(self, posts: list[dict[str, str]]) -> list[dict[str, Any]]:
        """The emulator's truth of ``posts`` (``[{"source", "id"}, ...]``, up to 5,000):
        each one's ``voice``, ``latent_sentiment`` and ``latent_stance`` (support, oppose
        or none on a social topic; null for a product post or an ad) as the generator wrote
        it, ``found`` false for a post the sandbox never collected. Sandbox only: for a
        class to check a validation against (:mod:`rdskit.sandbox.synth.truth`).

        Example:
            >>> from rdskit.sandbox import start
            >>> with start(speed=100) as sb:
            ...     sb.admin.truth([{"source": "reddit", "id": "none"}])[0]["found"]
            False
        """
        found: list[dict[str, Any]] = self._call("POST", "/truth", {"posts": posts})
        return found

    def chaos(self, control: str, **body: Any) -> dict[str, Any]:
        """Set a chaos control (``source``, ``failure``, ``fault``, ``assistant``,
        ``parameter_posts``; see ``rdskit.sandbox.runtime.chaos``); returns the chaos state.

        Example:
            >>> from rdskit.sandbox import start
            >>> with start(speed=100) as sb:
            ...     state = sb.admin.chaos("source", source="tiktok")
            >>> state["unavailable_sources"]
            ['tiktok']
        """
        state: dict[str, Any] = self._call("POST", f"/chaos/{control}", body)
        return state

    def reset_chaos(self) -> None:
        """Turn every chaos control off."""
        self._call("DELETE", "/chaos")

    def set_content_type(self, dataset_id: str, content_type: str) -> None:
        """Fix a dataset's content type (``organic``/``ad``): a run of the other type then
        gets ``collection_content_type_mismatch``."""
        body = {"content_type": content_type}
        self._call("PUT", f"/chaos/datasets/{dataset_id}/content_type", body)

    def change_posts(
        self,
        urls: Sequence[str],
        *,
        deleted: bool = False,
        extra_views: int = 0,
        extra_likes: int = 0,
    ) -> int:
        """Emulator only: delete posts from their platforms (a later ``url`` run by their
        links finds them no more) and/or give them more views and likes; returns how many.

        Example:
            >>> with start(speed=100) as sb:  # doctest: +SKIP
            ...     sb.admin.change_posts(["https://m.tiktok.com/v/7312.html"], deleted=True)
            1
        """
        body = {
            "urls": list(urls),
            "deleted": deleted,
            "extra_views": extra_views,
            "extra_likes": extra_likes,
        }
        return int(self._call("POST", "/posts", body)["posts"])

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()
