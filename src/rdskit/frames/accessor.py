"""The ``df.rds`` accessor: analyses, child frames, charts and Ask on rdskit frames.

Every method reads only the columns it needs, so it works on filtered, sliced and
column-selected frames; a frame missing one of them raises :class:`MissingColumnsError`
naming it. Mentions frames get the mention analyses, audience profile frames the profile
ones; :attr:`RdsAccessor.kind` tells which a frame is.

Every figure states its denominator: the numbers these methods return carry, in
``attrs``, ``"n"`` (the posts or profiles they are of), ``"scope"`` (the line the charts
print: n, ads in or out, subset or not) and ``"left_out"`` (rows left out, and why); a
mean or share per group comes with its n per group (a column, or ``attrs["n_by"]``).

Example:
    >>> df = rdskit.frames.mentions_frame(mentions)  # doctest: +SKIP
    >>> df[df.source == "tiktok"].rds.volume("W")  # doctest: +SKIP
    >>> df.rds.top(5).rds.ask("What do these posts complain about?")  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import numbers
import os
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit import _hooks
from rdskit._extras import require
from rdskit.errors import InvalidParameter, RdsError
from rdskit.frames import _arrow
from rdskit.frames._checks import (
    VIEW_BASED,
    MissingColumnsError,
    ad_rows,
    estimated_flags,
    views_mixed,
)
from rdskit.frames.columns import (
    COMMENTS,
    CREATOR_TIERS,
    EMOTIONS,
    HOOKS,
    MEDIA,
    PARAMETERS,
    SENTIMENT_LABELS,
    TOPICS,
    FrameSpec,
)
from rdskit.frames.data_management import data_management_note
from rdskit.frames.dtypes import numpy_frame, write_feather, write_parquet
from rdskit.frames.exports import write_csv, write_excel
from rdskit.frames.keywords import count_terms
from rdskit.frames.methods import methods_paragraph, scope_line
from rdskit.frames.networks import build_network, handles_frame, hashtags_frame
from rdskit.frames.periods import parse_period
from rdskit.frames.preregistration import plan_sentences
from rdskit.frames.provenance import Provenance, add_step, carry, provenance_of
from rdskit.frames.pseudonymise import Pseudonymiser, pseudonymise_frame
from rdskit.frames.verbs import dedupe

if TYPE_CHECKING:
    from rdskit.frames.agreement import Agreement
    from rdskit.frames.compare import Comparison
    from rdskit.frames.methods import MethodsText
    from rdskit.frames.plots import RdsPlots
    from rdskit.frames.preregistration import Plan
    from rdskit.validation import Codebook, Validity

__all__ = [
    "MAX_POST_REFS",
    "TOP_FIRST",
    "MissingColumnsError",
    "RdsAccessor",
    "attach_client",
    "origin_client",
]

TOP_FIRST = (
    "source",
    "author_title",
    "username",
    "title",
    "text",
    "created_at",
    "url",
    "id",
)
"""The columns :meth:`RdsAccessor.top` puts right after the ranking column (those present)."""

MAX_POST_REFS = 50
"""Ask takes at most 50 posts as context (``context.post_refs``)."""

FOLLOWER_BINS = (0, 1_000, 10_000, 100_000, 1_000_000, np.inf)
FOLLOWER_LABELS = ("<1k", "1k-10k", "10k-100k", "100k-1M", ">=1M")


# --- the client a frame came from ---------------------------------------------------------

# attrs must stay JSON-serialisable (pandas deep-copies them and writes them into parquet
# metadata), so a frame holds a token and the client lives here while it is alive.
_CLIENTS: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()


def attach_client(frame: pd.DataFrame, client: Any) -> pd.DataFrame:
    """Remember ``client`` as the origin of ``frame`` (used by ``df.rds.ask``)."""
    token = f"{type(client).__name__}@{id(client):x}"
    _CLIENTS[token] = client
    frame.attrs.setdefault("rdskit", {})["client"] = token
    return frame


def origin_client(frame: pd.DataFrame) -> Any | None:
    """The client that fetched ``frame``, if it is still alive."""
    token = frame.attrs.get("rdskit", {}).get("client")
    return None if token is None else _CLIENTS.get(token)


# --- the accessor --------------------------------------------------------------------------

_PROFILE_SIGNATURE = ("follower_count", "creator_tier", "username")


# Registered as ``df.rds`` by ``import rdskit`` (rdskit/__init__.py), which loads this module
# on the first ``df.rds`` only.
class RdsAccessor:
    """``df.rds``: Research Data Service analyses on mentions and profile frames."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._df = frame

    @property
    def kind(self) -> str:
        """``"mentions"``, ``"profiles"`` or the kind recorded by the loader (else
        ``"unknown"``): read from ``df.attrs`` when a loader set it, else from the columns.

        Example:
            >>> pd.DataFrame({"id": ["p1"], "follower_count": [10]}).rds.kind
            'profiles'
        """
        recorded = self._df.attrs.get("rdskit", {}).get("kind")
        if recorded:
            return str(recorded)
        columns = set(self._df.columns)
        if columns & set(_PROFILE_SIGNATURE) and "num_likes" not in columns:
            return "profiles"
        return "mentions" if {"source", "id"} <= columns else "unknown"

    def _need(self, method: str, *columns: str) -> pd.DataFrame:
        missing = [c for c in columns if c not in self._df.columns]
        if missing:
            raise MissingColumnsError(method, missing, self.kind)
        return self._df

    @property
    def plot(self) -> RdsPlots:
        """Charts: ``df.rds.plot.volume()``, ``.sentiment()``, ``.sources()``,
        ``.emotions()``, ``.engagement()`` (each returns a matplotlib Axes)."""
        from rdskit.frames.plots import RdsPlots

        require("jupyter", "df.rds.plot", ("matplotlib",))
        return RdsPlots(self)

    # --- mentions over time ----------------------------------------------------------------

    def volume(self, freq: str = "D", by: str | None = None) -> pd.Series | pd.DataFrame:
        """Mentions per period (``freq``: ``"daily"``, ``"weekly"``, ``"monthly"``,
        ``"quarterly"``... or a pandas offset alias such as ``"D"``, ``"W"``, ``"MS"``; see
        :mod:`rdskit.frames.periods`); with ``by``, one column per value of that column.
        Empty periods count 0; periods are labelled as ``pd.Grouper`` labels them.

        Example:
            >>> df.rds.volume("weekly", by="source").tail(3)  # doctest: +SKIP
        """
        period = parse_period(freq)
        frame = self._need("volume", "created_at", *([by] if by else []))
        grouper = pd.Grouper(key="created_at", freq=period.alias)
        counts = frame.groupby(grouper).size().rename("mentions")
        dated = frame["created_at"].notna()
        if by is None:
            return _state(counts, frame, dated, "dated posts", {"without created_at": ~dated})
        table = frame.groupby([grouper, by], observed=True).size().unstack(by, fill_value=0)
        counted = dated & frame[by].notna()
        left_out = {"without created_at": ~dated, f"without {by}": dated & frame[by].isna()}
        return _state(
            table.reindex(counts.index, fill_value=0), frame, counted, "dated posts", left_out
        )

    def sentiment_over_time(self, freq: str = "W") -> pd.DataFrame:
        """Per period: ``mentions``, mean ``sentiment_score``, ``analysed`` (posts with a
        dominant sentiment: the n of the shares) and the share of analysed posts whose
        dominant sentiment is ``negative``/``neutral``/``positive``.

        ``freq`` as in :meth:`volume` (``"weekly"``, ``"monthly"``, ``"W"``...).

        Example:
            >>> df.rds.sentiment_over_time("monthly")  # doctest: +SKIP
        """
        period = parse_period(freq)
        frame = self._need("sentiment_over_time", "created_at", "sentiment_score", "sentiment")
        grouper = pd.Grouper(key="created_at", freq=period.alias)
        by_period = frame.groupby(grouper)
        out = pd.DataFrame(
            {
                "mentions": by_period.size(),
                "sentiment_score": by_period["sentiment_score"].mean().astype("float64"),
            }
        )
        labels = (
            frame.groupby([grouper, "sentiment"])
            .size()
            .unstack("sentiment", fill_value=0)
            .reindex(index=out.index, columns=list(SENTIMENT_LABELS), fill_value=0)
        )
        analysed = labels.sum(axis=1)
        shares = labels.div(analysed.where(analysed > 0), axis=0).astype("float64")
        table = out.assign(analysed=analysed.astype("int64")).join(shares)
        dated, labelled = frame["created_at"].notna(), frame["sentiment"].notna()
        left_out = {"without created_at": ~dated, "without sentiment": dated & ~labelled}
        return _state(table, frame, dated & labelled, "analysed posts", left_out)

    # --- rankings ----------------------------------------------------------------------------

    def top(
        self, n: int = 10, by: str = "engagement_rate", *, per: str | None = None
    ) -> pd.DataFrame:
        """The ``n`` rows with the highest ``by`` (missing values last), with ``by`` and a
        compact set of columns first (:data:`TOP_FIRST`: who, where, what, when) so the
        ranking shows in a notebook; every other column follows.

        ``per="source"`` (or any column) ranks within each of its values: the top ``n`` of
        each, grouped. Do that for views and ``engagement_rate``: some sources only
        estimate views (``are_views_estimated``), so one ranking across sources compares
        estimates with counts; such a ranking emits an
        :class:`~rdskit.errors.EstimatedViewsWarning`.

        Example:
            >>> df.rds.top(5, by="num_views").columns[:4].tolist()  # doctest: +SKIP
            ['num_views', 'source', 'author_title', 'title']
            >>> df.rds.top(3, per="source")["source"].value_counts().max()  # doctest: +SKIP
            3
        """
        n = _row_count(n)
        frame = self._need("top", by, *([per] if per else []))
        ordered = frame.sort_values(by, ascending=False, na_position="last", kind="stable")
        if per is None:
            _warn_if_views_mixed(frame, by)
            ranked = ordered.head(n)
        else:
            groups = ordered.groupby(per, observed=True, sort=True, dropna=False)
            ranked = pd.concat([group.head(n) for _, group in groups]) if len(ordered) else ordered
        first = [by, *(c for c in TOP_FIRST if c != by and c in ranked.columns)]
        return ranked[first + [c for c in ranked.columns if c not in first]]

    def organic(self) -> pd.DataFrame:
        """The rows that are not ads (``content_type`` other than ``"ad"``, and no
        advertiser): what to analyse when the question is what people say.

        Brand ads are written by brands, are promoted (so they rank high by views and
        engagement) and carry the brand's tone; left in, they distort shares of voice,
        sentiment and "top posts". Rows of unknown ``content_type`` are kept.

        Example:
            >>> people = df.rds.organic()  # doctest: +SKIP
            >>> (people["content_type"] == "ad").any()  # doctest: +SKIP
            False
        """
        frame = self._need("organic", "content_type")
        ad = ad_rows(frame)
        out = frame[~ad]
        # The methods paragraph says ads were left out (and how many) from this record.
        out.attrs = copy.deepcopy(frame.attrs)
        return add_step(out, "exclude_ads", {"removed": int(ad.sum()), "by": "df.rds.organic()"})

    def top_authors(self, n: int = 10) -> pd.DataFrame:
        """Authors with the most mentions (per source): ``mentions``, summed ``num_likes``
        and ``num_views``, mean ``engagement_rate`` and ``rated`` (the author's posts with
        an engagement rate: the n of that mean); ties broken by likes.
        ``attrs["views_estimated"]``: how many of the posts counted have estimated views
        (None when the frame does not say).

        Example:
            >>> df.rds.top_authors(3)  # doctest: +SKIP
        """
        frame = self._need(
            "top_authors",
            "source",
            "author_title",
            "id",
            "num_likes",
            "num_views",
            "engagement_rate",
        )
        out = frame.groupby(["source", "author_title"], observed=True).agg(
            mentions=("id", "size"),
            num_likes=("num_likes", "sum"),
            num_views=("num_views", "sum"),
            engagement_rate=("engagement_rate", "mean"),
            rated=("engagement_rate", "count"),
        )
        ranked = out.sort_values(["mentions", "num_likes"], ascending=False, kind="stable")
        named = frame["source"].notna() & frame["author_title"].notna()
        left_out = {"without source or author_title": ~named}
        out = ranked.head(_row_count(n)).reset_index()
        out.attrs["views_estimated"] = _estimated_views(frame, named)
        return _state(out, frame, named, "posts", left_out)

    def share_of_voice(self, by: str = "source") -> pd.DataFrame:
        """``mentions`` per value of ``by`` and its ``share`` of the total, largest first.

        A list column (``mentioned_brands``, ``topics``...) counts each post once per
        distinct value, and shares are of all values counted. Posts without a value are
        left out (``attrs["n"]``: the posts counted; ``attrs["left_out"]``).

        Example:
            >>> df.rds.share_of_voice("mentioned_brands").head()  # doctest: +SKIP
        """
        frame = self._need("share_of_voice", by)
        counts = _value_counts(frame[by])
        out = pd.DataFrame({"mentions": counts, "share": counts / counts.sum()})
        out.index.name = by
        valued = _has_value(frame[by])
        return _state(out, frame, valued, f"posts with a {by}", {f"without {by}": ~valued})

    def engagement(self, by: str = "source") -> pd.Series:
        """Mean ``engagement_rate`` per value of ``by``, highest first (posts without a
        rate are left out; ``attrs["n_by"]``: the posts each mean is of, ``attrs["n"]``
        their total, ``attrs["views_estimated"]``: how many of them have estimated views,
        None when the frame does not say). Some sources only estimate views
        (``are_views_estimated``), and the rate divides by views: when the frame mixes
        estimated and counted views this warns
        (:class:`~rdskit.errors.EstimatedViewsWarning`); compare within a source (filter
        first).

        Example:
            >>> df.rds.engagement("content_type")  # doctest: +SKIP
        """
        frame = self._need("engagement", by, "engagement_rate")
        if by != "source":  # per source, each rate is compared with its own source's
            views_mixed(
                frame,
                f"this comparison of engagement rates by {by}",
                f"compare within each source: df[df.source == 'tiktok'].rds.engagement({by!r})",
            )
        else:
            views_mixed(
                frame,
                "this comparison of engagement rates across sources",
                "engagement rates of sources that estimate views are not comparable with "
                "the others; compare within a source",
            )
        grouped = frame.groupby(by, observed=True)["engagement_rate"]
        means = grouped.mean().astype("float64").sort_values(ascending=False, kind="stable")
        rated = frame["engagement_rate"].notna()
        means.attrs["n_by"] = {
            _plain(k): int(v) for k, v in grouped.count().reindex(means.index).items()
        }
        left_out = {"without engagement_rate": ~rated, f"without {by}": rated & frame[by].isna()}
        drawn = rated & frame[by].notna()
        means.attrs["views_estimated"] = _estimated_views(frame, drawn)
        return _state(means, frame, drawn, "posts with an engagement rate", left_out)

    def emotions(self) -> pd.DataFrame:
        """Per emotion: ``mean`` score, ``dominant`` (posts where it is the largest),
        ``dominant_share`` (of posts with a dominant emotion) and ``n`` (posts with a score
        for it: the n of its mean); posts without emotions are left out.

        Example:
            >>> df.rds.emotions().sort_values("mean", ascending=False)  # doctest: +SKIP
        """
        columns = [f"emotion_{e}" for e in EMOTIONS]
        frame = self._need("emotions", *columns, "dominant_emotion")
        dominant = frame["dominant_emotion"].value_counts().reindex(EMOTIONS, fill_value=0)
        analysed = dominant.sum()
        out = pd.DataFrame(
            {
                "mean": frame[columns].mean().astype("float64").to_numpy(),
                "dominant": dominant.to_numpy(dtype="int64"),
                "dominant_share": (dominant / analysed if analysed else dominant * np.nan).to_numpy(
                    dtype="float64"
                ),
                "n": frame[columns].count().to_numpy(dtype="int64"),
            },
            index=pd.Index(EMOTIONS, name="emotion"),
        )
        scored = frame[columns].notna().any(axis=1)
        what = "posts with emotions analysed"
        return _state(out, frame, scored, what, {"without emotions": ~scored})

    def keywords(self, n: int = 20, ngram: int = 1) -> pd.DataFrame:
        """The ``n`` most frequent words (``ngram=1``) or 2-/3-word phrases in titles and
        texts, stopwords left out: ``term``, ``count``, ``posts`` (posts using it, of
        ``attrs["n"]`` posts with a title or text).

        Example:
            >>> df.rds.keywords(10, ngram=2)  # doctest: +SKIP
        """
        frame = self._need("keywords", "title", "text")
        texts = frame["title"].fillna("").astype(str) + " " + frame["text"].fillna("").astype(str)
        worded = texts.str.strip().ne("")
        terms = count_terms(texts, n=_row_count(n), ngram=ngram)
        return _state(terms, frame, worded, "posts with a title or text", {"without text": ~worded})

    # --- child frames ------------------------------------------------------------------------

    def _children(
        self,
        method: str,
        column: str,
        spec: FrameSpec,
        extra: Callable[[pa.Array, pa.Array, pa.Array], dict[str, pa.Array]] | None = None,
    ) -> pd.DataFrame:
        table = _arrow.from_frame(
            self._need(method, "source", "id", column), ["source", "id", column]
        )
        lists = table[column].combine_chunks()
        flat, parents = pc.list_flatten(lists), pc.list_parent_indices(lists)
        derived = {key: table[key].combine_chunks().take(parents) for key in ("source", "id")}
        if extra is not None:
            derived |= extra(lists, flat, parents)
        return carry(_arrow.to_frame(_arrow.build_table(spec, flat, derived), spec.name), self._df)

    def comments(self) -> pd.DataFrame:
        """One row per comment, with its post's ``source`` and ``id``.

        Example:
            >>> df.rds.comments().sort_values("num_likes").tail(3)  # doctest: +SKIP
        """
        return self._children("comments", "comments", COMMENTS)

    def topics(self) -> pd.DataFrame:
        """One row per content topic (``topic``, ``evidence``) with its post's key."""
        return self._children("topics", "content_topics", TOPICS)

    def hooks(self) -> pd.DataFrame:
        """One row per hook (``hook_type``, ``text``) with its post's key."""
        return self._children("hooks", "hooks", HOOKS)

    def media(self) -> pd.DataFrame:
        """One row per media object: ``position``, ``type``, the first rendition's
        ``url``/``width``/``height`` and the number of ``versions``."""
        return self._children("media", "media", MEDIA, _media_columns)

    def parameters(self) -> pd.DataFrame:
        """One row per custom parameter value: ``parameter_id``, ``parameter`` (its
        name), ``value``, ``status``, ``computed_at``."""
        return self._children("parameters", "parameters", PARAMETERS)

    # --- Ask ---------------------------------------------------------------------------------

    def post_refs(self) -> list[dict[str, str]]:
        """``[{id, source}]`` of these rows: the Ask context for exactly these posts.

        Example:
            >>> pd.DataFrame({"source": ["reddit"], "id": ["t3_a"]}).rds.post_refs()
            [{'id': 't3_a', 'source': 'reddit'}]
        """
        frame = self._need("post_refs", "source", "id")
        if len(frame) > MAX_POST_REFS:
            raise InvalidParameter(
                "post_refs",
                f"Ask takes at most {MAX_POST_REFS} posts as context and this frame has "
                f"{len(frame)} rows; narrow it first, e.g. df.rds.top({MAX_POST_REFS})",
            )
        return [
            {"id": str(i), "source": str(s)}
            for s, i in zip(frame["source"], frame["id"], strict=True)
        ]

    def ask(self, question: str, client: Any = None, *, reuse: bool = False) -> Any:
        """Ask the assistant about exactly these posts (at most 50); returns the accepted
        turn (``.wait()`` for the reply). Uses the client that fetched the frame unless
        ``client`` is given. ``reuse=True``: as in ``client.ask`` (a re-run returns the
        turn already paid for).

        Example:
            >>> turn = df.rds.top(20).rds.ask("Why do these posts do so well?")  # doctest: +SKIP
            >>> print(turn.wait().text)  # doctest: +SKIP
        """
        client = client if client is not None else origin_client(self._df)
        if client is None:
            raise RdsError(
                "this frame has no client to ask with (it was not fetched by a client's "
                "to_frame, or that client is gone): pass client=..."
            )
        # reuse is only passed when asked for, so any object with ``ask`` still serves.
        options = {"reuse": True} if reuse else {}
        return client.ask(question, post_refs=self.post_refs(), **options)

    # --- audience profiles -------------------------------------------------------------------

    def creator_tiers(self) -> pd.DataFrame:
        """``profiles`` and ``share`` per creator tier, smallest tier first.

        Example:
            >>> profiles.rds.creator_tiers()  # doctest: +SKIP
        """
        tiers = self._need("creator_tiers", "creator_tier")["creator_tier"]
        counts = _value_counts(tiers)
        order = [t for t in CREATOR_TIERS if t in counts.index]
        counts = counts.reindex(order + [t for t in counts.index if t not in order])
        return _profile_shares(counts, "creator_tier", tiers.notna())

    def follower_distribution(self) -> pd.DataFrame:
        """``profiles`` and ``share`` per follower-count band (<1k, 1k-10k, 10k-100k,
        100k-1M, >=1M); profiles without a count are left out."""
        followers = self._need("follower_distribution", "follower_count")["follower_count"]
        bands = pd.cut(
            followers.dropna().astype("float64"),
            FOLLOWER_BINS,
            right=False,
            labels=FOLLOWER_LABELS,
        )
        return _profile_shares(bands.value_counts(sort=False), "followers", followers.notna())

    def top_interests(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` most common ``interest_clusters``: ``profiles`` having each and their
        ``share`` of all profiles in the frame (``attrs["n"]``), those without interests
        included."""
        frame = self._need("top_interests", "interest_clusters")
        counts = _value_counts(frame["interest_clusters"]).head(_row_count(n))
        out = pd.DataFrame({"profiles": counts, "share": counts / len(frame)})
        out.index.name = "interest"
        out.attrs |= {"n": len(frame), "scope": f"n = {len(frame):,} profiles", "left_out": {}}
        return out

    def verified_share(self) -> float:
        """The share of profiles with ``is_verified`` true (profiles without the flag are
        left out; NaN when none has it).

        Example:
            >>> pd.DataFrame({"is_verified": [True, False, False, None]}).rds.verified_share()
            0.3333333333333333
        """
        flags = self._need("verified_share", "is_verified")["is_verified"].dropna()
        return float(flags.astype(bool).mean()) if len(flags) else float("nan")

    # --- research: provenance, methods, pseudonyms, networks, comparison, exports ----------
    # (rdskit.frames.provenance, .methods, .pseudonymise, .networks, .compare, .exports)

    def provenance(self) -> Provenance:
        """Where this frame came from: service, account, datasets, runs and their
        parameters, the query, when, the rdskit version, and later steps.

        Example:
            >>> df.rds.provenance().runs[0].search_query  # doctest: +SKIP
            'oat milk'
        """
        return provenance_of(self._df)

    def methods(self, validation: Validity | None = None, plan: Plan | None = None) -> MethodsText:
        """A methods paragraph (Markdown; ``.text`` for plain text) whose numbers are
        this frame's. A validation of the labels is stated when a figure was corrected
        with it (``compare(validation=...)``, the share charts), or when passed here
        (:func:`rdskit.validation.validity`); otherwise validation is not mentioned. A
        pre-registered ``plan`` (a study file's ``[plan]``: ``study.plan``) is stated with
        each deviation from it named (a filter, a test, a sample size; see
        :mod:`rdskit.frames.preregistration`).

        Example:
            >>> print(df.rds.methods(plan=load_study("study.toml").plan).text)  # doctest: +SKIP
        """
        stated = [] if plan is None else plan_sentences(self._df, plan)
        return methods_paragraph(self._df, validation, stated)

    def data_management_note(self, **answers: Any) -> MethodsText:
        """The study's data-management note (Markdown; ``.text`` plain): what was collected,
        from the provenance, and the lawful basis, special categories, retention date and
        impact-assessment screening from ``answers`` (see
        :func:`rdskit.frames.data_management.data_management_note`); what is not answered
        says **to complete**.

        Example:
            >>> print(df.rds.data_management_note(lawful_basis="6(1)(f)").text)  # doctest: +SKIP
        """
        return data_management_note(self._df, **answers)

    def dedupe(self) -> pd.DataFrame:
        """One row per post (source, id), the first kept: for stacked loads
        (``pd.concat([a, b])``). Category dtypes are restored, every input's provenance is
        kept and the step recorded (see :mod:`rdskit.frames.verbs`).

        Example:
            >>> both = pd.concat([oatly, alpro]).rds.dedupe()  # doctest: +SKIP
        """
        return dedupe(self._df)

    def pseudonymise(
        self,
        key: str | bytes | None = None,
        *,
        allow: Iterable[str] = (),
        post_urls: str = "drop",
        text: str = "keep",
        prefix: str = "u_",
        length: int = 12,
    ) -> pd.DataFrame:
        """A copy with authors and commenters replaced by keyed pseudonyms
        (HMAC-SHA-256): mentions, comments (``df.rds.comments()``) and profile frames.
        Same key, same pseudonyms across frames and calls; ``allow`` keeps public
        accounts; post and profile links are removed (``post_urls="keep"`` keeps post
        links). ``text="drop"`` or ``"truncate"`` removes or cuts verbatim texts: a quote
        kept word for word can be searched for and leads to its author (see
        :mod:`rdskit.frames.pseudonymise`).

        Example:
            >>> safe = df.rds.pseudonymise(os.environ["RDS_PSEUDONYM_KEY"])  # doctest: +SKIP
        """
        people = Pseudonymiser(key, allow=allow, prefix=prefix, length=length)
        del key  # only the hidden keyed state stays: no traceback's locals show the key
        kind = self.kind
        if kind == "unknown" and "author_username" in self._df.columns:
            kind = "comments"
        return pseudonymise_frame(
            self._df,
            people,
            kind=kind,
            post_urls=post_urls,  # type: ignore[arg-type]
            text=text,  # type: ignore[arg-type]
        )

    def network(self, kind: str = "reply") -> Any:
        """A networkx graph: ``"reply"`` (commenter -> author), ``"hashtags"``,
        ``"brands"`` (co-mentions) or ``"author-brand"``, with node and edge attributes
        (write it with ``networkx.write_gexf`` for Gephi).

        Example:
            >>> nx.write_gexf(df.rds.network("reply"), "replies.gexf")  # doctest: +SKIP
        """
        return build_network(self._df, kind)

    def hashtags(self) -> pd.DataFrame:
        """One row per (post, hashtag) in titles and texts: ``source``, ``id``,
        ``hashtag`` (lower-cased).

        Example:
            >>> df.rds.hashtags()["hashtag"].value_counts().head()  # doctest: +SKIP
        """
        frame = self._need("hashtags", "source", "id", "text")
        return carry(hashtags_frame(frame), frame, "hashtags")

    def handles(self) -> pd.DataFrame:
        """One row per (post, ``@handle`` it mentions): ``source``, ``id``, ``handle``.

        Example:
            >>> df.rds.handles().groupby("handle").size()  # doctest: +SKIP
        """
        frame = self._need("handles", "source", "id", "text")
        return carry(handles_frame(frame), frame, "handles")

    def compare(self, by: str = "dataset", **options: Any) -> Comparison:
        """Compare datasets (or sources, or any column's values): volume and sentiment
        shares with Wilson intervals (none for a volume split the collection fixed: by
        dataset or source), engagement medians with bootstrap intervals, and the
        distinguishing terms (see :mod:`rdskit.frames.compare`).

        Example:
            >>> cmp = df.rds.compare(by="dataset")  # doctest: +SKIP
            >>> cmp.sentiment  # doctest: +SKIP
        """
        from rdskit.frames.compare import compare_frame

        return compare_frame(self._df, by, **options)

    def agreement(self, reference: pd.DataFrame, **options: Any) -> Agreement:
        """This frame's labels against a hand-coded ``reference`` frame: agreement,
        Cohen's kappa, per-class error rates, bootstrap intervals. Options (see
        :func:`rdskit.frames.agreement.frame_agreement`): ``column="sentiment"``,
        ``reference_column="label"``, ``on="id"`` (with ``source`` too when both frames have
        it: ids are unique per source only), ``strata=None`` (e.g. ``"sentiment"``
        when the sample was drawn per service label: the figures are then weighted to the
        strata's sizes in ``population``, default this frame, so they describe the
        collection, not the sample), ``population``, ``weights`` (your own weights
        instead: a column of ``reference`` or one per reference row), ``confidence=0.95``,
        ``n_boot=2000``, ``seed=0``.

        Example:
            >>> res = df.rds.agreement(coded, strata="sentiment")  # doctest: +SKIP
            >>> res.kappa, res.unweighted.kappa  # doctest: +SKIP
        """
        from rdskit.frames.agreement import frame_agreement

        return frame_agreement(self._df, reference, **options)

    def code(self, codebook: Codebook, *, coder: str, **options: Any) -> Any:
        """Code posts by keyboard in Jupyter: one post at a time, a key per code, every
        decision appended to ``<directory>/<coder>.jsonl`` (crash-safe; it resumes at the
        first uncoded post). Options (see :mod:`rdskit.jupyter.coding`): ``sample`` (a
        frame of source and id, e.g. :func:`rdskit.validation.validation_sample`'s;
        default every post), ``directory="codes"``, ``blind=True`` (hide the service's
        label), ``label="sentiment"``, ``pseudonymise`` (a key: show pseudonymised posts).

        Example:
            >>> df.rds.code(Codebook.from_yaml("book.yaml"), coder="ann")  # doctest: +SKIP
        """
        return _hooks.code.call(self._df, codebook, coder=coder, **options)

    def adjudicate(
        self, codebook: Codebook, *, coders: Sequence[str], adjudicator: str, **options: Any
    ) -> Any:
        """Settle the posts ``coders`` coded differently: each coder's code and note shown,
        the adjudicator's key recorded as an adjudication (``<adjudicator>.adjudication
        .jsonl``, read by ``read_codes(directory, adjudications=True)``). Options:
        ``sample``, ``directory="codes"``, ``label``.

        Example:
            >>> df.rds.adjudicate(book, coders=["ann", "bob"], adjudicator="cy")  # doctest: +SKIP
        """
        return _hooks.adjudicate.call(
            self._df,
            codebook,
            coders=coders,
            adjudicator=adjudicator,
            **options,
        )

    def to_excel(self, path: str | os.PathLike[str]) -> Path:
        """An .xlsx workbook: ``posts``, ``comments`` and ``provenance`` sheets, lists
        flattened (see :mod:`rdskit.frames.exports`).

        Example:
            >>> df.rds.to_excel("oat.xlsx")  # doctest: +SKIP
        """
        return write_excel(self._df, path)

    def to_parquet(self, path: str | os.PathLike[str]) -> Path:
        """One parquet file any reader takes back: plain ``pd.read_parquet`` (any
        arguments, no rdskit needed), DuckDB, Polars, pyarrow; :func:`rdskit.frames.read_parquet`
        restores the exact dtypes and the provenance.

        Example:
            >>> df.rds.to_parquet("oat.parquet")  # doctest: +SKIP
        """
        return write_parquet(self._df, path)

    def to_feather(self, path: str | os.PathLike[str]) -> Path:
        """One feather (Arrow IPC) file plain ``pd.read_feather`` reads back, like
        :meth:`to_parquet`.

        Example:
            >>> df.rds.to_feather("oat.feather")  # doctest: +SKIP
        """
        return write_feather(self._df, path)

    def to_numpy_dtypes(self) -> pd.DataFrame:
        """A copy with NumPy and object dtypes only, for tools that know no Arrow dtype
        (lists become tuples, so ``drop_duplicates``, ``nunique`` and ``sort_values`` work;
        see :func:`rdskit.frames.dtypes.numpy_frame`).

        Example:
            >>> df.rds.to_numpy_dtypes().dtypes["num_likes"]  # doctest: +SKIP
            dtype('int64')
        """
        return numpy_frame(self._df)

    def to_csv(self, path: str | os.PathLike[str], excel: bool = True) -> Path:
        """A CSV with lists flattened (``excel=True``: UTF-8 BOM, formulas neutralised)
        and its provenance in ``<file>.provenance.json``.

        Example:
            >>> df.rds.to_csv("oat.csv")  # doctest: +SKIP
        """
        return write_csv(self._df, path, excel=excel)


# --- helpers -------------------------------------------------------------------------------


def _value_counts(values: pd.Series) -> pd.Series:
    """Rows per value, largest first (ties by value); list columns count each row once
    per distinct element; values no row has are left out."""
    if isinstance(values.dtype, pd.ArrowDtype) and pa.types.is_list(values.dtype.pyarrow_dtype):
        # Positions, not labels: a filtered frame's index may repeat.
        exploded = values.reset_index(drop=True).explode().dropna()
        values = exploded.reset_index().drop_duplicates().iloc[:, 1]
    counts = values.value_counts()
    counts = counts[counts > 0].sort_index(kind="stable")
    return counts.sort_values(ascending=False, kind="stable").rename("count")


def _profile_shares(counts: pd.Series, name: str, valued: pd.Series) -> pd.DataFrame:
    """``profiles`` and ``share`` per value, stating n (the profiles with a value)."""
    total = counts.sum()
    out = pd.DataFrame({"profiles": counts.astype("int64"), "share": counts / total})
    out.index = pd.Index(out.index.astype(str), name=name)
    n, missing = int(valued.sum()), int((~valued).sum())
    left_out = {f"without {valued.name}": missing} if missing else {}
    out.attrs |= {"n": n, "scope": f"n = {n:,} profiles with a {valued.name}", "left_out": left_out}
    return out


def _has_value(values: pd.Series) -> pd.Series:
    """Which rows have a value: not missing, and for a list column not empty."""
    present = values.notna()
    if isinstance(values.dtype, pd.ArrowDtype) and pa.types.is_list(values.dtype.pyarrow_dtype):
        present &= values.list.len().fillna(0).gt(0)
    return present.astype(bool)


def _estimated_views(frame: pd.DataFrame, rows: pd.Series) -> int | None:
    """How many of ``rows`` have estimated views; None when the frame does not say."""
    if "are_views_estimated" not in frame.columns:
        return None
    return int((estimated_flags(frame) & np.asarray(rows, dtype=bool)).sum())


def _plain(label: Any) -> Any:
    """A group label as a JSON key (attrs are written into parquet metadata as JSON)."""
    return label if isinstance(label, str | bool | int | float) else str(label)


def _state(out: Any, frame: pd.DataFrame, drawn: Any, what: str, left_out: dict[str, Any]) -> Any:
    """Record in ``out.attrs`` the n of a figure (the rows ``drawn``), its scope line and
    the rows ``left_out`` (reason -> mask; reasons no row has are not listed)."""
    n = int(np.asarray(drawn, dtype=bool).sum())
    out.attrs["n"] = n
    out.attrs["scope"] = scope_line(frame, n, what, drawn)
    counts = {why: int(np.asarray(rows, dtype=bool).sum()) for why, rows in left_out.items()}
    out.attrs["left_out"] = {why: count for why, count in counts.items() if count}
    return out


def _media_columns(lists: pa.Array, flat: pa.Array, parents: pa.Array) -> dict[str, pa.Array]:
    starts = _arrow.offsets(lists).to_numpy()[:-1]
    position = np.arange(len(flat)) - starts[parents.to_numpy()]
    versions = pc.struct_field(flat, [flat.type.get_field_index("version_list")])
    first = _arrow.first_of(versions)
    return {
        "position": pa.array(position),
        "url": pc.struct_field(first, ["url"]),
        "width": pc.struct_field(first, ["width"]),
        "height": pc.struct_field(first, ["height"]),
        "versions": pc.fill_null(pc.list_value_length(versions), 0),
    }


def _row_count(n: object) -> int:
    """``n`` of the ranking methods: a whole number of rows, 0 or more (``head(-1)`` would
    silently mean "all but the last", and a string fails deep inside pandas)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise InvalidParameter("n", f"must be a whole number of rows, 0 or more; got {n!r}")
    return int(n)


def _warn_if_views_mixed(frame: pd.DataFrame, by: str) -> None:
    """Warn when one ranking by views compares estimated views with counted ones."""
    if by in VIEW_BASED:
        views_mixed(
            frame, f"this ranking by {by}", "rank within each source: df.rds.top(n, per='source')"
        )
