"""octui — a terminal explorer and command line for the OpenContext resolver.

The resolver core (everything outside ``octui.tui``) is plain Python with no
Textual import: loading, the pipeline steps, ranking, digest, validation and
history. The CLI (``octui.cli``) and the explorer (``octui.tui``) are thin
layers over it.
"""

__version__ = "0.1.0"
