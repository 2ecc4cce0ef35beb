"""Shared building blocks for every model: the base class, wire timestamps and money.

The spec mixes two timestamp encodings (ISO 8601 strings for datasets and audience
resources, Unix seconds for everything else) and two money encodings (USD as JSON
numbers, credits as six-decimal strings). Each field declares its wire form with one of
the annotated types below, so a model parses either form into a tz-aware UTC
``datetime`` / exact ``Decimal`` and serialises back to exactly the wire form of its
resource (``model.to_wire()``). The sandbox uses the same models to write responses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    PrivateAttr,
    model_validator,
)
from pydantic_core import SchemaValidator

from rdskit import _hooks
from rdskit.models.vocab import CREDIT_PLACES

__all__ = [
    "CREDIT_PLACES",
    "DEFAULT_WAIT_TIMEOUT",
    "OTHER_TAG",
    "Bound",
    "CreditString",
    "IsoDatetime",
    "RdsModel",
    "UnixDatetime",
    "UsdNumber",
    "UsdString",
    "Waitable",
    "by_tag",
    "from_unix",
    "parse_datetime",
    "to_iso",
    "to_unix",
    "unknown_fields",
    "wire_checker",
]


def parse_datetime(value: Any) -> Any:
    """Accept ISO 8601 strings, Unix seconds (int/float/numeric str) or datetimes; return UTC."""
    if value is None or isinstance(value, datetime):
        if isinstance(value, datetime):
            return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value
    if isinstance(value, bool):
        raise ValueError("a timestamp cannot be a boolean")
    if isinstance(value, int | float | Decimal):
        return from_unix(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return from_unix(float(text))
        except ValueError:
            pass
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        parsed = datetime.fromisoformat(text)
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    raise ValueError(f"cannot read a timestamp from {type(value).__name__}")


def from_unix(seconds: float | int | Decimal) -> datetime:
    """Unix seconds -> tz-aware UTC datetime."""
    return datetime.fromtimestamp(float(seconds), tz=UTC)


def to_unix(value: datetime) -> int:
    """Datetime -> whole Unix seconds (the wire form of Unix-second resources)."""
    return int(value.timestamp())


def to_iso(value: datetime) -> str:
    """Datetime -> ISO 8601 UTC string with a ``Z`` suffix (the wire form of ISO resources).

    Example:
        >>> to_iso(datetime(2026, 1, 5, 10, 0, 0, 250000, tzinfo=UTC))
        '2026-01-05T10:00:00.250Z'
    """
    value = value.astimezone(UTC)
    # The shortest form that loses nothing, so a wire value with microseconds survives.
    micro = value.microsecond
    spec = "microseconds" if micro % 1000 else "milliseconds" if micro else "seconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def _decimal(value: Any) -> Any:
    """Exact Decimal from a wire number or string; floats go through repr to stay exact."""
    if value is None or isinstance(value, Decimal):
        return value
    if isinstance(value, bool):
        raise ValueError("an amount cannot be a boolean")
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, int | str):
        return Decimal(str(value).strip())
    raise ValueError(f"cannot read an amount from {type(value).__name__}")


def _usd_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _six_places(value: Decimal) -> str:
    return str(value.quantize(CREDIT_PLACES, rounding=ROUND_HALF_EVEN))


IsoDatetime = Annotated[
    datetime,
    BeforeValidator(parse_datetime),
    PlainSerializer(to_iso, return_type=str, when_used="json"),
]
"""A timestamp sent as an ISO 8601 UTC string (datasets, dataset runs, audience resources)."""

UnixDatetime = Annotated[
    datetime,
    BeforeValidator(parse_datetime),
    PlainSerializer(to_unix, return_type=int, when_used="json"),
]
"""A timestamp sent as integer Unix seconds (most other resources)."""

UsdNumber = Annotated[
    Decimal,
    BeforeValidator(_decimal),
    PlainSerializer(_usd_number, when_used="json"),
]
"""A USD amount the wire carries as a JSON number; held exactly as Decimal."""

UsdString = Annotated[
    Decimal,
    BeforeValidator(_decimal),
    PlainSerializer(str, return_type=str, when_used="json"),
]
"""A USD amount the wire carries as a decimal string (402 ``required``/``available``)."""

CreditString = Annotated[
    Decimal,
    BeforeValidator(_decimal),
    PlainSerializer(_six_places, return_type=str, when_used="json"),
]
"""A credit amount the wire carries as a six-decimal string."""


class RdsModel(BaseModel):
    """Base of every wire model: keeps unknown fields, never crashes on new values.

    ``to_wire()`` gives the JSON-ready dict in the resource's own wire form, leaving out
    fields that were never set (so "absent in create response" stays absent).

    Example:
        >>> from rdskit.models import Dataset
        >>> ds = Dataset.model_validate(
        ...     {"id": "ds_1", "name": "oat", "created_at": "2026-01-01T00:00:00Z"}
        ... )
        >>> ds.to_wire()["created_at"]
        '2026-01-01T00:00:00Z'
    """

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        arbitrary_types_allowed=True,
        protected_namespaces=(),
    )

    # Fields ``to_wire()`` writes even when left at their default: union tags such as
    # ``type: "keyword"`` or a fixed ``operator`` mean nothing to the server when absent.
    wire_defaults: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _mark_wire_defaults(self) -> Self:
        if self.wire_defaults:
            self.model_fields_set.update(self.wire_defaults)
        return self

    def to_wire(self, **kwargs: Any) -> dict[str, Any]:
        """The JSON-ready dict in the service's wire form (unset fields left out)."""
        kwargs.setdefault("exclude_unset", True)
        return self.model_dump(mode="json", by_alias=True, **kwargs)

    def _repr_html_(self) -> str | None:
        """Rich HTML in notebooks: the ``_hooks.html`` hook, which the Jupyter layer
        implements (loaded on the first display); None for plain models."""
        return _hooks.html.call(self)


DEFAULT_WAIT_TIMEOUT = 3600.0
"""Seconds ``wait()`` gives a run by default before :class:`~rdskit.errors.WaitTimeout`."""


class Bound(RdsModel):
    """Base of the models that keep the client that returned them (the client binds them
    after casting): run-like objects and answers call back into it.

    Only these carry the private attribute: pydantic sets private state up on every
    instance of a model that declares any, nested ones included, which made validating a
    page of mentions about twice as slow.
    """

    # The client that returned this object, so run-like objects can ``.wait()``.
    _client: Any = PrivateAttr(default=None)
    # True when a reuse call returned this existing object instead of paying for a new
    # one: its wait then says this call charged nothing (rdskit.progress.billing_lines).
    _reused: bool = PrivateAttr(default=False)

    def _bind(self, client: Any) -> Self:
        self._client = client
        return self


class Waitable(Bound):
    """Base of run-like objects (dataset runs, audience runs, Ask turns, ...).

    ``wait()`` hands the object to the client that returned it; the polling rules live in
    ``rdskit.waiting``, not here.

    Example:
        >>> run = client.datasets.runs.create(ds.id, search_query=query)  # doctest: +SKIP
        >>> run.wait(timeout=600).status.type  # doctest: +SKIP
        'completed'
    """

    def wait(
        self,
        timeout: float | None = DEFAULT_WAIT_TIMEOUT,
        on_update: Callable[[Any], None] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Poll until the run reaches a terminal state; returns the final object.

        ``timeout`` defaults to an hour (None: no limit). With an async client this returns
        an awaitable.
        """
        if self._client is None:
            raise RuntimeError(
                f"this {type(self).__name__} is not bound to a client (it was built by hand); "
                "wait on the object a client method returned, or call client.wait(obj)"
            )
        return self._client.wait(self, timeout=timeout, on_update=on_update, **kwargs)


def unknown_fields(value: Any, where: str = "") -> list[str]:
    """Where ``value`` (a model, or lists and dicts of them) holds what its models do not
    declare: unknown fields (kept in ``model_extra``) and unknown union variants.

    The client's models stay lenient to the service (unknown fields and variants are
    kept); the sandbox's tests are strict with this: its responses must be exactly the
    models, so a misspelled field cannot pass unnoticed.

    Example:
        >>> from rdskit.models import Dataset
        >>> unknown_fields(Dataset.model_validate({"id": "ds_1", "name": "oat",
        ...     "created_at": 0, "mention_count": 3}))
        ['mention_count']
    """
    found: list[str] = []
    if isinstance(value, RdsModel):
        if type(value).__name__.startswith("Unknown"):  # a union's fallback member
            found.append(f"{where or '.'} ({type(value).__name__})")
        prefix = f"{where}." if where else ""
        found += [prefix + name for name in (value.model_extra or {})]
        for name in type(value).model_fields:
            found += unknown_fields(getattr(value, name), prefix + name)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found += unknown_fields(item, f"{where}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += unknown_fields(item, f"{where}[{key!r}]")
    return found


OTHER_TAG = "__other__"
"""The tag :func:`by_tag` gives values whose tag is missing or unknown (the fallback member)."""


def by_tag(field: str, known: Iterable[str]) -> Callable[[Any], str]:
    """Discriminator callable for a tagged union with a fallback member.

    Use it with ``pydantic.Discriminator`` and tag the fallback member ``OTHER_TAG`` so a
    tag the spec does not show yet is kept instead of failing validation.

    Example:
        >>> pick = by_tag("type", {"post"})
        >>> pick({"type": "post"}), pick({"type": "brand_new"})
        ('post', '__other__')
    """
    names = frozenset(known)

    def pick(value: Any) -> str:
        tag = value.get(field) if isinstance(value, dict) else getattr(value, field, None)
        return tag if isinstance(tag, str) and tag in names else OTHER_TAG

    return pick


def _plain(schema: Any) -> Any:
    """A pydantic core schema with every model turned into a typed dict of the same fields
    (same field schemas, validators, extra handling): it validates the same values but
    builds dicts, not model instances."""
    if isinstance(schema, list):
        return [_plain(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "function-after" and schema["schema"].get("type") == "model":
        # RdsModel's own after-validator only marks wire defaults on an instance; any other
        # would check something a dict cannot show, so such a model is refused.
        function = schema["function"]["function"]
        if getattr(function, "__qualname__", "") != "RdsModel._mark_wire_defaults":
            raise TypeError(f"{function.__qualname__} needs a model instance to validate")
        inner = _plain(schema["schema"])
        return inner | ({"ref": schema["ref"]} if "ref" in schema else {})
    if kind == "model":
        fields = schema["schema"]["fields"]
        typed = {
            "type": "typed-dict",
            "extra_behavior": "allow",
            "fields": {
                name: {
                    "type": "typed-dict-field",
                    "schema": _plain(field["schema"]),
                    "required": field["schema"]["type"] != "default",
                    **(
                        {"validation_alias": field["validation_alias"]}
                        if "validation_alias" in field
                        else {}
                    ),
                }
                for name, field in fields.items()
            },
        }
        return typed | ({"ref": schema["ref"]} if "ref" in schema else {})
    return {key: _plain(value) for key, value in schema.items()}


def wire_checker(model: type[RdsModel]) -> Callable[[Any], Any]:
    """A cast that validates a wire dict exactly as ``model`` does and returns the dict
    itself, without building a model or its nested models.

    For paths that only read the wire values (pages into frames): a value the model
    rejects still raises pydantic's ``ValidationError`` naming the field (the client turns
    it into :class:`~rdskit.errors.UnexpectedResponse`); unknown fields and values are
    accepted and kept, as the model keeps them.

    Example:
        >>> from rdskit.models import Mention
        >>> check = wire_checker(Mention)
        >>> check({"source": "reddit", "id": "1", "new_field": 2})
        {'source': 'reddit', 'id': '1', 'new_field': 2}
        >>> check({"source": "reddit", "id": "1", "num_likes": "many"})
        Traceback (most recent call last):
        ...
        pydantic_core._pydantic_core.ValidationError: 1 validation error for typed-dict
        num_likes
        ...
    """
    validate = SchemaValidator(_plain(model.__pydantic_core_schema__)).validate_python

    def check(item: Any) -> Any:
        validate(item)
        return item  # as decoded from the JSON body: the wire dict itself

    return check
