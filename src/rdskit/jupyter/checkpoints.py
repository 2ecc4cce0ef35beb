"""A failed lesson checkpoint, shown so it stands out (``rdskit.lesson.checkpoint``).

In a notebook a checkpoint that does not hold is one output with two forms: Markdown
with a "✗ Checkpoint failed" heading, what was expected and the hint (Markdown, not HTML:
JupyterLab renders it the same in an untrusted notebook, and it carries no script or
style a sanitiser would strip), and the same one line as plain text for any front end that
shows text only (a terminal, ``nbconvert --to script``, a diff). Service and learner text
is escaped, so a post pasted into a checkpoint cannot add a link, an image or a heading.

Example:
    >>> bundle = failed_bundle("the frame has 200 posts", "run the collection again",
    ...                        "✗ Not yet: the frame has 200 posts. Hint: run the collection again")
    >>> print(bundle["text/markdown"])
    #### ✗ Checkpoint failed
    <BLANKLINE>
    **Expected:** the frame has 200 posts\\.
    <BLANKLINE>
    **What to do:** run the collection again
    >>> bundle["text/plain"][:11]
    '✗ Not yet: '
"""

from __future__ import annotations

from rdskit._safe import md_text

__all__ = ["failed_bundle", "show_failed"]


def failed_bundle(expected: str, hint: str | None, line: str) -> dict[str, str]:
    """The MIME bundle of a failed checkpoint: ``text/markdown`` and ``text/plain``
    (``line``, the checkpoint's one line)."""
    parts = ["#### ✗ Checkpoint failed", f"**Expected:** {md_text(expected)}\\."]
    if hint:
        parts.append(f"**What to do:** {md_text(hint)}")
    return {"text/markdown": "\n\n".join(parts), "text/plain": line}


def show_failed(expected: str, hint: str | None, line: str) -> bool:
    """Display a failed checkpoint in the running IPython (True), or do nothing (False:
    no IPython shell, the caller prints ``line``)."""
    from IPython import get_ipython
    from IPython.display import display

    if get_ipython() is None:
        return False
    display(failed_bundle(expected, hint, line), raw=True)
    return True
