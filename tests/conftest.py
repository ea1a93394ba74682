"""Shared fixtures. Building blocks live in ``tests/repo_builder.py`` (importable by any test)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from campaign import load_profile
from repo_builder import make_repo

load_profile()  # before any test module makes its @settings (see tests/campaign.py)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_REPO = PROJECT_ROOT / "sample-repo"
BROKEN_REPO = PROJECT_ROOT / "tests" / "fixtures" / "broken-repo"


XDG_FOLDERS = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
"""The folders platformdirs (and so the parse cache and the explorer's settings) look in."""

OUTSIDE_SETTINGS = ("OCTUI_NO_CACHE", "GITHUB_ACTIONS", "NO_COLOR")
"""Variables of the developer's shell or the CI job that change what octui does; a test
that needs one sets it itself."""


@pytest.fixture(scope="session")
def _worker_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test process's own: under pytest-xdist every worker has its own
    base temporary folder, so two workers never share a cache."""
    return tmp_path_factory.mktemp("home")


@pytest.fixture(autouse=True)
def _own_settings(
    _worker_home: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Keep the developer's own settings (theme, last roles), caches and environment out
    of every test: explorer settings in a fresh folder per test, the XDG folders (the
    parse cache among them) in one folder per worker, ``OUTSIDE_SETTINGS`` unset."""
    folder = tmp_path_factory.mktemp("octui-config")
    monkeypatch.setenv("OCTUI_CONFIG_DIR", str(folder))
    for name in XDG_FOLDERS:
        monkeypatch.setenv(name, str(_worker_home / name.lower()))
    for name in OUTSIDE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
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
