"""rdskit's version: the one place it is written (hatch reads it for the package metadata,
``rdskit.__version__`` and ``rdskit --version`` import it)."""

__version__ = "0.1.0"
