"""octui — a terminal explorer and command line for the OpenContext resolver.

The resolver core (everything outside ``octui.tui``) is plain Python with no
Textual import: loading, the pipeline steps, ranking, digest, validation and
history. The CLI (``octui.cli.main``) and the explorer (``octui.tui``) are thin
layers over it.

The supported Python API is what this module exports (see :mod:`octui.api`)::

    import octui

    repo = octui.open_repository("path/to/context-repo")
    bundle = repo.resolve("support", task="refund")
    print(bundle.digest, [o["id"] for o in bundle.objects])
"""

from typing import TYPE_CHECKING, Any

from octui.core.version import __version__

if TYPE_CHECKING:
    from octui.api import (
        Bundle,
        ContextRepository,
        Finding,
        OpenContextError,
        open_repository,
    )


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use: a command that never asks for them (the
    CLI imports what it runs, no more) does not pay for importing them."""
    if name in __all__ and name != "__version__":
        from octui import api

        return getattr(api, name)
    raise AttributeError(f"module 'octui' has no attribute {name!r}")


__all__ = [
    "Bundle",
    "ContextRepository",
    "Finding",
    "OpenContextError",
    "__version__",
    "open_repository",
]
