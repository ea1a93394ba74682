"""The explorer paints on a faster timer than Textual's default, unless TEXTUAL_FPS says."""

from __future__ import annotations

import os
import subprocess
import sys

from octui.tui import FPS

PROBE = (
    "import octui.tui.app, textual.constants as c, textual.screen as s;"
    "print(c.MAX_FPS, s.UPDATE_PERIOD)"
)


def probe(env: dict[str, str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_explorer_paints_at_its_own_rate_unless_told() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    assert probe(env) == [str(FPS), str(1 / FPS)] and FPS > 60
    assert probe({**env, "TEXTUAL_FPS": "30"}) == ["30", str(1 / 30)]
