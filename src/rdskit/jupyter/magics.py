"""The IPython magics: ``%rds`` and ``%%ask``, loaded by ``%load_ext rdskit``.

``%rds connect [--sandbox | --base-url URL]``, ``%rds status``, ``%rds datasets``,
``%rds budget [N | off]``, ``%rds chat [new]``; ``%%ask [--dataset ID ...] [--posts DF]
[--chat ID | --new] [--out NAME] [--timeout S]`` with the question as the cell body.
Every magic takes ``--help``. See ``docs/jupyter.md``.

Example (notebook cells)::

    %load_ext rdskit
    %rds connect --sandbox

    %%ask --dataset ds_123 --out answer
    What do people complain about most?
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import pandas as pd
from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from rdskit.billing import Budget
from rdskit.client import Client
from rdskit.errors import ConfigurationError, RdsError
from rdskit.jupyter._html import amount, esc, kv_table, repr_box
from rdskit.jupyter.discovery import gateway_status
from rdskit.jupyter.reprs import html_of, plain_of
from rdskit.jupyter.session import SANDBOX_ORIGIN, Session
from rdskit.models import Account
from rdskit.models._base import RdsModel

__all__ = ["RdsMagics", "load", "session_of", "status_bundle", "unload"]

COMMANDS = ("connect", "status", "datasets", "budget", "chat")


@magics_class
class RdsMagics(Magics):
    """``%rds`` and ``%%ask``; ``self.session`` holds the client and the current chat."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.session = Session()

    # -- %rds -----------------------------------------------------------------------------
    @magic_arguments()
    @argument("-h", "--help", action="store_true", help="show this help")
    @argument("command", nargs="?", choices=COMMANDS, help="what to do (see above)")
    @argument("value", nargs="?", help="budget: credits or 'off'; chat: 'new'")
    @argument("--sandbox", action="store_true", help="connect: the embedded offline sandbox")
    @argument(
        "--base-url",
        metavar="URL",
        help="connect: the service root URL (key from RDSKIT_API_KEY, else a hidden prompt)",
    )
    @line_magic
    def rds(self, line: str) -> Any:
        """Connect to the Research Data Service and look at the session.

        connect   the server's gateway or RDSKIT_API_KEY/RDSKIT_BASE_URL; --base-url URL
                  asks for the key (hidden) unless RDSKIT_API_KEY is set; --sandbox: the
                  offline sandbox. The key is never echoed or stored in the notebook.
        status    account, plan, balance in credits and USD, rate-limit headroom
        datasets  the account's datasets (returns a DataFrame)
        budget N  refuse this session's paid calls beyond N credits in total
                  ('off' lifts it; without N: show what remains)
        chat new  the next %%ask starts a new chat ('chat' alone: the current chat)
        """
        args = parse_argstring(self.rds, line)
        if args.help or args.command is None:
            print(self.rds.parser.format_help())
            return None
        if args.command != "connect" and (args.sandbox or args.base_url):
            raise UsageError("--sandbox and --base-url go with %rds connect")
        handler = getattr(self, f"_rds_{args.command}")
        return handler(args.value, args)

    def _rds_connect(self, value: str | None, args: Any) -> None:
        if value is not None:
            raise UsageError(f"%rds connect takes no value (got {value!r})")
        if args.sandbox and args.base_url:
            raise UsageError("choose one of --sandbox and --base-url")
        try:
            if args.sandbox:
                self.session.connect(Client.sandbox(), SANDBOX_ORIGIN)
            else:
                self.session.connect_service(args.base_url)
        except ConfigurationError as exc:
            raise UsageError(str(exc)) from None
        try:
            me = self._client().me()
        except RdsError:
            self.session.close()  # a failed connect leaves no half-working session
            raise
        plan = me.plan.name if me.plan else "unknown"
        print(f"Connected to {self.session.origin} as {me.email} ({me.team_name}, plan {plan}).")

    def _rds_status(self, value: str | None, args: Any) -> None:
        client = self._client()
        me = client.me()
        display(
            status_bundle(
                me,
                origin=self.session.origin,
                rate=client._core.rate_limit_headers,
                gateway=gateway_status(client),
                budget=client.budget,
                chat_id=self.session.chat_id,
            ),
            raw=True,
        )

    def _rds_datasets(self, value: str | None, args: Any) -> pd.DataFrame:
        from rdskit.frames import datasets_to_frame

        return datasets_to_frame(self._client())

    def _rds_budget(self, value: str | None, args: Any) -> None:
        client = self._client()
        if value is None:
            budget = client.budget
            if budget is None:
                print("No budget: paid calls are not limited by this session.")
            else:
                print(f"Budget: {amount(budget.remaining)} of {amount(budget.total)} credits left.")
            return
        if value == "off":
            client._budget = None
            print("Budget lifted: paid calls are no longer limited by this session.")
            return
        try:
            client._budget = Budget(Decimal(value))
        except (InvalidOperation, ValueError) as exc:
            raise UsageError(
                f"%rds budget takes a number of credits or 'off', got {value!r}"
            ) from exc
        print(
            f"Budget: {value} credits. A paid call whose estimate exceeds what remains is "
            "refused before it is sent."
        )

    def _rds_chat(self, value: str | None, args: Any) -> None:
        if value == "new":
            self.session.chat_id = None
            print("The next %%ask starts a new chat.")
        elif value is None:
            chat = self.session.chat_id
            print(f"Current chat: {chat}" if chat else "No current chat: %%ask starts one.")
        else:
            raise UsageError(f"%rds chat takes 'new' or nothing, got {value!r}")

    def _client(self) -> Client:
        """The session's client, connecting (and saying so in one line) when needed."""
        note = self.session.ensure()
        if note:
            print(note)
        assert self.session.client is not None
        return self.session.client

    # -- %%ask ----------------------------------------------------------------------------
    @magic_arguments()
    @argument("-h", "--help", action="store_true", help="show this help")
    @argument(
        "--dataset",
        "-d",
        dest="datasets",
        metavar="ID",
        nargs="+",
        action="extend",
        help="dataset ids the assistant should use (default: any dataset of the account)",
    )
    @argument("--posts", metavar="DF", help="a DataFrame of at most 50 posts to ask about")
    @argument("--chat", metavar="ID", help="continue this chat instead of the current one")
    @argument("--new", action="store_true", help="start a new chat")
    @argument("--out", metavar="NAME", help="also store the Answer in this variable")
    @argument("--timeout", type=float, metavar="SECONDS", help="stop waiting after this long")
    @cell_magic
    def ask(self, line: str, cell: str) -> Any:
        """Ask the assistant the question in the cell body; the Answer is the cell's value.

        It continues the notebook's current chat unless --new or --chat ID says
        otherwise; without a connection it connects by itself (the embedded sandbox when
        nothing is configured). A live display shows the assistant working; Ctrl-C (or
        the stop button) stops waiting cleanly. The answer shows each [N] citation as a
        marker: hover or click it for the post's card. answer.posts() gives the cited
        posts as a DataFrame.
        """
        args = parse_argstring(self.ask, line)
        if args.help:
            print(self.ask.parser.format_help())
            return None
        question = cell.strip()
        if not question:
            raise UsageError("write the question in the cell, below the %%ask line")
        if args.chat and args.new:
            raise UsageError("--chat and --new exclude each other")
        if args.out is not None and not args.out.isidentifier():
            raise UsageError(f"--out needs a variable name, got {args.out!r}")
        post_refs = self._post_refs(args.posts) if args.posts else None
        client = self._client()
        chat_id = None if args.new else args.chat or self.session.chat_id
        turn = client.ask(question, dataset_ids=args.datasets, post_refs=post_refs, chat_id=chat_id)
        self.session.chat_id = turn.chat_id
        try:
            answer = turn.wait(timeout=args.timeout)
        except KeyboardInterrupt:
            print(
                f"Stopped waiting. The assistant may still answer in chat {turn.chat_id}: "
                f"client.chats.message({turn.chat_id!r}, {turn.message_id!r}) reads the reply, "
                "and the next %%ask continues the chat."
            )
            return None
        if args.out is not None:
            self.shell.user_ns[args.out] = answer
        return answer

    def _post_refs(self, expression: str) -> list[dict[str, str]]:
        try:
            frame = self.shell.ev(expression)
        except Exception as exc:
            raise UsageError(f"--posts {expression}: {type(exc).__name__}: {exc}") from exc
        if not isinstance(frame, pd.DataFrame):
            raise UsageError(f"--posts needs a DataFrame, {expression} is a {type(frame).__name__}")
        refs: list[dict[str, str]] = frame.rds.post_refs()
        return refs


def status_bundle(
    me: Account,
    *,
    origin: str,
    rate: dict[str, str],
    gateway: dict[str, Any] | None,
    budget: Budget | None,
    chat_id: str | None,
) -> dict[str, str]:
    """The ``%rds status`` display: the account repr plus the session's connection facts.

    Example:
        >>> me = Account.model_validate({"id": "u1", "email": "a@example.com"})
        >>> bundle = status_bundle(me, origin="https://rds.example.com", gateway=None,
        ...     rate={"ratelimit-limit": "5", "ratelimit-remaining": "4",
        ...           "ratelimit-reset": "1"}, budget=None, chat_id=None)
        >>> bundle["text/plain"].splitlines()[2]
        'rate limit: 4 of 5 requests left in this window (full again in 1s)'
    """
    if rate:
        headroom = (
            f"{rate.get('ratelimit-remaining', '?')} of {rate.get('ratelimit-limit', '?')} "
            f"requests left in this window (full again in {rate.get('ratelimit-reset', '?')}s)"
        )
    else:
        headroom = "unknown (the service sent no RateLimit headers)"
    facts = [("connected to", origin), ("rate limit", headroom)]
    if gateway is not None:
        facts.append(
            (
                "gateway",
                f"one {gateway['rate_limit']:g} req/s bucket for every kernel of this "
                f"server, {gateway['queued']} request(s) queued now",
            )
        )
    facts.append(
        (
            "budget",
            "none"
            if budget is None
            else f"{amount(budget.remaining)} of {amount(budget.total)} credits left",
        )
    )
    facts.append(("current chat", chat_id or "none (the next %%ask starts one)"))
    html = (html_of(me) or "") + repr_box(
        "session", "This notebook's session", kv_table((k, esc(v)) for k, v in facts)
    )
    plain = "\n".join([plain_of(me) or repr(me), *(f"{k}: {v}" for k, v in facts)])
    return {"text/html": html, "text/plain": plain}


def _pretty(obj: Any, printer: Any, cycle: bool) -> None:
    """The ``text/plain`` printer of rdskit models (their one-look form when they have one)."""
    text = plain_of(obj)
    printer.text(text if text is not None else repr(obj))


def _show_error(
    shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None
) -> None:
    """Custom exception handler: the usual traceback, then the error's rich card."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    rich = html_of(value)
    if rich is not None:
        display({"text/html": rich}, raw=True)  # no text/plain: a terminal shows nothing more


def load(shell: Any) -> None:
    """Register the magics, the models' text printer and the error card (``%load_ext``)."""
    shell.register_magics(RdsMagics(shell))
    shell.display_formatter.formatters["text/plain"].for_type(RdsModel, _pretty)
    shell.set_custom_exc((RdsError,), _show_error)


def unload(shell: Any) -> None:
    """Undo :func:`load` (``%unload_ext rdskit``) and close the session's client."""
    magics = shell.magics_manager.registry.pop("RdsMagics", None)
    if magics is not None:
        magics.session.close()
        shell.magics_manager.magics["line"].pop("rds", None)
        shell.magics_manager.magics["cell"].pop("ask", None)
    shell.display_formatter.formatters["text/plain"].type_printers.pop(RdsModel, None)
    shell.set_custom_exc((), None)


def session_of(shell: Any) -> Session:
    """The session of ``shell``'s loaded rdskit magics.

    Raises:
        RuntimeError: the extension is not loaded in this shell.
    """
    magics = shell.magics_manager.registry.get("RdsMagics")
    if magics is None:
        raise RuntimeError("the rdskit extension is not loaded: run %load_ext rdskit")
    session: Session = magics.session
    return session
