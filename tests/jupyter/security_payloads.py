"""Hostile strings and the machinery that puts them into every string field of every model.

Imported by name by ``test_security_payloads.py`` (the HTML/markdown/terminal matrix) and
``tests/browser/test_payloads.py`` (the same renders in a trusted JupyterLab notebook).

- :data:`PAYLOADS`: each payload carries a unique ``PWN<n>`` tag; every raw-HTML payload
  uses a class, attribute or tag name containing it, so an unescaped payload shows up as an
  element, attribute or class the checker refuses;
- :func:`filled`: an instance of a model with every string field (nested models, lists,
  dict keys and values, and an unknown extra field) set to one payload;
- :func:`renders`: every HTML view rdskit draws of service data, keyed by a label;
- :class:`HtmlAudit`: parses HTML (``html.parser``) and lists every element, attribute or
  URL that did not come from rdskit's own templates.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
from pydantic import BaseModel, ValidationError

import rdskit.models as M
from rdskit.answers import Answer
from rdskit.errors import error_from_response
from rdskit.jupyter import progress
from rdskit.jupyter._html import BOX_STYLES, REPR_CSS
from rdskit.jupyter.render import (
    ANSWER_CSS,
    INLINE_STYLES,
    answer_bundle,
    message_html,
    post_cards,
)
from rdskit.jupyter.reprs import html_of, plain_of
from rdskit.models import PostReference

EVIL = "evil.example"
PAYLOADS: tuple[str, ...] = (
    '<script class="PWN1">fetch("http://evil.example/PWN1")</script>',
    '<img class="PWN2" src="http://evil.example/PWN2.png" onerror="alert(2)">',
    '"><svg class="PWN3" onload="alert(3)"></svg><b data-pwn3="1">',
    "' onmouseover='alert(4)' data-pwn4='x",
    "javascript:alert('PWN5')",
    "![PWN6](http://evil.example/PWN6.png)",
    "# PWN7 heading\n\n[PWN7 link](javascript:alert(7)) [ref PWN7]: http://evil.example/PWN7",
    "PWN8 line\nbreak\r\n\x00\x07\x08 \u202eRTL\u2066 \x7f\x85",
    "\x1b]52;c;UFdOOQ==\x07PWN9\x1b[2J\x1b[31mred\x9b1m",
    "PWN10 lone \ud800 surrogate",
    '<a class="PWN11" href="javascript:alert(11)">x</a> [1](javascript:alert(11))',
    'https://evil.example/PWN12"><script class="PWN12">alert(12)</script>',
    '<style class="PWN13">*{background:url(http://evil.example/PWN13)}</style>',
    "data:text/html;base64,PHNjcmlwdD5QV04xNDwvc2NyaXB0Pg== PWN14",
    '<iframe class="PWN15" src="http://evil.example/PWN15"></iframe>',
    '[PWN16](http://evil.example/PWN16 "t") <http://evil.example/PWN16> ![x](//evil.example/x)',
    "JaVaScRiPt:alert('PWN17')",
    "&lt;script class=PWN18&gt; &#x6A;avascript:alert(18)",
)
"""Script, event handler, attribute break-out, ``javascript:``/``data:`` URL, image
(beacon), markdown heading/link/definition, newline and control characters, terminal
escapes (OSC 52 clipboard write, CSI), lone surrogate, style and iframe injection."""

BENIGN = "benign"

# -- filling models ------------------------------------------------------------------------
_NONE = type(None)


def model_classes() -> list[type[BaseModel]]:
    """Every pydantic model rdskit.models exports (the wire models)."""
    found = {
        obj
        for name in dir(M)
        if isinstance(obj := getattr(M, name), type) and issubclass(obj, BaseModel)
    }
    return sorted(found, key=lambda cls: cls.__name__)


def _sample(annotation: Any, text: str, depth: int, counter: list[int]) -> Any:
    """A value of ``annotation`` whose strings are all ``text`` (counted in ``counter``)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _sample(args[0], text, depth, counter)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in args if arg is not _NONE]
        # Prefer a model (more fields to fill), then str.
        options.sort(key=lambda a: 0 if _is_model(a) else 1 if a is str else 2)
        return _sample(options[0], text, depth, counter)
    if origin is typing.Literal:
        return args[0]
    if annotation is Any or annotation is object:
        counter[0] += 1
        return text
    if origin in (list, set, frozenset, Sequence, tuple) or annotation in (list, tuple):
        inner = args[0] if args else str
        return [_sample(inner, text, depth, counter)]
    if origin in (dict, Mapping) or annotation is dict:
        value_type = args[1] if len(args) == 2 else str
        counter[0] += 1  # the key
        return {text: _sample(value_type, text, depth, counter)}
    if _is_model(annotation):
        if depth > 4:
            return None
        return _fields(annotation, text, depth + 1, counter)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return next(iter(annotation)).value
    if annotation is str:
        counter[0] += 1
        return text
    if annotation is bool:
        return True
    if annotation is int:
        return 3
    if annotation is float:
        return 0.5
    if annotation is decimal.Decimal:
        return "1.5"
    if annotation is dt.date:
        return "2026-01-02"
    if annotation is dt.datetime:
        return "2026-01-02T03:04:05Z"
    return text


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _fields(cls: type[BaseModel], text: str, depth: int, counter: list[int]) -> dict[str, Any]:
    data = {
        field.alias or name: _sample(field.annotation, text, depth, counter)
        for name, field in cls.model_fields.items()
    }
    if cls.model_config.get("extra") == "allow":
        counter[0] += 1
        data["x_unknown_field"] = text  # unknown extra fields are kept: they count too
    return data


_CANDIDATES = (
    "benign",
    "US",
    "reddit",
    "https://ok.example/benign",
    "2026-01-02",
    "1",
    "09:30",
    "monday",
)


def filled(cls: type[BaseModel], text: str) -> tuple[BaseModel, int, list[str]]:
    """``cls`` with every string field set to ``text``: the instance, how many string
    slots were filled, and the fields whose validation refused the payload (they get a
    benign value instead, so the instance still renders)."""
    counter = [0]
    data = _fields(cls, text, 0, counter)
    refused: dict[str, int] = {}
    for _ in range(40):
        try:
            return cls.model_validate(data), counter[0], sorted(refused)
        except ValidationError as exc:
            for error in exc.errors():
                loc = [part for part in error["loc"] if part != ""]
                if _drop_mentioned(data, loc, error["msg"]):
                    continue
                key = ".".join(map(str, loc))
                attempt = refused.get(key, -1) + 1
                refused[key] = attempt
                _replace(data, loc, attempt)
    raise AssertionError(f"{cls.__name__} could not be built: {sorted(refused)}")


def _drop_mentioned(data: Any, loc: list[Any], message: str) -> bool:
    """A model-level rule (e.g. "either A or B") refused the mix: drop a field it names."""
    target = data
    for part in loc:
        if not isinstance(target, dict | list):
            return False
        try:
            target = target[part]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(target, dict):
        return False
    for name in list(target)[::-1]:
        if re.search(rf"\b{re.escape(str(name))}\b", message):
            del target[name]
            return True
    return False


def _replace(data: Any, loc: list[Any], attempt: int) -> None:
    """Where validation refused the payload, put a benign value in place of every string
    (a candidate per attempt; then None; then the field goes)."""
    parent: Any = None
    key: Any = None
    target = data
    for part in loc:
        if (isinstance(target, dict) and part in target) or (
            isinstance(target, list) and isinstance(part, int) and part < len(target)
        ):
            parent, key, target = target, part, target[part]
        # else: a union member's name in the loc (not a key): skip it
    if parent is None:
        return
    if attempt < len(_CANDIDATES):
        parent[key] = _benign(target, _CANDIDATES[attempt])
    elif attempt == len(_CANDIDATES):
        parent[key] = None
    elif isinstance(parent, dict):
        del parent[key]


def _benign(value: Any, benign: str) -> Any:
    if isinstance(value, str):
        return benign
    if isinstance(value, list):
        return [_benign(item, benign) for item in value]
    if isinstance(value, dict):
        return {
            (benign if isinstance(k, str) and "PWN" in k else k): _benign(v, benign)
            for k, v in value.items()
        }
    return value


# -- rendering -----------------------------------------------------------------------------
def cited_frame(text: str, n: int = 2) -> pd.DataFrame:
    """Cited posts whose every text column is ``text`` (and whose URL is ``text`` too)."""
    return pd.DataFrame(
        {
            "source": ["reddit"] * n,
            "id": [f"p{i}" for i in range(1, n + 1)],
            "author_title": [text] * n,
            "author_headline": [text] * n,
            "title": [text] * n,
            "text": [text] * n,
            "url": [text, "https://www.reddit.com/r/x/comments/p2"][:n],
            "created_at": [pd.Timestamp("2026-01-02", tz="UTC")] * n,
            "num_likes": [3] * n,
        },
        dtype=object,  # Arrow strings cannot hold a lone surrogate; object columns can
    )


def answer_text(text: str) -> str:
    """Assistant markdown quoting ``text``, with markers in text, in a URL and in code."""
    return (
        f"Top complaint [1]: {text}\n\n- {text} [2]\n\n"
        f"[see [1]](https://ok.example/a[1]) `code [2]` ![img [1]](http://{EVIL}/b[2].png)"
    )


def answer_of(text: str) -> Answer:
    """An Answer whose text, references and cited posts all carry ``text``."""
    body = answer_text(text)
    refs = [
        {
            "type": "post",
            "source": "reddit",
            "id": f"p{i}",
            "citation": i,
            "start_index": 0,
            "end_index": 3,
        }
        for i in (1, 2)
    ] + [{"type": "dataset", "id": text}]
    answer = Answer.model_validate(
        {
            "id": text,
            "chat_id": text,
            "role": "assistant",
            "text": body,
            "created_at": 0,
            "references": refs,
        }
    )
    answer._posts = cited_frame(text)
    return answer


ERROR_BODIES: tuple[tuple[int, str], ...] = (
    (400, "invalid_request"),
    (401, "unauthorized"),
    (402, "insufficient_credits"),
    (404, "dataset_not_found"),
    (422, "validation_error"),
    (429, "rate_limited"),
    (500, "internal_error"),
    (503, "ai_assistant_unavailable"),
)


def error_of(status: int, code: str, text: str) -> BaseException:
    body = {
        "status": text,
        "error_code": code,
        "detail": text,
        "message": text,
        "transient": False,
        "top_up_url": text,
        "required": "2.5",
        "available": "1",
        "errors": [{"loc": ["body", text], "msg": text, "type": text}],
        "x_unknown": text,
    }
    return error_from_response(status, body, method="POST", path=f"/v1/{text}")


def instances(text: str) -> Iterator[tuple[str, BaseModel]]:
    """(class name, filled instance) for every model."""
    for cls in model_classes():
        yield cls.__name__, filled(cls, text)[0]


def renders(text: str) -> Iterator[tuple[str, str]]:
    """Every HTML view of service data carrying ``text``: (label, html)."""
    from rdskit.jupyter.magics import status_bundle
    from rdskit.jupyter.progress import progress_html
    from rdskit.progress import BillingLine, Snapshot
    from rdskit.runs import describe

    for name, instance in instances(text):
        html = html_of(instance)
        if html is not None:
            yield f"repr {name}", html
        try:
            view = describe(instance)
        except (TypeError, NotImplementedError, KeyError, AttributeError):
            continue
        for state in ("running", "completed", "failed"):
            snap = Snapshot(view, state, 2.0, (BillingLine(text, text, text),), note=text)  # type: ignore[arg-type]
            yield f"progress {name} {state}", progress_html(snap)
    answer = answer_of(text)
    yield "answer view", answer_bundle(answer)["text/html"]
    refs = [ref for ref in answer.references or [] if isinstance(ref, PostReference)]
    message, _, _ = filled(M.TrackingMessage, text)
    yield (
        "alert view",
        message_html(
            answer_text(text), answer.references, post_cards(refs, cited_frame(text)), note=text
        ),
    )
    yield "alert repr", html_of(message) or ""
    me, _, _ = filled(M.Account, text)
    rate = {"ratelimit-limit": text, "ratelimit-remaining": text, "ratelimit-reset": text}
    yield (
        "status view",
        status_bundle(
            me,  # type: ignore[arg-type]
            origin=text,
            rate=rate,
            gateway={"rate_limit": 5.0, "queued": text},
            budget=None,
            chat_id=text,
        )["text/html"],
    )
    for status, code in ERROR_BODIES:
        yield f"error {status} {code}", html_of(error_of(status, code, text)) or ""


def plain_texts(text: str) -> Iterator[tuple[str, str]]:
    """Every plain-text and markdown output of service data carrying ``text``."""
    for name, instance in instances(text):
        shown = plain_of(instance)
        if shown is not None:
            yield f"plain {name}", shown
    bundle = answer_bundle(answer_of(text))
    yield "answer text/plain", bundle["text/plain"]
    yield "answer text/markdown", bundle["text/markdown"]


# -- auditing ------------------------------------------------------------------------------
OUR_TAGS = frozenset(
    [
        "div",
        "style",
        "h4",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "code",
        "b",
        "i",
        "p",
        "span",
        "a",
        "ol",
        "ul",
        "li",
        "q",
        "strong",
        "em",
        "br",
        "hr",
        "pre",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "del",
        "blockquote",
        "details",
        "summary",
    ]
)
OUR_ATTRIBUTES = frozenset(
    [
        "class",
        "href",
        "target",
        "rel",
        "data-ref",
        "data-state",
        "tabindex",
        "role",
        "aria-label",
        "style",
    ]
)
OUR_STYLES = (("display:none",), ("width:",))
OUR_CSS: tuple[str, ...] = (REPR_CSS, ANSWER_CSS)


class HtmlAudit(HTMLParser):
    """Every element, attribute, class, style and URL of a rendered HTML output that
    rdskit's templates do not produce (``problems``), and the URLs linked (``urls``)."""

    def __init__(self, css: Sequence[str] = OUR_CSS) -> None:
        super().__init__(convert_charrefs=True)
        self.css = tuple(css)
        self.problems: list[str] = []
        self.urls: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in OUR_TAGS:
            self.problems.append(f"element <{tag}>")
        self._in_style = tag == "style"
        for name, value in attrs:
            value = value or ""
            if name not in OUR_ATTRIBUTES:
                self.problems.append(f"attribute {name}= on <{tag}>")
            elif name == "class":
                for css_class in value.split():
                    if not (
                        (css_class.startswith("rds-") and "PWN" not in css_class)
                        or css_class in ("mathjax_ignore", "tex2jax_ignore")
                    ):
                        self.problems.append(f"class {css_class!r}")
            elif name == "style" and not (
                value.startswith(("display:none", "width:"))
                or value in INLINE_STYLES
                or value in progress.INLINE_STYLES
                or value in BOX_STYLES
            ):
                self.problems.append(f"style {value!r}")
            elif name == "href":
                self.urls.append(value)
                parts = urlsplit(value)
                if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
                    self.problems.append(f"href {value!r}")
                if any(char in value for char in "\"'<> `\\"):
                    self.problems.append(f"unencoded href {value!r}")
            elif name == "data-ref" and not value.isdigit():
                self.problems.append(f"data-ref {value!r}")
            elif name != "aria-label" and ("PWN" in value or "<" in value):
                self.problems.append(f"{name}={value!r}")  # target, rel, role, ...
        if tag == "a" and dict(attrs).get("rel") != "noopener noreferrer":
            self.problems.append("a link without rel=noopener noreferrer")

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style and data not in self.css:
            self.problems.append(f"style sheet {data[:60]!r}")


def audit(html: str, css: Sequence[str] = OUR_CSS) -> HtmlAudit:
    checker = HtmlAudit(css)
    checker.feed(html)
    checker.close()
    return checker


def unsafe_characters(text: str) -> list[str]:
    """Control characters (but newline and tab), escapes and lone surrogates in ``text``."""
    bad = [
        f"U+{ord(char):04X}"
        for char in set(text)
        if (ord(char) < 0x20 and char not in "\n\t")
        or 0x7F <= ord(char) <= 0x9F
        or 0xD800 <= ord(char) <= 0xDFFF
        or char in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ]
    return sorted(bad)


Renderer = Callable[[str], Iterator[tuple[str, str]]]
