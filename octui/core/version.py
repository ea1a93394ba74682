"""The version of octui, written once: ``pyproject.toml`` reads it at build time and
``octui.__version__`` re-exports it. It lives in the core so that any layer (the parse
cache's fingerprint, ``--version``) can read it without importing the package root,
which imports the public API and with it the layers above the core."""

__version__ = "0.1.0"
