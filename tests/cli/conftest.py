"""Fixtures of tests/cli: a private parse cache for every test, and two small repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_builder import make_repo, obj

CONFIG = {"roles": {"support": {"clearance": "internal"}, "sales": {}}}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's parse cache goes to a folder of this test, not the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def clean_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "clean",
        {
            "mission.md": obj("mission", layer="L0", title="Mission"),
            "policies/refunds.md": obj("policies.refunds", title="Refunds"),
        },
        CONFIG,
    )


@pytest.fixture
def erroring_repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "errors",
        {
            "p1.md": obj("policies.refunds", version=1, created="2026-01-01"),
            "p2.md": obj("policies.refunds", version=2, created="2026-02-01"),
            "p3.md": obj(
                "policies.refunds",
                version=3,
                created="2026-03-01",
                supersedes=["policies.refunds@2"],
            ),
            "bad/broken.md": "---\nid: [\n---\n",
        },
        CONFIG,
    )
