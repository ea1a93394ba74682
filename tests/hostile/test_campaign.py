"""The search length of the property and fuzz tests (``tests/campaign.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _campaign(scale: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OCTUI_FUZZ_SCALE"}
    if scale is not None:
        env["OCTUI_FUZZ_SCALE"] = scale
    code = "import campaign as c; print(c.SCALE, c.DERANDOMIZE, c.examples(30))"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True
    )


def test_by_default_the_examples_are_the_same_every_run() -> None:
    assert _campaign(None).stdout.split() == ["1", "True", "30"]
    assert _campaign("1").stdout.split() == ["1", "True", "30"]


def test_a_campaign_draws_more_examples_at_random() -> None:
    assert _campaign("20").stdout.split() == ["20", "False", "600"]


def test_a_scale_that_is_not_a_whole_number_says_so() -> None:
    for bad in ("0", "x", "-3", "2.5"):
        run = _campaign(bad)
        assert run.returncode != 0
        assert "OCTUI_FUZZ_SCALE must be a whole number" in run.stderr


def _profile(scale: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OCTUI_FUZZ_SCALE"}
    if scale is not None:
        env["OCTUI_FUZZ_SCALE"] = scale
    code = (
        "import campaign as c; c.load_profile(); from hypothesis import settings; "
        "s = settings.default; print(s.derandomize, s.max_examples)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_every_given_test_starts_from_the_profile() -> None:
    """A test that names no examples and no seed (``@given`` alone, or ``@settings`` with
    its own deadline) is derandomized too, and a campaign lengthens and randomizes it."""
    assert _profile(None) == ["True", "100"]
    assert _profile("20") == ["False", "2000"]


def test_this_run_loaded_the_profile() -> None:
    from campaign import DERANDOMIZE, SCALE
    from hypothesis import settings

    loaded = settings.default
    assert loaded is not None
    assert loaded.derandomize is DERANDOMIZE
    assert loaded.max_examples == 100 * SCALE
