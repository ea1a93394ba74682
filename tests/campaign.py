"""How long the property and fuzz tests search: every ``@given`` test of the suite.

By default (CI, and every local run) each runs the same derandomized examples every time,
so a run is repeatable and a failure is the code's, not the draw's. ``OCTUI_FUZZ_SCALE=N``
runs a *campaign*: N times as many examples, drawn at random, e.g.

    OCTUI_FUZZ_SCALE=20 python -m pytest tests/hostile/test_fuzz.py tests/properties \
        tests/load/test_fastpath.py -p no:cacheprovider

or the whole suite. The root ``conftest.py`` loads :data:`PROFILE` before any test module
is imported, so a test's own ``@settings`` start from it (``derandomize``, and the
examples of a test that names none); a test that names its examples asks
:func:`examples` for them.

What a campaign finds is fixed and kept as an explicit ``@example``, so the default run
checks it from then on.
"""

from __future__ import annotations

import os

_ASKED = os.environ.get("OCTUI_FUZZ_SCALE", "").strip()
if _ASKED and not (_ASKED.isdigit() and int(_ASKED) >= 1):
    raise ValueError(f"OCTUI_FUZZ_SCALE must be a whole number of at least 1, not {_ASKED!r}")
SCALE = int(_ASKED) if _ASKED else 1
"""How many times the default examples a run draws."""
DERANDOMIZE = SCALE == 1
"""Whether the examples are the same every run (the default); a campaign draws at random."""


def examples(default: int) -> int:
    """A property's ``max_examples``: its default, times :data:`SCALE`."""
    return default * SCALE


PROFILE = "octui"
"""The Hypothesis settings profile every test starts from."""
PLAIN_EXAMPLES = 100
"""The examples of a test that names none (Hypothesis's own default), before scaling."""


def load_profile() -> None:
    """Register and load :data:`PROFILE`: derandomized by default (which keeps no example
    database), drawn at random in a campaign; :data:`PLAIN_EXAMPLES` times :data:`SCALE`
    examples unless a test names its own."""
    from hypothesis import settings

    settings.register_profile(
        PROFILE, derandomize=DERANDOMIZE, max_examples=examples(PLAIN_EXAMPLES)
    )
    settings.load_profile(PROFILE)
