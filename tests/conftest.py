"""Shared fixtures. Building blocks live in ``tests/repo_builder.py`` (importable by any test)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from repo_builder import make_repo

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
BROKEN_REPO = PROJECT_ROOT / "tests" / "fixtures" / "broken-repo"


@pytest.fixture(autouse=True)
def _own_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Keep the developer's own explorer settings (theme, last roles) out of every test."""
    folder = tmp_path_factory.mktemp("octui-config")
    monkeypatch.setenv("OCTUI_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def repo_factory(tmp_path: Path) -> Callable[..., Path]:
    """``repo_factory(files, config=None, name="repo")`` writes a repository under tmp_path."""

    def build(
        files: dict[str, Any] | None = None,
        config: dict[str, Any] | str | None = None,
        name: str = "repo",
    ) -> Path:
        return make_repo(tmp_path / name, files, config)

    return build
