"""The IPython magics: ``%rds`` and ``%%ask``, loaded by ``%load_ext rdskit``.

``%rds connect [--sandbox | --base-url URL]``, ``%rds status``, ``%rds datasets``,
``%rds budget [N | off]``, ``%rds chat [new]``; ``%%ask [--dataset ID ...] [--posts DF]
[--chat ID | --new] [--reuse] [--out NAME] [--timeout S]`` with the question as the cell body.
Every magic takes ``--help``. See ``docs/jupyter.md``.

Example (notebook cells)::

    %load_ext rdskit
    %rds connect --sandbox

    %%ask --dataset ds_123 --out answer
    What do people complain about most?
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from traceback import format_exception_only
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display
from traitlets import Enum

from rdskit._bodies import MAX_REQUEST_BYTES, check_request_size
from rdskit._config import ENV_API_KEY, ENV_BASE_URL
from rdskit._safe import cleartext_remote, one_line, terminal
from rdskit.budget import Budget, change_note, get_budget, set_budget, settle_asks
from rdskit.client import Client
from rdskit.errors import (
    APIConnectionError,
    APIError,
    ConfigurationError,
    InvalidParameter,
    RdsError,
    RequestTooLarge,
    Unauthorized,
)
from rdskit.jupyter._html import esc, kv_table, repr_box
from rdskit.jupyter.asking import resolve_datasets
from rdskit.jupyter.discovery import gateway_status
from rdskit.jupyter.errors import full_traceback_html
from rdskit.jupyter.interpolate import Prompt, interpolate
from rdskit.jupyter.provenance import FORMATS, answer_record, log_rows, write_log
from rdskit.jupyter.reprs import html_of, plain_of
from rdskit.jupyter.session import (
    Session,
    note_chat,
    origin_of,
    sandbox_origin,
    service_client,
)
from rdskit.models import Account
from rdskit.models._base import RdsModel

__all__ = ["RdsMagics", "load", "session_of", "status_bundle", "unload"]

COMMANDS = ("connect", "status", "datasets", "budget", "chat")
ASK_LINES = ("history", "log")


@dataclass
class AskedChat:
    """A chat this kernel's ``%%ask`` cells used (``%ask history``)."""

    chat_id: str
    first_question: str
    turns: int
    last_asked: datetime
    datasets: list[str]


@magics_class
class RdsMagics(Magics):
    """``%rds`` and ``%%ask``; ``self.session`` holds the client and the current chat.

    ``default_format`` is the format ``%%ask`` shows answers in without ``-f``
    (``%config RdsMagics.default_format = "text"``).
    """

    default_format = Enum(
        FORMATS, default_value="markdown", help="the format of %%ask without -f"
    ).tag(config=True)

    shell: InteractiveShell  # always given: the magics are registered with a shell

    def __init__(self, shell: InteractiveShell) -> None:
        super().__init__(shell)
        self.session = Session()
        self.asked: dict[str, AskedChat] = {}  # chat id -> what %%ask did there

    def record_error(self, result: Any) -> None:
        """``Err[n]``: the error cell ``n`` raised, as its type and message (a
        ``post_run_cell`` hook; jupyter-ai's ``%%ai`` reads ``{Err[n]}`` the same way)."""
        error = result.error_in_exec or result.error_before_exec
        errors = self.shell.user_ns.get("Err")
        if error is not None and result.execution_count and isinstance(errors, dict):
            errors[result.execution_count] = "".join(format_exception_only(error)).strip()

    # -- %rds -----------------------------------------------------------------------------
    @magic_arguments()
    @argument("-h", "--help", action="store_true", help="show this help")
    @argument("command", nargs="?", choices=COMMANDS, help="what to do (see above)")
    @argument("value", nargs="?", help="budget: credits or 'off'; chat: 'new'")
    @argument("--sandbox", action="store_true", help="connect: the embedded offline sandbox")
    @argument("--reset", action="store_true", help="budget N: count again from zero")
    @argument(
        "--base-url",
        metavar="URL",
        help="connect: the service root URL (key from RDSKIT_API_KEY, else a hidden prompt)",
    )
    @argument(
        "--insecure-http",
        action="store_true",
        help="connect: allow http:// to a host other than this machine (the key travels "
        "unencrypted)",
    )
    @line_magic
    def rds(self, line: str) -> Any:
        """Connect to the Research Data Service and look at the session.

        connect   the server's gateway or RDSKIT_API_KEY/RDSKIT_BASE_URL; --base-url URL
                  asks for the key (hidden) unless RDSKIT_API_KEY is set; --sandbox: the
                  offline sandbox. The key is never echoed or stored in the notebook;
                  http:// to another machine is refused unless --insecure-http.
        status    account, plan, balance in credits and USD, rate-limit headroom
        datasets  the account's datasets (returns a DataFrame)
        budget N  refuse the paid calls of every rdskit client in this kernel beyond N
                  credits in total ('off' lifts it; without N: show what remains; the
                  same N again keeps what was committed, --reset counts from zero)
        chat new  the next %%ask starts a new chat ('chat' alone: the current chat)
        """
        args = parse_argstring(self.rds, line)
        if args.help or args.command is None:
            print(self.rds.parser.format_help())
            return None
        if args.command != "connect" and (args.sandbox or args.base_url or args.insecure_http):
            raise UsageError("--sandbox, --base-url and --insecure-http go with %rds connect")
        if args.reset and (args.command != "budget" or args.value in (None, "off")):
            raise UsageError("--reset goes with %rds budget N")
        handler = getattr(self, f"_rds_{args.command}")
        return handler(args.value, args)

    def _rds_connect(self, value: str | None, args: Any) -> None:
        if value is not None:
            raise UsageError(f"%rds connect takes no value (got {value!r})")
        if args.sandbox and args.base_url:
            raise UsageError("choose one of --sandbox and --base-url")
        if not args.sandbox:
            _check_transport(args.base_url or os.environ.get(ENV_BASE_URL, ""), args.insecure_http)
        try:
            if args.sandbox:
                client, origin = Client.sandbox(), sandbox_origin()
            else:
                client, origin = service_client(args.base_url), None
        except ConfigurationError as exc:
            raise UsageError(str(exc)) from None
        try:
            me = client.me()  # checked before it replaces anything
        except Exception as exc:  # whatever answered (or did not), the session stays as it was
            client.close()
            raise UsageError(connect_failure(client.base_url, exc, self.session)) from None
        self.session.connect(client, origin)
        replaced = self.shell.user_ns.get("client")
        self.shell.user_ns["client"] = client  # the name every inserted snippet uses
        plan = me.plan.name if me.plan else "unknown"
        # The service's strings are data: one line each, no escape sequence reaches a terminal.
        who = ", ".join(one_line(part) for part in (me.team_name, f"plan {plan}"))
        print(f"Connected to {one_line(self.session.origin)} as {one_line(me.email)} ({who}).")
        before = " (it replaces the previous `client`)" if replaced is not None else ""
        print(f"`client` is this connection{before}; %%ask and %rds use it too.")

    def _rds_status(self, value: str | None, args: Any) -> None:
        client = self._client()
        me = client.me()
        display(
            status_bundle(
                me,
                origin=self.session.origin,
                rate=client._core.rate_limit_headers,
                gateway=gateway_status(client),
                budget=_settled(client),
                chat_id=self.session.chat_id,
            ),
            raw=True,
        )

    def _rds_datasets(self, value: str | None, args: Any) -> pd.DataFrame:
        from rdskit.frames import datasets_to_frame

        return datasets_to_frame(self._client())

    def _rds_budget(self, value: str | None, args: Any) -> None:
        if value is None:
            budget = _settled(self.session.client)  # no need to connect just to show it
            print(
                "No budget: paid calls are not capped."
                if budget is None
                else f"Budget: {budget}, counting every rdskit client in this kernel."
            )
            return
        current = get_budget()
        before = None if current is None else (current.total, current.spent)
        if value == "off":
            print(change_note(before, set_budget(None)))
            return
        try:
            budget = set_budget(value.replace(",", "").replace("_", ""), reset=args.reset)
        except InvalidParameter as exc:
            raise UsageError(
                f"%rds budget takes a number of credits or 'off', got {value!r} ({exc.message})"
            ) from None
        print(change_note(before, budget, reset=args.reset))
        if before is not None and not args.reset:
            return  # the rules were said when it was set
        print(
            "A paid call of any rdskit client in this kernel (rdskit.Client() and "
            "Client.sandbox() included) is refused before it is sent when its estimate "
            "exceeds what remains; Ask is refused once nothing remains."
        )

    def _rds_chat(self, value: str | None, args: Any) -> None:
        if value == "new":
            self.session.chat_id = None
            print("The next %%ask starts a new chat.")
        elif value is None:
            chat = self.session.chat_id
            print(
                f"Current chat: {one_line(chat)}" if chat else "No current chat: %%ask starts one."
            )
        else:
            raise UsageError(f"%rds chat takes 'new' or nothing, got {value!r}")

    def _client(self) -> Client:
        """The kernel's client (the last one made), connecting when there is none; says
        which one in one line when that is not obvious."""
        note = self.session.ensure(self.shell.user_ns)
        if note:
            print(note)
        client = self.session.client
        assert client is not None
        return client

    # -- %%ask ----------------------------------------------------------------------------
    @magic_arguments()
    @argument("-h", "--help", action="store_true", help="show this help")
    @argument(
        "--dataset",
        "-d",
        dest="datasets",
        metavar="ID_OR_NAME",
        nargs="+",
        action="extend",
        help="dataset ids or names the assistant should use (quote a name with spaces; "
        "default: any dataset of the account); unknown ones are refused before paying",
    )
    @argument("--posts", metavar="DF", help="a DataFrame of at most 50 posts to ask about")
    @argument("--chat", metavar="ID", help="continue this chat instead of the current one")
    @argument("--new", action="store_true", help="start a new chat")
    @argument(
        "--reuse",
        action="store_true",
        help="re-running the cell shows the answer already paid for (same question, "
        "datasets, posts and chat) instead of asking again; a failed one is asked again",
    )
    @argument("--out", metavar="NAME", help="also store the Answer in this variable")
    @argument("--timeout", type=float, metavar="SECONDS", help="stop waiting after this long")
    @argument(
        "-f",
        "--format",
        choices=FORMATS,
        help="markdown: the answer view with citation cards (default: "
        "RdsMagics.default_format); text: plain text with footnotes; json: the answer's "
        "record (docs/ask-answer.schema.json); refs: the cited posts as a table",
    )
    @line_cell_magic
    def ask(self, line: str, cell: str | None = None) -> Any:
        """Ask the assistant the question in the cell body; the Answer is the cell's value.

        {name} and {expression} in the question are read from the notebook's variables
        ({{ and }} are literal braces; In[n] and Out[n] work); a DataFrame of posts in
        braces scopes the question to its rows and their datasets (its content is never
        sent). It continues the notebook's current chat unless --new or --chat ID says
        otherwise; without a connection it connects by itself (the embedded sandbox when
        nothing is configured). A live display shows the assistant working; Ctrl-C (or
        the stop button) stops waiting cleanly. The answer shows each [N] citation as a
        marker: hover or click it for the post's card. answer.posts() gives the cited
        posts as a DataFrame. The output's metadata keeps where the answer came from.

        As a line magic: %ask history lists this kernel's chats; %ask log [CHAT] --to
        FILE.md|FILE.jsonl writes a chat (default: the current one) with its citations.
        """
        if cell is None:
            return self._ask_line(line)
        args = parse_argstring(self.ask, line)
        if args.help:
            print(self.ask.parser.format_help())
            return None
        body = cell.strip()
        _check_ask_args(args, body)
        client, prompt, dataset_ids, post_refs = self._question(args, body)
        chat_id = None if args.new else args.chat or self.session.chat_id
        asked_at, started = datetime.now(UTC), time.monotonic()
        turn = client.ask(
            prompt.text,
            dataset_ids=dataset_ids,
            post_refs=post_refs,
            chat_id=chat_id,
            reuse=args.reuse,
        )
        self.session.chat_id = turn.chat_id
        note_chat(client, turn.chat_id)  # the JupyterLab panel lists it
        self._note_asked(turn.chat_id, prompt.text, dataset_ids, asked_at)
        try:
            answer = turn.wait(timeout=args.timeout)
        except KeyboardInterrupt:
            chat, message = one_line(turn.chat_id), one_line(turn.message_id)
            print(
                f"Stopped waiting. The assistant may still answer in chat {chat}: "
                f"client.chats.message({chat!r}, {message!r}) reads the reply, "
                "and the next %%ask continues the chat."
            )
            return None
        record = answer_record(
            answer,
            question=prompt.text,
            cell=body,
            dataset_ids=dataset_ids,
            post_refs=post_refs,
            asked_at=asked_at,
            seconds=time.monotonic() - started,
        )
        answer._shown = (args.format or self.default_format, record)
        if args.out is not None:
            self.shell.user_ns[args.out] = answer
        return answer

    def _question(
        self, args: Any, body: str
    ) -> tuple[Any, Prompt, list[str] | None, list[dict[str, str]] | None]:
        """The client, the question as sent (braces read), its datasets and its posts,
        every check made before the paid call. Braces are read before anything else: an
        undefined name costs nothing, not even a connection; a question too large, an
        unknown or ambiguous dataset cost nothing either."""
        secrets = _session_keys(self.session.client)
        try:
            prompt = interpolate(body, self.shell.user_ns, secrets)
            check_request_size({"message": prompt.text})  # too large: refused, not sent
        except RequestTooLarge as exc:
            raise _question_refused(exc) from None
        except InvalidParameter as exc:
            raise UsageError(exc.message) from None
        named = self._post_refs(args.posts) if args.posts else []
        post_refs = [*named, *prompt.post_refs] or None
        client = self._client()
        try:  # ids or names, unknown or ambiguous ones
            dataset_ids = resolve_datasets(client, args.datasets)
        except InvalidParameter as exc:
            raise UsageError(f"{exc.field}: {exc.message}") from None
        if prompt.dataset_ids:
            dataset_ids = list(dict.fromkeys([*(dataset_ids or []), *prompt.dataset_ids]))
        if prompt.changed:
            scope = f" (+ {len(prompt.post_refs)} posts in scope)" if prompt.post_refs else ""
            print(f"Asking: {one_line(prompt.text)}{scope}")
        return client, prompt, dataset_ids, post_refs

    def _note_asked(
        self, chat_id: str, question: str, datasets: list[str] | None, at: datetime
    ) -> None:
        known = self.asked.get(chat_id)
        if known is None:
            self.asked[chat_id] = AskedChat(chat_id, question, 1, at, list(datasets or []))
            return
        known.turns += 1
        known.last_asked = at
        known.datasets = list(dict.fromkeys([*known.datasets, *(datasets or [])]))

    def _ask_line(self, line: str) -> Any:
        words = line.split()
        if not words or words[0] not in ASK_LINES:
            raise UsageError(
                "%ask (one %) takes 'history' or 'log [CHAT] --to FILE.md|FILE.jsonl'; "
                "%%ask (two) asks the question in the cell"
            )
        if words[0] == "history":
            if len(words) > 1:
                raise UsageError("%ask history takes nothing more")
            return self._history()
        rest = words[1:]
        if "--to" not in rest or rest.index("--to") != len(rest) - 2:
            raise UsageError("%ask log [CHAT] --to FILE.md|FILE.jsonl")
        target = Path(rest[-1])
        if target.suffix not in (".md", ".jsonl"):
            raise UsageError(f"--to: a .md or .jsonl file, got {target.name!r}")
        chats = rest[:-2]
        if len(chats) > 1:
            raise UsageError("%ask log takes one chat id")
        chat_id = chats[0] if chats else self.session.chat_id
        if chat_id is None:
            raise UsageError("no current chat: give its id (%ask history lists them)")
        rows = log_rows(self._client(), chat_id)
        write_log(rows, target)
        cited = sum(len(row.get("citations", [])) for row in rows)
        print(
            f"Wrote chat {one_line(chat_id)} to {target}: {len(rows)} messages, {cited} citations."
        )
        return None

    def _history(self) -> pd.DataFrame:
        columns = ["chat_id", "first_question", "turns", "last_asked", "datasets", "current"]
        rows = [
            {
                "chat_id": chat.chat_id,
                "first_question": chat.first_question,
                "turns": chat.turns,
                "last_asked": pd.Timestamp(chat.last_asked),
                "datasets": ", ".join(chat.datasets),
                "current": chat.chat_id == self.session.chat_id,
            }
            for chat in sorted(self.asked.values(), key=lambda c: c.last_asked, reverse=True)
        ]
        return pd.DataFrame(rows, columns=columns)

    def _post_refs(self, expression: str) -> list[dict[str, str]]:
        try:
            frame = self.shell.ev(expression)
        except Exception as exc:
            raise UsageError(f"--posts {expression}: {type(exc).__name__}: {exc}") from exc
        if not isinstance(frame, pd.DataFrame):
            raise UsageError(f"--posts needs a DataFrame, {expression} is a {type(frame).__name__}")
        refs: list[dict[str, str]] = frame.rds.post_refs()
        return refs


def _session_keys(client: Client | None) -> list[str]:
    """The keys a brace must never put into a question: the session client's."""
    if client is None:
        return []
    key = client._core.api_key
    reveal = getattr(key, "reveal", None)
    return [reveal()] if callable(reveal) else [str(key)] if isinstance(key, str) else []


def _settled(client: Client | None) -> Budget | None:
    """The process-wide budget, after committing the Ask replies (of ``client``'s
    account) seen finished since."""
    if get_budget() is not None and client is not None:
        client._run(settle_asks(client._core))
    return get_budget()


def connect_failure(url: str, exc: BaseException, session: Session) -> str:
    """The two lines a failed ``%rds connect`` shows: what failed, and what to try.

    Example:
        >>> print(connect_failure("http://127.0.0.1:9", APIConnectionError("ConnectError"),
        ...     Session()))
        Could not connect to http://127.0.0.1:9: nothing answered there (APIConnectionError).
        Nothing changed (...). Try: check the URL and that the service is running.

    (What stays is the kernel's current client, if it has one: "still connected to ...".)
    """
    if isinstance(exc, APIConnectionError):
        what = f"nothing answered there ({type(exc).__name__})"
        hint = "check the URL and that the service is running"
    elif isinstance(exc, Unauthorized):
        what = f"the service refused the API key (HTTP {exc.status_code})"
        hint = f"check {ENV_API_KEY} (unset it to be asked for the key)"
    elif isinstance(exc, APIError) and exc.status_code == 404:
        what = "no Research Data Service answers at this URL (HTTP 404 on /v1/me)"
        hint = "give the service's root URL, without /v1"
    elif isinstance(exc, APIError):
        what = f"the service answered HTTP {exc.status_code} ({exc.error_code or 'no code'})"
        hint = "try again in a moment; %rds status shows the current session"
    else:
        what = f"the answer is not the Research Data Service's ({type(exc).__name__})"
        hint = "check the URL points at the service"
    current = session.client
    kept = (
        f"still connected to {session.origin or origin_of(current)}; budget and chat kept"
        if current is not None
        else "no session yet"
    )
    shown = urlsplit(url)._replace(netloc=urlsplit(url).netloc.rpartition("@")[2]).geturl()
    return f"Could not connect to {shown}: {what}.\nNothing changed ({kept}). Try: {hint}."


def _check_transport(url: str, allowed: bool) -> None:
    """Refuse (or, with ``--insecure-http``, warn about) sending the key over cleartext."""
    if not url or not cleartext_remote(url):
        return
    if not allowed:
        raise UsageError(
            f"refusing to send the API key unencrypted to {one_line(url)}: use an https:// "
            "URL (or a loopback address for a local sandbox); --insecure-http overrides this "
            "if you really mean it"
        )
    warnings.warn(
        f"rdskit: the API key will travel unencrypted to {one_line(url)} (--insecure-http); "
        "anyone on the network path can read it",
        stacklevel=3,
    )


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
        if gateway.get("sandbox_db"):
            facts.append(
                (
                    "sandbox database",
                    f"{gateway['sandbox_db']} (c.RdsGateway.sandbox_db of the Jupyter "
                    "server moves it)",
                )
            )
    facts.append(
        (
            "budget",
            "none (%rds budget N caps every rdskit client in this kernel)"
            if budget is None
            else f"{budget}, counting every rdskit client in this kernel",
        )
    )
    facts.append(("current chat", chat_id or "none (the next %%ask starts one)"))
    html = (html_of(me) or "") + repr_box(
        "session", "This notebook's session", kv_table((k, esc(v)) for k, v in facts)
    )
    plain = "\n".join([plain_of(me) or repr(me), *(terminal(f"{k}: {v}") for k, v in facts)])
    return {"text/html": html, "text/plain": plain}


def _pretty(obj: Any, printer: Any, cycle: bool) -> None:
    """The ``text/plain`` printer of rdskit models (their one-look form when they have one;
    an ``%%ask`` answer's in its format, with its record)."""
    shown = getattr(obj, "_shown", None)
    text = obj._repr_mimebundle_()[0]["text/plain"] if shown is not None else plain_of(obj)
    printer.text(text if text is not None else repr(obj))


def _show_error(
    shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None
) -> None:
    """Custom exception handler: the short message (``rdskit.jupyter.errors``), then the
    error's rich card with the full traceback one click away."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    rich = html_of(value)
    if rich is not None:
        rich += full_traceback_html(value)
        display({"text/html": rich}, raw=True)  # no text/plain: a terminal shows nothing more


def _check_ask_args(args: Any, body: str) -> None:
    """The ``%%ask`` options and body that are wrong whatever the notebook holds."""
    if not body:
        raise UsageError("write the question in the cell, below the %%ask line")
    if args.chat and args.new:
        raise UsageError("--chat and --new exclude each other")
    if args.out is not None and not args.out.isidentifier():
        raise UsageError(f"--out needs a variable name, got {args.out!r}")


def _question_refused(exc: RequestTooLarge) -> UsageError:
    return UsageError(f"the question below %%ask: {exc.message}")


def refuse_oversized_ask(lines: list[str]) -> list[str]:
    """IPython cleanup transform: an ``%%ask`` cell whose question alone is longer than a
    request may carry becomes one line raising the refusal (the same as the magic's), before
    IPython's own transforms and its compilation of the question as a string literal, which
    took 35 s of a 50 MB question's 35 s once the magic's own part was linear.

    Example:
        >>> refuse_oversized_ask(["%%ask", "x" * 2_000_000])[0][:30]
        "raise __import__('IPython.core"
        >>> refuse_oversized_ask(["%%ask", "Why?"])
        ['%%ask', 'Why?']
    """
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].startswith("%%ask"):
        return lines
    body = lines[first + 1 :]
    # Characters are bytes at least, and the question is sent as typed when it has no brace
    # (braces are read into it by the magic, which checks the question it makes).
    size = sum(len(line.strip()) for line in body)
    if size <= MAX_REQUEST_BYTES or any("{" in line or "}" in line for line in body):
        return lines
    refusal = _question_refused(RequestTooLarge("message", size, MAX_REQUEST_BYTES))
    return [
        f"raise __import__('IPython.core.error', fromlist=['_']).UsageError({str(refusal)!r})\n"
    ]


def load(shell: Any) -> None:
    """Register the magics, the models' text printer and the error card (``%load_ext``)."""
    magics = RdsMagics(shell)
    shell.register_magics(magics)
    if refuse_oversized_ask not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.insert(0, refuse_oversized_ask)
    shell.user_ns.setdefault("Err", {})  # a variable of the user's own keeps its value
    shell.events.register("post_run_cell", magics.record_error)
    shell.display_formatter.formatters["text/plain"].for_type(RdsModel, _pretty)
    shell.set_custom_exc((RdsError,), _show_error)


def unload(shell: Any) -> None:
    """Undo :func:`load` (``%unload_ext rdskit``) and close the session's client."""
    magics = shell.magics_manager.registry.pop("RdsMagics", None)
    if magics is not None:
        magics.session.close()
        shell.events.unregister("post_run_cell", magics.record_error)
        shell.magics_manager.magics["line"].pop("rds", None)
        shell.magics_manager.magics["cell"].pop("ask", None)
        shell.magics_manager.magics["line"].pop("ask", None)
    shell.display_formatter.formatters["text/plain"].type_printers.pop(RdsModel, None)
    shell.set_custom_exc((), None)
    if refuse_oversized_ask in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(refuse_oversized_ask)


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
