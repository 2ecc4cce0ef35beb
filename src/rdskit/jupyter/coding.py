"""Coding posts by keyboard in Jupyter: ``df.rds.code(codebook, coder=...)`` and the
adjudication of two coders' disagreements, ``df.rds.adjudicate(...)``.

One post at a time: source, date, link, title, text, media descriptions, the service's
label unless ``blind`` (the default), its comments on demand. The coder types into the
key box (it keeps the focus, so coding needs no mouse):

- a code's key (``1``, ``2``, ... or the codebook's own): code the post, go to the next
  uncoded one;
- ``?`` mark the next code "unsure"; ``<`` / ``>`` previous / next post; ``~`` undo the
  last code (and go back to its post); ``#`` show or hide the comments;
- a note: the note box (Tab to it, Enter saves) attaches it to the post's code.

Every decision is appended, flushed and fsync-ed to ``<directory>/<coder>.jsonl``
(:class:`rdskit.validation.CodingLog`) before the widget moves on: a kernel restart or a
closed tab loses nothing, and the widget made again resumes at the first uncoded post.
Read the codes with :func:`rdskit.validation.read_codes` or the widget's
:meth:`CodingWidget.codes` (the sample's posts joined on ``(source, id)``).

The widget needs a live kernel and ipywidgets (JupyterLab 4 or Notebook 7), in a trusted
notebook; elsewhere (an untrusted notebook, GitHub, nbviewer, a terminal) it shows a
text/plain line saying so and where the codes are.

Example (a notebook cell)::

    book = Codebook.from_yaml("codebook.yaml")
    df.rds.code(book, coder="ann", sample=validation_sample(df, 10))
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rdskit._extras import require
from rdskit.errors import InvalidParameter
from rdskit.validation import Codebook, CodingLog, read_codes

__all__ = ["AdjudicationWidget", "CodingWidget", "adjudication_widget", "coding_widget"]

KEY_CLASS = "rdskit-code-keys"
"""CSS class of the key box (the browser tests find it by this)."""
_RESET_AT = 200  # the key box is emptied past this many characters


def _esc(value: Any) -> str:
    return html.escape("" if value is None or value != value else str(value), quote=True)


def _posts(frame: pd.DataFrame, sample: pd.DataFrame | None) -> pd.DataFrame:
    """The posts to code, in the sample's order, each (source, id) once."""
    missing = [c for c in ("source", "id") if c not in frame.columns]
    if missing:
        raise InvalidParameter("frame", f"coding needs the columns source and id; no {missing[0]}")
    posts = frame.drop_duplicates(["source", "id"]).astype({"source": str, "id": str})
    if sample is None:
        return posts.reset_index(drop=True)
    keys = sample[["source", "id"]].astype(str).drop_duplicates()
    joined = keys.merge(posts, on=["source", "id"], how="left", indicator=True)
    absent = joined[joined["_merge"] == "left_only"]
    if len(absent):
        first = absent.iloc[0]
        raise InvalidParameter(
            "sample",
            f"{len(absent)} post(s) of the sample are not in the frame, first "
            f"({first['source']}, {first['id']})",
        )
    return joined.drop(columns="_merge").reset_index(drop=True)


class CodingWidget:
    """The coding widget (see the module docs); ``widget`` is its ipywidgets box."""

    title = "Coding"

    def __init__(
        self,
        posts: pd.DataFrame,
        codebook: Codebook,
        *,
        coder: str,
        directory: str | os.PathLike[str] = "codes",
        blind: bool = True,
        label: str = "sentiment",
        adjudication: bool = False,
    ) -> None:
        require("jupyter", "the coding widget", ("ipywidgets",))
        import ipywidgets as w

        if not len(posts):
            raise InvalidParameter("sample", "there is no post to code")
        self.posts, self.codebook, self.coder = posts, codebook, coder
        self.blind, self.label = blind, label
        self.log = CodingLog(directory, coder, codebook, adjudication=adjudication)
        self._unsure = False
        self._show_comments = False
        self.header = w.HTML()
        self.post = w.HTML()
        self.comments = w.HTML()
        self.status = w.HTML()
        legend = " · ".join(f"<b>{_esc(k)}</b> {_esc(v)}" for k, v in codebook.keys.items())
        self.keys = w.Text(
            placeholder="type a key here (this box keeps the focus)",
            description="key",
            continuous_update=True,
            layout=w.Layout(width="24em"),
        )
        self.keys.add_class(KEY_CLASS)
        self.note = w.Text(
            placeholder="note on this post (Enter saves)",
            description="note",
            continuous_update=False,
            layout=w.Layout(width="40em"),
        )
        self.note.add_class("rdskit-code-note")
        help_line = w.HTML(
            f"<small>{legend} · <b>?</b> unsure · <b>&lt;</b> previous · "
            "<b>&gt;</b> next · <b>~</b> undo · <b>#</b> comments</small>"
        )
        self.widget = _box(
            [self.header, self.post, self.comments, self.keys, help_line, self.note, self.status],
            owner=self,
        )
        self.widget.add_class("rdskit-coding")
        self.keys.observe(self._typed, names="value")
        self.note.observe(self._noted, names="value")
        self.position = self._next_uncoded(0)
        self._render()

    # --- state -----------------------------------------------------------------------
    def _key(self, i: int) -> tuple[str, str]:
        row = self.posts.iloc[i]
        return str(row["source"]), str(row["id"])

    def coded(self) -> dict[tuple[str, str], Any]:
        """The current decisions of this coder, by (source, id)."""
        return self.log.state()

    def _next_uncoded(self, start: int) -> int:
        done = self.coded()
        n = len(self.posts)
        order: list[int] = [*range(start, n), *range(0, start)]
        for i in order:
            if self._key(i) not in done:
                return i
        return min(start, n - 1)

    def codes(self) -> pd.DataFrame:
        """The sample's posts (source, id, and the service's label if present) joined
        with this coder's code, unsure flag and note: one row per post, in order."""
        mine = read_codes(
            self.log.directory, adjudications=self.log.path.stem.endswith(".adjudication")
        )
        mine = mine[mine["coder"] == self.coder].drop(columns="coder")
        keep = ["source", "id", *([self.label] if self.label in self.posts else [])]
        return self.posts[keep].merge(mine, on=["source", "id"], how="left")

    # --- keys ------------------------------------------------------------------------
    def _typed(self, change: dict[str, Any]) -> None:
        old, new = str(change["old"] or ""), str(change["new"] or "")
        if not new.startswith(old):  # emptied by us, or edited: nothing new typed
            return
        for ch in new[len(old) :]:
            self.press(ch)
        if len(new) > _RESET_AT:
            self.keys.value = ""

    def _noted(self, change: dict[str, Any]) -> None:
        text = str(change["new"] or "").strip()
        if not text:
            return
        source, post_id = self._key(self.position)
        if (source, post_id) in self.coded():
            self.log.note(source, post_id, text)
            self._say(f"note saved on post {self.position + 1}")
        else:
            self._pending_note = text
            self._say("note kept: it is saved with this post's code")
        self.note.value = ""

    _pending_note = ""

    def press(self, ch: str) -> None:
        """Act on one key (see the module docs)."""
        keys = self.codebook.keys
        n = len(self.posts)
        if ch in keys:
            self._record(keys[ch])
            return
        if ch == "?":
            self._unsure = not self._unsure
            self._say("the next code is marked unsure" if self._unsure else "unsure: off")
        elif ch == "<":
            self.position = max(0, self.position - 1)
            self._say("")
        elif ch == ">":
            self.position = min(n - 1, self.position + 1)
            self._say("")
        elif ch == "~":
            last = self.log.last_coded()
            if last is None:
                self._say("nothing to undo")
            else:
                self.log.undo(*last)
                keys_ = [self._key(i) for i in range(n)]
                self.position = keys_.index(last) if last in keys_ else self.position
                self._say(f"undone: the code of post {self.position + 1}")
        elif ch == "#":
            self._show_comments = not self._show_comments
        elif not ch.isspace():
            self._say(f"the key {ch!r} does nothing here")
        self._render()

    def _record(self, code: str) -> None:
        source, post_id = self._key(self.position)
        self.log.code(source, post_id, code, unsure=self._unsure, note=self._pending_note)
        self._unsure, self._pending_note = False, ""
        done = self.position
        self.position = self._next_uncoded(min(self.position + 1, len(self.posts) - 1))
        self._say(f"post {done + 1} coded {code}")
        self._render()

    def _say(self, text: str) -> None:
        self.status.value = f"<small>{_esc(text)}</small>" if text else ""

    # --- view ------------------------------------------------------------------------
    def _extra(self, row: pd.Series) -> str:
        """More lines under a post (the adjudication view shows the coders' codes)."""
        return ""

    def _render(self) -> None:
        done = self.coded()
        n = len(self.posts)
        count = sum(self._key(i) in done for i in range(n))
        row = self.posts.iloc[self.position]
        current = done.get(self._key(self.position))
        state = (
            f"coded <b>{_esc(current.code)}</b>{' (unsure)' if current.unsure else ''}"
            if current
            else "not coded yet"
        )
        finished = " · <b>all posts coded</b>" if count == n else ""
        self.header.value = (
            f'<div class="rdskit-coding-progress">{_esc(self.title)} · coder '
            f"<b>{_esc(self.coder)}</b> · codebook {_esc(self.codebook.label)} · "
            f"<b>{count} of {n} coded</b> · post {self.position + 1} of {n}: {state}"
            f"{' · unsure on' if self._unsure else ''}{finished}</div>"
        )
        self.post.value = self._post_html(row)
        self.comments.value = self._comments_html(row) if self._show_comments else ""

    def _post_html(self, row: pd.Series) -> str:
        date = row.get("created_at")
        when = (
            pd.Timestamp(date).strftime("%Y-%m-%d %H:%M UTC")
            if date is not None and date == date
            else ""
        )
        url = str(row.get("url") or "")
        link = (
            f' · <a href="{_esc(url)}" target="_blank" rel="noopener">link</a>'
            if url.startswith(("https://", "http://"))
            else ""
        )
        parts = [
            f'<div class="rdskit-coding-post" style="max-width:48em">'
            f"<small>{_esc(row['source'])} · {_esc(row['id'])} · {_esc(when)}{link}</small>"
        ]
        if row.get("title"):
            parts.append(f"<div><b>{_esc(row['title'])}</b></div>")
        text = _esc(row.get("text")).replace("\n", "<br>")
        parts.append(f'<div class="rdskit-coding-text" style="margin:6px 0">{text}</div>')
        media = row.get("media")
        descriptions = [
            str(m.get("description") or m.get("type") or "")
            for m in (
                list(media) if isinstance(media, Sequence) or hasattr(media, "tolist") else []
            )
            if isinstance(m, dict)
        ]
        if descriptions:
            parts.append(f"<small>media: {_esc('; '.join(d for d in descriptions if d))}</small>")
        if not self.blind and self.label in row.index:
            parts.append(f"<div><small>service label: {_esc(row[self.label])}</small></div>")
        comments = row.get("comments")
        n_comments = len(comments) if hasattr(comments, "__len__") and comments is not None else 0
        parts.append(f"<small>{n_comments} comment(s): # to show them</small>")
        parts.append(self._extra(row))
        return "".join(parts) + "</div>"

    @staticmethod
    def _comments_html(row: pd.Series) -> str:
        comments = row.get("comments")
        items = list(comments) if comments is not None and hasattr(comments, "__len__") else []
        if not items:
            return "<small>no comments</small>"
        return (
            "<ul>"
            + "".join(
                f"<li><small>{_esc(c.get('author_username', ''))}: "
                f"{_esc(c.get('body', ''))}</small></li>"
                for c in items
                if isinstance(c, dict)
            )
            + "</ul>"
        )

    def plain(self) -> str:
        """The text/plain fallback: what the widget needs, and where the codes are."""
        count = len(self.coded())
        return (
            f"{self.title} widget (coder {self.coder}, codebook {self.codebook.label}: "
            f"{count} of {len(self.posts)} posts coded, saved in {self.log.path}). It needs a "
            "running kernel with ipywidgets in JupyterLab 4 or Notebook 7, in a trusted "
            "notebook; read the codes with rdskit.validation.read_codes("
            f"{str(self.log.directory)!r})."
        )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class AdjudicationWidget(CodingWidget):
    """The posts two or more coders coded differently, each coder's code and note shown;
    the adjudicator's key settles the code (an ``adjudicate`` line with the coders'
    codes, in ``<adjudicator>.adjudication.jsonl``)."""

    title = "Adjudication"

    def __init__(
        self,
        posts: pd.DataFrame,
        codebook: Codebook,
        *,
        coders: Sequence[str],
        adjudicator: str,
        directory: str | os.PathLike[str] = "codes",
        label: str = "sentiment",
    ) -> None:
        if len(coders) < 2:
            raise InvalidParameter("coders", "adjudication needs two coders or more")
        codes = read_codes(directory)
        wide = codes[codes["coder"].isin(coders)].pivot(
            index=["source", "id"], columns="coder", values="code"
        )
        absent = [c for c in coders if c not in wide.columns]
        if absent:
            raise InvalidParameter("coders", f"no code by {absent[0]!r} in {directory}")
        wide = wide[list(coders)].dropna()
        split = wide[wide.nunique(axis=1) > 1].reset_index()
        self.disagreements = split
        self.notes = codes.set_index(["source", "id", "coder"])["note"]
        keep = posts.merge(split[["source", "id"]], on=["source", "id"])
        if keep.empty:
            raise InvalidParameter("coders", f"{', '.join(coders)} agree on every post they coded")
        self.coders = list(coders)
        super().__init__(
            keep,
            codebook,
            coder=adjudicator,
            directory=directory,
            blind=True,
            label=label,
            adjudication=True,
        )

    def _their(self, row: pd.Series) -> dict[str, str]:
        line = self.disagreements.set_index(["source", "id"]).loc[(row["source"], row["id"])]
        return {c: str(line[c]) for c in self.coders}

    def _extra(self, row: pd.Series) -> str:
        items = []
        for coder, code in self._their(row).items():
            note = self.notes.get((row["source"], row["id"], coder), "")
            items.append(
                f"<b>{_esc(coder)}</b>: {_esc(code)}" + (f" ({_esc(note)})" if note else "")
            )
        return f'<div class="rdskit-coding-coders">coders: {" · ".join(items)}</div>'

    def _record(self, code: str) -> None:
        source, post_id = self._key(self.position)
        row = self.posts.iloc[self.position]
        self.log.code(
            source,
            post_id,
            code,
            unsure=self._unsure,
            note=self._pending_note,
            codes=self._their(row),
        )
        self._unsure, self._pending_note = False, ""
        done = self.position
        self.position = self._next_uncoded(min(self.position + 1, len(self.posts) - 1))
        self._say(f"post {done + 1} settled as {code}")
        self._render()


@functools.cache
def _box_class() -> type:
    import ipywidgets as w

    class Box(w.VBox):  # type: ignore[misc]
        """A VBox whose text/plain says what the widget needs."""

        def __init__(self, children: list[Any], owner: CodingWidget) -> None:
            super().__init__(children)
            self._owner = owner

        def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
            bundle = dict(super()._repr_mimebundle_(**kwargs) or {})
            bundle["text/plain"] = self._owner.plain()
            return bundle

    return Box


def _box(children: list[Any], owner: CodingWidget) -> Any:
    return _box_class()(children, owner)


def coding_widget(
    frame: pd.DataFrame,
    codebook: Codebook,
    *,
    coder: str,
    sample: pd.DataFrame | None = None,
    directory: str | os.PathLike[str] = "codes",
    blind: bool = True,
    label: str = "sentiment",
    pseudonymise: str | bytes | None = None,
) -> CodingWidget:
    """``df.rds.code(...)``: the coding widget over ``sample`` (default: every post of
    ``frame``); ``pseudonymise`` (a key) shows the pseudonymised posts."""
    posts = _posts(frame, sample)
    if pseudonymise is not None:
        posts = posts.rds.pseudonymise(pseudonymise, post_urls="drop")
    return CodingWidget(posts, codebook, coder=coder, directory=directory, blind=blind, label=label)


def adjudication_widget(
    frame: pd.DataFrame,
    codebook: Codebook,
    *,
    coders: Sequence[str],
    adjudicator: str,
    sample: pd.DataFrame | None = None,
    directory: str | os.PathLike[str] = "codes",
    label: str = "sentiment",
) -> AdjudicationWidget:
    """``df.rds.adjudicate(...)``: the disagreements of ``coders``, settled by
    ``adjudicator``."""
    return AdjudicationWidget(
        _posts(frame, sample),
        codebook,
        coders=coders,
        adjudicator=adjudicator,
        directory=directory,
        label=label,
    )
