"""Rich reprs: how rdskit objects look in a notebook (HTML) and in IPython (plain text).

``RdsModel._repr_html_`` and ``RdsError._repr_html_`` call :func:`html_of` (lazily: ``import
rdskit`` never imports IPython); ``%load_ext rdskit`` registers :func:`plain_of` as the
``text/plain`` printer of models. Both return None for objects without a view of their
own, so IPython falls back to the default.

Covered: Dataset, every run (dataset, audience, custom parameter, pattern detection,
tracking), AudienceDataset, Pattern (items table), TrackingAgent, TrackingMessage (text
with post cards), Account (balance in credits and USD, features, limits), Answer, and the
errors: InsufficientCredits (required, available, top-up link), ValidationError (each
field), InvalidParameter (the field), BudgetExceeded, and any other API error.

Example:
    >>> from rdskit.models import Dataset
    >>> ds = Dataset.model_validate({"id": "ds_1", "name": "Oat milk",
    ...     "created_at": "2026-01-01T00:00:00Z", "mentions_count": 120})
    >>> 'class="rds-repr rds-dataset"' in html_of(ds)
    True
    >>> plain_of(ds)
    "Dataset ds_1 'Oat milk': 120 mentions, created 2026-01-01 00:00 UTC"
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

from rdskit._format import credits_text, usd_text
from rdskit._safe import terminal
from rdskit.answers import Answer
from rdskit.errors import (
    APIError,
    BudgetExceeded,
    InsufficientCredits,
    InvalidParameter,
    RdsError,
    ValidationError,
)
from rdskit.jupyter._html import DASH, amount, esc, kv_table, link, number, repr_box, table, when
from rdskit.jupyter.progress import describe, view_parts
from rdskit.jupyter.render import answer_bundle, cited_posts, message_html, post_cards
from rdskit.models import (
    Account,
    AudienceDataset,
    AudienceRun,
    CustomParameterRun,
    Dataset,
    DatasetRun,
    Pattern,
    PatternDetectionRun,
    TrackingAgent,
    TrackingMessage,
    TrackingRun,
)

__all__ = ["html_of", "plain_of"]


# -- HTML -------------------------------------------------------------------------------
@singledispatch
def html_of(obj: Any) -> str | None:
    """The rich HTML of an rdskit object, or None (IPython then uses the plain repr)."""
    return None


@html_of.register
def _(ds: Dataset) -> str:
    rows = [
        ("id", f"<code>{esc(ds.id)}</code>"),
        ("mentions", number(ds.mentions_count)),
        ("images / videos", f"{number(ds.images_count)} / {number(ds.videos_count)}"),
        ("created", when(ds.created_at)),
        ("updated", when(ds.updated_at)),
    ]
    if ds.url:
        rows.append(("web app", link(ds.url, "open")))
    return repr_box("dataset", f"Dataset {esc(ds.name)}", kv_table(rows))


def _run_html(run: Any, extra: list[tuple[str, str]]) -> str:
    view = describe(run)
    rows = [("status", f"<b>{esc(view.status)}</b>")]
    rows += [(label, esc(value)) for label, value in view.counters]
    rows += extra
    body = kv_table(rows)
    if view.steps:
        body += table(
            ["step", "status", "started", "finished"],
            [
                [
                    esc(s.name),
                    esc(s.status),
                    when(s.started, seconds=True),
                    when(s.finished, seconds=True),
                ]
                for s in view.steps
            ],
        )
    return repr_box("run", esc(view.title), body)


@html_of.register
def _(run: DatasetRun) -> str:
    query = run.params.search_query if run.params else None
    searched = getattr(query, "search_query", None) or ", ".join(
        getattr(query, "source_urls", None) or []
    )
    sources = ", ".join(getattr(query, "sources", None) or [])
    extra = [("dataset", f"<code>{esc(run.dataset_id)}</code>")]
    if searched:
        extra.append(("search", esc(searched) + (f" <i>({esc(sources)})</i>" if sources else "")))
    extra += [("created", when(run.created_at)), ("updated", when(run.updated_at))]
    return _run_html(run, extra)


@html_of.register
def _(run: AudienceRun) -> str:
    return _run_html(
        run,
        [
            ("audience dataset", f"<code>{esc(run.audience_dataset_id)}</code>"),
            ("source dataset", f"<code>{esc(run.source_dataset_id)}</code>"),
            ("created", when(run.created_at)),
            ("updated", when(run.updated_at)),
        ],
    )


@html_of.register
def _(run: CustomParameterRun) -> str:
    scope = f"{esc(run.scope.kind)} <code>{esc(run.scope.id)}</code>" if run.scope else DASH
    return _run_html(
        run,
        [
            ("custom parameter", f"<code>{esc(run.custom_parameter_id)}</code>"),
            ("scope", scope),
            ("created", when(run.created_at)),
            ("updated", when(run.updated_at)),
        ],
    )


@html_of.register
def _(run: PatternDetectionRun) -> str:
    return _run_html(
        run,
        [
            ("name", esc(run.name)),
            ("question", esc(run.research_question)),
            ("dataset", f"<code>{esc(run.collection_id)}</code>"),
            ("created", when(run.created_at)),
        ],
    )


@html_of.register
def _(run: TrackingRun) -> str:
    runs = ", ".join(f"<code>{esc(rid)}</code>" for rid in run.dataset_run_ids or []) or DASH
    return _run_html(
        run,
        [
            ("agent", f"<code>{esc(run.agent_id)}</code>"),
            ("dataset runs", runs),
            ("created", when(run.created_at)),
        ],
    )


@html_of.register
def _(audience: AudienceDataset) -> str:
    return repr_box(
        "audience-dataset",
        f"Audience dataset {esc(audience.name)}",
        kv_table(
            [
                ("id", f"<code>{esc(audience.id)}</code>"),
                ("profiles", number(audience.profile_count)),
                ("created", when(audience.created_at)),
                ("updated", when(audience.updated_at)),
            ]
        ),
    )


@html_of.register
def _(pattern: Pattern) -> str:
    items = table(
        ["title", "synopsis", "posts", "item id"],
        [
            [
                f"<b>{esc(item.title)}</b>",
                esc(item.synopsis),
                number(item.post_count),
                f"<code>{esc(item.item_id)}</code>",
            ]
            for item in pattern.items
        ],
    )
    summary = f"<p>{esc(pattern.summary)}</p>" if pattern.summary else ""
    return repr_box("pattern", f"Pattern {esc(pattern.id or '')}", summary + items)


@html_of.register
def _(agent: TrackingAgent) -> str:
    schedule = agent.schedule
    when_runs = (
        " ".join(part for part in (schedule.frequency, schedule.day, schedule.time) if part)
        if schedule
        else DASH
    )
    datasets = ", ".join(f"<code>{esc(d)}</code>" for d in agent.dataset_ids or []) or DASH
    return repr_box(
        "tracking-agent",
        f"Tracking agent {esc(agent.name)}",
        kv_table(
            [
                ("id", f"<code>{esc(agent.id)}</code>"),
                ("state", "paused" if agent.paused else "active"),
                ("schedule", esc(when_runs)),
                ("datasets", datasets),
                ("posts per cycle", number(agent.count)),
                ("comments per post", number(agent.num_comments_per_post)),
                ("last run", when(agent.last_run_at)),
                ("next run", when(agent.next_run_at)),
                ("instructions", esc(agent.instructions)),
            ]
        ),
    )


@html_of.register
def _(message: TrackingMessage) -> str:
    posts, note = cited_posts(message, shown=True)
    cards = post_cards(message.references, posts)
    head = kv_table(
        [
            ("agent", esc(message.agent_name or message.agent_id)),
            ("sent", when(message.created_at)),
            ("new mentions", number(message.new_mention_count)),
            ("comments", number(message.comment_count)),
            ("sentiment score", number(message.sentiment_score)),
        ]
    )
    body = message_html(
        message.text or message.short_preview_message or "", message.references, cards, note=note
    )
    return repr_box("tracking-message", f"Alert {esc(message.message_id)}", head + body)


def _balance(account: Account) -> tuple[str, str]:
    """(credits left, USD left) of the account's usage."""
    usage = account.usage
    if usage is None:
        return DASH, DASH
    credits = (
        usage.credits_total - usage.credits_used
        if usage.credits_total is not None and usage.credits_used is not None
        else None
    )
    usd = (
        usage.balance_total - usage.balance_used
        if usage.balance_total is not None and usage.balance_used is not None
        else None
    )
    return (
        DASH if credits is None else credits_text(credits),
        DASH if usd is None else usd_text(usd),
    )


@html_of.register
def _(account: Account) -> str:
    credits, usd = _balance(account)
    usage = account.usage
    plan = account.plan
    rows = [
        ("user", f"{esc(account.name)} &lt;{esc(account.email)}&gt;"),
        ("team", esc(account.team_name)),
        ("plan", f"{esc(plan.name if plan else None)} ({esc(plan.type if plan else None)})"),
        ("balance", f"<b>{credits} credits</b> ({usd} USD) available"),
    ]
    if usage is not None:
        rows.append(
            (
                "used",
                f"{credits_text(usage.credits_used)} of {credits_text(usage.credits_total)} "
                f"credits ({usd_text(usage.balance_used)} of "
                f"{usd_text(usage.balance_total)} USD)",
            )
        )
        if usage.billing and usage.billing.credit_rate_usd is not None:
            rows.append(("credit rate", f"{amount(usage.billing.credit_rate_usd)} USD"))
        rows.append(("renews", when(usage.renews_at)))
    body = kv_table(rows)
    if plan and plan.features:
        flags = {**plan.features.model_dump(exclude_none=True), **(plan.features.model_extra or {})}
        body += (
            "<p>"
            + " ".join(
                f'<span class="rds-{"yes" if on else "no"}">{"✓" if on else "✗"} {esc(name)}</span>'
                for name, on in flags.items()
            )
            + "</p>"
        )
    if plan and plan.limits:
        limits = {**plan.limits.model_dump(exclude_none=True), **(plan.limits.model_extra or {})}
        body += table(list(limits), [[esc(value) for value in limits.values()]])
    return repr_box("account", f"Account of {esc(account.team_name or account.account_id)}", body)


@html_of.register
def _(answer: Answer) -> str:
    return answer_bundle(answer)["text/html"]


@html_of.register
def _(exc: RdsError) -> str:
    return repr_box("error-info", esc(type(exc).__name__), f"<p>{esc(exc)}</p>", error=True)


@html_of.register
def _(exc: APIError) -> str:
    rows = [
        ("error code", f"<code>{esc(exc.error_code)}</code>"),
        ("HTTP status", esc(exc.status_code)),
        ("request", esc(f"{exc.method} {exc.path}".strip() or None)),
        ("message", esc(exc.message or None)),
        ("transient", "yes: retrying later may work" if exc.transient else "no"),
    ]
    return repr_box("error-info", esc(type(exc).__name__), kv_table(rows), error=True)


@html_of.register
def _(exc: InsufficientCredits) -> str:
    top_up = link(exc.top_up_url, "top up the balance") if exc.top_up_url else DASH
    rows = [
        ("required", _credits_usd(exc.required_credits, exc.required)),
        ("available", _credits_usd(exc.available_credits, exc.available)),
        ("top-up", top_up),
        ("error code", f"<code>{esc(exc.error_code)}</code> (HTTP {esc(exc.status_code)})"),
        ("request", esc(f"{exc.method} {exc.path}".strip() or None)),
        ("note", "nothing started and nothing was charged"),
    ]
    return repr_box("insufficient-credits", "Insufficient credits", kv_table(rows), error=True)


def _credits_usd(credits: Any, usd: Any) -> str:
    if credits is None:
        return f"<b>{usd_text(usd)} USD</b>"
    return f"<b>{credits_text(credits)} credits</b> ({usd_text(usd)} USD)"


@html_of.register
def _(exc: ValidationError) -> str | None:
    issues = exc.errors
    if not issues:
        return html_of.dispatch(APIError)(exc)
    rows = [
        [
            f"<code>{esc('.'.join(str(part) for part in issue.get('loc', ())))}</code>",
            esc(issue.get("msg")),
            esc(issue.get("type")),
        ]
        for issue in issues
    ]
    body = f"<p>{esc(exc.method)} {esc(exc.path)} was rejected (HTTP 422):</p>" + table(
        ["field", "problem", "type"], rows
    )
    return repr_box("validation-error", "Invalid request", body, error=True)


@html_of.register
def _(exc: InvalidParameter) -> str:
    body = kv_table(
        [
            ("field", f"<code>{esc(exc.field)}</code>"),
            ("problem", esc(exc.message)),
            ("note", "checked before sending: no request was made"),
        ]
    )
    return repr_box("invalid-parameter", "Invalid parameter", body, error=True)


@html_of.register
def _(exc: BudgetExceeded) -> str:
    body = kv_table(
        [
            ("call", esc(exc.kind)),
            (
                "estimate",
                f"{credits_text(exc.estimate)} credits" if exc.estimate is not None else "unknown",
            ),
            ("budget left", f"{credits_text(exc.remaining)} credits"),
            ("reason", esc(exc.reason)),
            ("note", f"refused before sending: nothing started; {_raise_budget(exc)}"),
        ]
    )
    title = f"Over the {esc(exc.scope)} budget"
    return repr_box("budget-exceeded", title, body, error=True)


def _raise_budget(exc: BudgetExceeded) -> str:
    if exc.scope == "client":
        return "this client's budget_credits= caps it"
    return "raise it with %rds budget N (rdskit.set_budget(N))"


# -- plain text -------------------------------------------------------------------------
def plain_of(obj: Any) -> str | None:
    """A one-look text form of an rdskit object, or None (the default repr is used).

    The text is terminal-safe: service strings cannot send escape sequences (colours,
    cursor moves, OSC 52 clipboard writes) to the terminal that prints it.
    """
    text = _plain(obj)
    return None if text is None else terminal(text)


@singledispatch
def _plain(obj: Any) -> str | None:
    return None


@_plain.register(DatasetRun)
@_plain.register(AudienceRun)
@_plain.register(CustomParameterRun)
@_plain.register(PatternDetectionRun)
@_plain.register(TrackingRun)
def _(run: Any) -> str:
    view = describe(run)
    return " | ".join([f"{view.title}: {view.status}", *view_parts(view)])


@_plain.register
def _(ds: Dataset) -> str:
    counts = f"{number(ds.mentions_count)} mentions, " if ds.mentions_count is not None else ""
    return f"Dataset {ds.id} {ds.name!r}: {counts}created {when(ds.created_at)}"


@_plain.register
def _(account: Account) -> str:
    credits, usd = _balance(account)
    plan = account.plan.name if account.plan else DASH
    return (
        f"Account {account.email} ({account.team_name}), plan {plan}: "
        f"{credits} credits ({usd} USD) available"
    )


@_plain.register
def _(answer: Answer) -> str:
    return answer_bundle(answer)["text/plain"]
