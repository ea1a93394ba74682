"""README's "Layout of the code" names every module of the package, so the map a newcomer
reads first stays the map of the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def layout_rows() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Layout of the code", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ")]


def named(module: Path, rows: list[str]) -> bool:
    """``module`` (relative to ``octui/``) is named by its path (or its path from a
    subfolder down), or by its file name in a row that names its folder
    (``cli/resolve.py``, ``validate.py``, …)."""
    rel = module.as_posix()
    folder = module.parent.as_posix()
    for row in rows:
        cells = set(re.findall(r"`([^`]+)`", row))
        if rel in cells or f"octui/{rel}" in cells:
            return True
        if any("/" in c and rel.endswith("/" + c) for c in cells):
            return True  # named from its folder down: ``features/compare.py``
        if (
            folder != "."
            and module.name in cells
            and any(c.startswith(f"{folder}/") for c in cells)
        ):
            return True
    return False


def modules() -> list[Path]:
    package = ROOT / "octui"
    out = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.name == "__init__.py" and rel.parent != Path("."):
            continue  # a folder is described by its own row
        out.append(rel)
    return out


def test_every_module_is_in_the_layout() -> None:
    rows = layout_rows()
    missing = [m.as_posix() for m in modules() if not named(m, rows)]
    assert missing == []


def test_every_module_named_in_the_layout_exists() -> None:
    package = ROOT / "octui"
    real = [p.relative_to(package).as_posix() for p in package.rglob("*.py")]
    names = {c for row in layout_rows() for c in re.findall(r"`([^`]+\.py)`", row)}
    paths = {n.removeprefix("octui/") for n in names if "/" in n}
    gone = [n for n in sorted(paths) if not any(r == n or r.endswith("/" + n) for r in real)]
    assert gone == []
