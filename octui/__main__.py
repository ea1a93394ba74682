"""``python -m octui``: the interactive explorer, exactly as the ``octui`` command runs it."""

from octui.tui.__main__ import main

if __name__ == "__main__":
    raise SystemExit(main())
