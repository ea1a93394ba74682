"""The explorer paints on a faster timer than Textual's default, unless TEXTUAL_FPS says,
whatever imported Textual first, and without handing a setting to the processes it starts."""

from __future__ import annotations

import os
import subprocess
import sys

from octui.tui import FPS

from .conftest import SAMPLE

PROBE = (
    "import os, textual.screen as s;"  # Textual first, as any host program may
    "from octui.tui.app import create_app;"
    "before = s.UPDATE_PERIOD;"
    f"create_app({str(SAMPLE)!r}, watch=False, cache=False);"
    "print(before, s.UPDATE_PERIOD, os.environ.get('TEXTUAL_FPS'))"
)


def probe(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_explorer_paints_at_its_own_rate_unless_told() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    assert probe(env) == [str(1 / 60), str(1 / FPS), "None"] and FPS > 60
    assert probe({**env, "TEXTUAL_FPS": "30"}) == [str(1 / 30), str(1 / 30), "30"]
