"""``python -m octui.bench``: the benchmark of issue #13 by the name the issue gives it — the
developer tool :mod:`octui.devtools.bench`, with the same options."""

from octui.devtools.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
