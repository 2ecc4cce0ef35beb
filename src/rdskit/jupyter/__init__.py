"""rdskit in Jupyter: magics, live progress, the answer view, rich reprs and the gateway.

- ``%load_ext rdskit`` (:func:`load_ipython_extension`): the ``%rds`` and ``%%ask``
  magics (:mod:`rdskit.jupyter.magics`), a text printer for models and a rich card under
  the traceback of rdskit errors;
- :mod:`rdskit.jupyter.progress`: the views of every ``wait()``'s live display (what a run's
  progress is lives in the core, :mod:`rdskit.progress`);
- :mod:`rdskit.jupyter.render`: the answer view (hoverable ``[N]`` citations);
- :mod:`rdskit.jupyter.reprs`: the HTML of models and errors (no extension needed);
- :mod:`rdskit.jupyter.gateway` / :mod:`rdskit.jupyter.discovery`: the Jupyter server
  extension that keeps the API key out of kernels, and its client side.

The core never imports this layer. It reaches it through named hooks (:mod:`rdskit._hooks`)
that the package root maps to these modules: ``jupyter.html`` (``RdsModel._repr_html_`` and
``RdsError._repr_html_``, so the reprs load on the first rich display), ``jupyter.progress``
(the view of a ``wait()``, loaded only where something may be shown) and
``jupyter.answer_bundle``. Nothing here imports IPython until a notebook feature is used.
See ``docs/jupyter.md``.

Example (a notebook cell)::

    %load_ext rdskit
    %rds connect --sandbox
    client = rdskit.jupyter.current_session().client
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rdskit.client import Client
    from rdskit.jupyter.session import Session

__all__ = [
    "current_client",
    "current_session",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics, the models' text printer and the error card.

    Example:
        >>> from IPython.core.interactiveshell import InteractiveShell  # doctest: +SKIP
        >>> load_ipython_extension(InteractiveShell.instance())  # doctest: +SKIP
    """
    from rdskit.jupyter.magics import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Undo :func:`load_ipython_extension` (``%unload_ext rdskit``)."""
    from rdskit.jupyter.magics import unload

    unload(ipython)


def current_session() -> Session:
    """The running IPython's rdskit session: ``.client`` (None until connected) and
    ``.chat_id`` (the chat ``%%ask`` continues).

    Example:
        >>> current_session().client.me().email  # doctest: +SKIP
        'owner@sandbox.rdskit.invalid'
    """
    from IPython import get_ipython

    from rdskit.jupyter.magics import session_of

    return session_of(get_ipython())


def current_client() -> Client:
    """The client ``%%ask`` and ``%rds`` use in this kernel, connecting the way they do
    when there is none (the server's gateway or the environment, else the embedded
    sandbox, said in one line); loads the magics if they are not loaded yet. The JupyterLab
    extension's "Insert loader" cell starts with it, so it runs before or after any other
    inserted cell.

    Example:
        >>> client = current_client()  # doctest: +SKIP
        >>> client is current_session().client  # doctest: +SKIP
        True
    """
    from IPython import get_ipython

    from rdskit.jupyter.magics import session_of

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("current_client() works in IPython or Jupyter: use rdskit.Client()")
    shell.extension_manager.load_extension("rdskit")  # nothing when already loaded
    session = session_of(shell)
    note = session.ensure(shell.user_ns)
    if note:
        print(note)
    client = session.client
    assert client is not None
    return client
