"""An instructor's wallet controls for a learner's sandbox database, without serving it:
``rdskit sandbox --db FILE --plan Trial --top-up 1000`` (or ``--reset-wallet``).

A learner who spent their wallet meets a 402 (``InsufficientCredits*``) on the next paid
cell; the sandbox has no billing page, so the instructor tops the wallet up on the file
(``RDSKIT_SANDBOX_DB`` of the learner's server; stop their kernels first: one kernel at a
time per file).

Example:
    >>> import tempfile, pathlib
    >>> from rdskit.sandbox.store.db import Store
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "alice.db"
    >>> Store(db).close()  # a sandbox file that exists (made by the learner's kernels)
    >>> print(adjust(db, plan="Trial", reset=True))
    Trial plan; wallet: 1,000 credits, 0 used, 1,000 left
    >>> print(adjust(db, top_up=500))
    Trial plan; wallet: 1,500 credits, 0 used, 1,500 left
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

from rdskit.errors import ConfigurationError
from rdskit.sandbox.store.accounts import PLANS, bootstrap, set_plan, set_wallet
from rdskit.sandbox.store.db import DatabaseUnusable, Store

__all__ = ["adjust"]


def adjust(
    db: str | os.PathLike[str],
    *,
    plan: str | None = None,
    top_up: Decimal | int | None = None,
    reset: bool = False,
) -> str:
    """Set the default account's ``plan``, reset its wallet to one allotment of the plan
    (``reset``), then add ``top_up`` credits; returns the wallet in one line.

    ``db`` must be an existing sandbox file (a typo would otherwise make a new, empty
    one); a :class:`~rdskit.errors.ConfigurationError` names it when it is not.
    """
    path = Path(db).expanduser()
    if not path.is_file():
        raise DatabaseUnusable(str(path), "there is no such file", "--db")
    names = {name.lower(): name for name in PLANS}
    if plan is not None and plan.strip().lower() not in names:
        raise ConfigurationError(f"--plan {plan!r} is not a sandbox plan: {', '.join(PLANS)}")
    with Store(path) as store, store.transaction() as conn:
        account_id = bootstrap(conn)
        if plan is not None:
            set_plan(conn, account_id, names[plan.strip().lower()])
        row = conn.execute(
            "SELECT a.plan, w.total_usd, w.used_usd FROM accounts a"
            " JOIN wallets w ON w.account_id = a.id WHERE a.id = ?",
            (account_id,),
        ).fetchone()
        terms = PLANS[row["plan"]]
        total, used = Decimal(row["total_usd"]), Decimal(row["used_usd"])
        if reset:
            total, used = terms.allotment_usd(), Decimal(0)
        if top_up:
            total += terms.unit_usd(Decimal(top_up))
        set_wallet(conn, account_id, total_usd=total, used_usd=used)
    rate = terms.rate()
    if rate is None:  # Legacy bills in USD
        return f"{terms.name} plan; wallet: {total:,} USD, {used:,} used, {total - used:,} left"
    credits = [round(amount / rate) for amount in (total, used, total - used)]
    return (
        f"{terms.name} plan; wallet: {credits[0]:,} credits, {credits[1]:,} used, "
        f"{credits[2]:,} left"
    )
