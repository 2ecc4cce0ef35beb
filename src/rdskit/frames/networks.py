"""Networks for Gephi: ``df.rds.network(kind)`` and the ``hashtags()``/``handles()`` frames.

Kinds (every graph carries node and edge attributes GEXF and GraphML can hold):

- ``"reply"``: directed, commenter -> post author, ``weight`` = comments, ``posts`` =
  distinct posts commented; nodes ``source:handle`` with ``label``, ``source``,
  ``posts`` (authored), ``comments`` (written), ``role`` (author, commenter or both);
- ``"hashtags"``: undirected co-hashtag graph, ``weight`` = posts using both tags;
  nodes carry ``posts``;
- ``"brands"``: undirected co-mention graph of ``mentioned_brands``, same attributes;
- ``"author-brand"``: directed author -> brand, ``weight`` = the author's posts mentioning
  the brand; nodes carry ``type`` (author or brand) and ``posts``.

Edges are counted with pandas group-bys and handed to networkx in one call, so 100k edges
build in about a second. networkx comes with the ``research`` extra.

Example:
    >>> g = df.rds.network("reply")  # doctest: +SKIP
    >>> import networkx as nx  # doctest: +SKIP
    >>> nx.write_gexf(g, "replies.gexf")  # Gephi: File > Open  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit._extras import MissingExtra, require
from rdskit.errors import InvalidParameter
from rdskit.frames import _arrow
from rdskit.frames._checks import MissingColumnsError
from rdskit.frames.pseudonymise import author_handles

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["KINDS", "build_network", "handles_frame", "hashtags_frame", "research_import"]

KINDS = ("reply", "hashtags", "brands", "author-brand")
"""The networks :func:`build_network` builds."""

_HASHTAG = re.compile(r"(?<![\w&])#(\w*[^\W\d]\w*)")
_MENTION = re.compile(r"(?<![\w.@/])@([A-Za-z0-9_](?:[\w.-]*\w)?)")


def research_import(module: str) -> Any:
    """Import one of the ``research`` extra's packages, or say how to install it.

    Example:
        >>> research_import("networkx").__name__
        'networkx'
    """
    feature = f"this ({module})"
    require("research", feature, (module.split(".")[0],))
    try:
        return importlib.import_module(module)
    except ImportError:  # the package is there but a part of it cannot be imported
        raise MissingExtra(feature, "research", module) from None


def _texts(frame: pd.DataFrame) -> pd.Series:
    parts = [frame[c].fillna("").astype(str) for c in ("title", "text") if c in frame.columns]
    out = parts[0]
    for part in parts[1:]:
        out = out + "\n" + part
    return out


def _extract(frame: pd.DataFrame, pattern: re.Pattern[str], column: str) -> pd.DataFrame:
    texts = _texts(frame)
    found = texts.str.findall(pattern).to_numpy()
    lengths = np.fromiter((len(x) for x in found), dtype=np.int64, count=len(found))
    rows = np.repeat(np.arange(len(frame)), lengths)
    values = [v.casefold() for x in found for v in x]
    out = pd.DataFrame(
        {
            "source": frame["source"].to_numpy()[rows],
            "id": frame["id"].to_numpy()[rows],
            column: pd.array(values, dtype="string"),
        }
    )
    return out.drop_duplicates(ignore_index=True)


def hashtags_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (post, hashtag) in titles and texts: ``source``, ``id``, ``hashtag``
    (lower-cased, without ``#``).

    Example:
        >>> df = pd.DataFrame({"source": ["tiktok"], "id": ["1"], "text": ["#Oat #oat #milk"]})
        >>> hashtags_frame(df)["hashtag"].tolist()
        ['oat', 'milk']
    """
    return _extract(frame, _HASHTAG, "hashtag")


def handles_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (post, ``@handle`` mentioned in its title or text): ``source``,
    ``id``, ``handle`` (lower-cased, without ``@``).

    Example:
        >>> df = pd.DataFrame({"source": ["x"], "id": ["1"], "text": ["hi @Maya and @maya"]})
        >>> handles_frame(df)["handle"].tolist()
        ['maya']
    """
    return _extract(frame, _MENTION, "handle")


# --- graphs -------------------------------------------------------------------------------


def author_keys(frame: pd.DataFrame) -> pa.Array:
    """``source:handle`` of each post's author (pseudonymised frames: the pseudonym);
    the display name when no handle is known; null when neither is.

    Example:
        >>> author_keys(df).unique().to_pylist()  # doctest: +SKIP
        ['reddit:maya', 'tiktok:oat_fan']
    """
    handle = author_handles(frame)
    if "author_title" in frame.columns:
        handle = pc.coalesce(handle, _arrow.column(frame, "author_title").cast(pa.string()))
    return _keys(_arrow.column(frame, "source"), handle)


def _keys(sources: pa.Array, handles: pa.Array) -> pa.Array:
    """``source:handle`` node ids (handles lower-cased; null where the handle is)."""
    return pc.binary_join_element_wise(
        sources.cast(pa.string()), pc.utf8_lower(handles.cast(pa.string())), ":"
    )


def _graph(directed: bool) -> nx.Graph[Any]:
    networkx = research_import("networkx")
    graph: nx.Graph[Any] = networkx.DiGraph() if directed else networkx.Graph()
    return graph


def _add_nodes(graph: nx.Graph[Any], table: pd.DataFrame) -> None:
    """Nodes from a frame indexed by node id (attributes as plain Python values; missing
    ones left out, as GEXF and GraphML want)."""
    names = list(table.columns)
    columns = [_values(table[c]) for c in names]
    graph.add_nodes_from(
        (node, {k: v for k, v in zip(names, values, strict=True) if v is not None})
        if None in values
        else (node, dict(zip(names, values, strict=True)))
        for node, *values in zip(table.index.tolist(), *columns, strict=True)
    )


def _values(column: pd.Series) -> list[Any]:
    # tolist() gives Python scalars (GEXF/GraphML map Python types, not numpy ones).
    values: list[Any] = column.astype(object).where(column.notna(), None).tolist()
    return values


def _add_new_nodes(
    graph: nx.Graph[Any], names: list[Any], attributes: list[dict[str, Any]]
) -> None:
    """Distinct new ``names`` (none None) with their attribute dicts, into a new graph.

    ``add_nodes_from`` tries each ``(node, attributes)`` pair as a node first and catches
    the TypeError (a dict is not hashable): a raised exception per node. The dicts it
    would fill (attributes, successors, predecessors) are written directly instead;
    tests/frames/test_networks.py checks the graph equals networkx's own construction.
    """
    inside: Any = graph  # networkx's own dicts (_node, _adj, _pred): not in its stubs
    inside._node.update(zip(names, attributes, strict=True))
    inside._adj.update({name: {} for name in names})
    if graph.is_directed():
        inside._pred.update({name: {} for name in names})


def _add_edges(graph: nx.Graph[Any], edges: pd.DataFrame | pa.Table, src: str, dst: str) -> None:
    """Edges between nodes already in ``graph``, with the other columns as attributes.

    networkx's ``add_edges_from`` checks and updates each edge one call at a time (about
    6 us an edge); the graph is new and every endpoint already a node, so the edges are
    written straight into its adjacency dicts, the structure networkx documents (one
    attribute dict per edge, shared by both directions), at a third of the cost.
    tests/frames/test_networks.py checks the result equals ``add_edges_from``'s.
    """
    table = (
        edges if isinstance(edges, pa.Table) else pa.Table.from_pandas(edges, preserve_index=False)
    )
    attrs = [c for c in table.column_names if c not in (src, dst)]
    sources, targets = table[src].to_pylist(), table[dst].to_pylist()
    data = table.select(attrs).to_pylist()  # one attribute dict per edge, built in C++
    inside: Any = graph  # networkx's own dicts (_node, _adj, _pred): not in its stubs
    known = inside._node.keys()
    fresh = not any(inside._adj.values())  # (number_of_edges() walks every node's degree)
    if not fresh or not (known >= set(sources) and known >= set(targets)):
        graph.add_edges_from(zip(sources, targets, data, strict=True))
        return
    forward = inside._adj
    backward = inside._pred if graph.is_directed() else inside._adj
    for u, v, attributes in zip(sources, targets, data, strict=True):
        forward[u][v] = attributes
        backward[v][u] = attributes


def _reply(frame: pd.DataFrame) -> nx.Graph[Any]:
    missing = [c for c in ("source", "id", "comments") if c not in frame.columns]
    if missing:
        raise MissingColumnsError("network", missing, "mentions")
    author = author_keys(frame)
    comments = _arrow.column(frame, "comments")
    post = pc.list_parent_indices(comments)
    username = pc.struct_field(pc.list_flatten(comments), ["author_username"])
    commenter = _keys(_arrow.column(frame, "source").take(post), username)
    replied = author.take(post)
    valid = pc.and_(commenter.is_valid(), replied.is_valid())
    commenter, replied, post = commenter.filter(valid), replied.filter(valid), post.filter(valid)
    # Node ids as integer codes: grouping integers is several times faster than strings.
    ids = pc.unique(pa.concat_arrays([author.filter(author.is_valid()), commenter]))
    ids = ids.take(pc.sort_indices(ids))
    src = pc.index_in(commenter, ids).to_numpy(zero_copy_only=False)
    dst = pc.index_in(replied, ids).to_numpy(zero_copy_only=False)
    per_post = (
        pa.table({"u": src, "v": dst, "post": post})
        .group_by(["u", "v", "post"], use_threads=False)
        .aggregate([([], "count_all")])
    )
    edges = (
        per_post.group_by(["u", "v"], use_threads=False)
        .aggregate([("count_all", "sum"), ([], "count_all")])
        .sort_by([("u", "ascending"), ("v", "ascending")])
    )
    names = ids.to_pylist()
    authored = pc.index_in(author.filter(author.is_valid()), ids).to_numpy(zero_copy_only=False)
    posts = np.bincount(authored, minlength=len(names))
    written = np.bincount(src, minlength=len(names))
    parts = pc.split_pattern(ids, ":", max_splits=1)
    role = np.select([(posts > 0) & (written > 0), posts > 0], ["both", "author"], "commenter")
    nodes = pa.table(
        {
            "label": pc.list_element(parts, 1),
            "source": pc.list_element(parts, 0),
            "role": role,
            "posts": posts,
            "comments": written,
        }
    )
    graph = _graph(directed=True)
    graph.graph.update(kind="reply", weight="comments from commenter to post author")
    _add_new_nodes(graph, names, nodes.to_pylist())
    _add_edges(
        graph,
        pa.table(
            {
                "commenter": pa.array(names).take(edges["u"]),
                "author": pa.array(names).take(edges["v"]),
                "weight": edges["count_all_sum"],
                "posts": edges["count_all"],
            }
        ),
        "commenter",
        "author",
    )
    return graph


def _co_occurrence(pairs: pd.DataFrame, item: str, kind: str) -> nx.Graph[Any]:
    """Undirected graph of items sharing a post (``pairs``: post key + ``item``)."""
    pairs = pairs.dropna(subset=[item]).drop_duplicates()
    posts = pairs.groupby(item).size()
    keyed = pd.DataFrame(
        {"key": pairs["source"].astype(str) + "\x1f" + pairs["id"].astype(str), "a": pairs[item]}
    )
    both = keyed.merge(keyed.rename(columns={"a": "b"}), on="key")
    both = both[both["a"] < both["b"]]
    edges = both.groupby(["a", "b"], sort=True).size().rename("weight").reset_index()
    graph = _graph(directed=False)
    graph.graph.update(kind=kind, weight="posts with both")
    _add_nodes(
        graph, pd.DataFrame({"label": posts.index.astype(str), "posts": posts}, index=posts.index)
    )
    _add_edges(graph, edges, "a", "b")
    return graph


def _brand_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in ("source", "id", "mentioned_brands") if c not in frame.columns]
    if missing:
        raise MissingColumnsError("network", missing, "mentions")
    brands = frame[["source", "id", "mentioned_brands"]].explode("mentioned_brands")
    return brands.rename(columns={"mentioned_brands": "brand"}).astype(
        {"brand": "string", "source": "string"}
    )


def _author_brand(frame: pd.DataFrame) -> nx.Graph[Any]:
    pairs = _brand_pairs(frame)
    authors = pd.DataFrame(
        {
            "author": author_keys(frame).to_pylist(),
            "source": frame["source"].astype("string").to_numpy(),
            "id": frame["id"].to_numpy(),
        }
    ).astype({"source": "string"})
    pairs = pairs.dropna(subset=["brand"]).drop_duplicates().merge(authors, on=["source", "id"])
    pairs = pairs.dropna(subset=["author"])
    edges = pairs.groupby(["author", "brand"], sort=True).size().rename("weight").reset_index()
    author_posts = authors.dropna(subset=["author"]).groupby("author").size()
    brand_posts = pairs.groupby("brand")["id"].nunique()
    nodes = pd.concat(
        [
            pd.DataFrame({"type": "author", "posts": author_posts}),
            pd.DataFrame({"type": "brand", "posts": brand_posts}),
        ]
    )
    nodes = nodes[~nodes.index.duplicated()]
    nodes["label"] = [str(i).split(":", 1)[-1] for i in nodes.index]
    graph = _graph(directed=True)
    graph.graph.update(kind="author-brand", weight="the author's posts mentioning the brand")
    _add_nodes(graph, nodes[["label", "type", "posts"]])
    _add_edges(graph, edges, "author", "brand")
    return graph


_BUILDERS: dict[str, Callable[[pd.DataFrame], nx.Graph[Any]]] = {
    "reply": _reply,
    "hashtags": lambda f: _co_occurrence(hashtags_frame(f), "hashtag", "hashtags"),
    "brands": lambda f: _co_occurrence(_brand_pairs(f), "brand", "brands"),
    "author-brand": _author_brand,
}


def build_network(frame: pd.DataFrame, kind: str) -> nx.Graph[Any]:
    """The ``kind`` network of a mentions frame (see the module docs).

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([{"source": "tiktok", "id": "1",
        ...     "mentioned_brands": ["Oatly", "Alpro"]}])
        >>> sorted(build_network(df, "brands").edges(data="weight"))
        [('Alpro', 'Oatly', 1)]
    """
    if kind not in _BUILDERS:
        raise InvalidParameter("kind", f"must be one of {', '.join(KINDS)}; got {kind!r}")
    if len(frame) == 0:
        raise InvalidParameter("frame", f"the frame is empty: no {kind} network to build")
    return _BUILDERS[kind](frame)
