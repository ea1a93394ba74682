"""The core (everything outside octui/tui and octui/devtools) never imports Textual or Rich."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import octui

CORE_DIR = Path(octui.__file__).parent


def core_modules() -> list[str]:
    names = ["octui"]
    for path in sorted(CORE_DIR.rglob("*.py")):
        parts = path.relative_to(CORE_DIR).with_suffix("").parts
        if parts[0] in ("tui", "devtools") or parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            names.append("octui." + ".".join(parts))
    return names


def test_core_modules_found() -> None:
    names = core_modules()
    for required in (
        "octui.cli.main",
        "octui.resolve.engine",
        "octui.load.loader",
        "octui.bundle.bundle",
        "octui.load.config",
    ):
        assert required in names
    assert not any(name.startswith("octui.tui") for name in names)


def test_core_imports_without_textual_or_rich() -> None:
    script = (
        "import importlib, json, sys\n"
        f"names = {core_modules()!r}\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "import contextlib, io\n"
        "from octui.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['validate', {str(CORE_DIR.parent / 'sample-repo')!r}])\n"
        f"    main(['resolve', {str(CORE_DIR.parent / 'sample-repo')!r}, '--role', 'support'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(json.dumps({'imported': names, 'bad': bad}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["imported"] == core_modules()
    assert result["bad"] == []
