"""The explorer's small user settings file: the theme, and the last role used per repository.

It lives in the platform's config folder (``platformdirs.user_config_dir("octui")``), or in
``$OCTUI_CONFIG_DIR`` when that is set (tests use it to keep the developer's own file out).
The file is JSON::

    {"theme": "textual-light", "roles": {"/abs/path/to/repo": "support"}}

Settings are a convenience: a missing, unreadable or malformed file reads as empty, a
failed write is ignored, and neither ever stops the explorer. Plain Python (no Textual).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from octui.load.atomic import write_atomically

ENV_DIR = "OCTUI_CONFIG_DIR"
FILE_NAME = "settings.json"
MAX_BYTES = 1_000_000
"""A settings file larger than this is ignored (it is not ours to parse)."""
MAX_REPOSITORIES = 200
"""Roles are remembered for this many repositories (the most recently used)."""


def config_dir() -> Path:
    """``$OCTUI_CONFIG_DIR``, else the platform's user config folder for octui."""
    override = os.environ.get(ENV_DIR)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("octui", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


def repo_key(root: str | Path) -> str:
    """Repositories are remembered by their resolved absolute path."""
    return str(Path(root).expanduser().resolve())


@dataclass
class Settings:
    theme: str | None = None
    roles: dict[str, str] = field(default_factory=dict)
    """Resolved repository path → the last role used for it (oldest first)."""

    def role_for(self, root: str | Path) -> str | None:
        return self.roles.get(repo_key(root))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.theme is not None:
            out["theme"] = self.theme
        out["roles"] = dict(self.roles)
        return out


def _parse(data: object) -> Settings:
    if not isinstance(data, dict):
        return Settings()
    theme = data.get("theme")
    roles = data.get("roles")
    return Settings(
        theme=theme if isinstance(theme, str) and theme else None,
        roles={
            k: v
            for k, v in (roles.items() if isinstance(roles, dict) else ())
            if isinstance(k, str) and isinstance(v, str)
        },
    )


def load_settings() -> Settings:
    """The saved settings; empty ones when there is no usable file."""
    path = settings_path()
    try:
        if path.stat().st_size > MAX_BYTES:
            return Settings()
        return _parse(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return Settings()


def save_settings(settings: Settings) -> bool:
    """Write the settings atomically (the folder made, private, when missing); False (and
    nothing else) when that is impossible, whatever the reason."""
    path = settings_path()
    text = json.dumps(settings.to_json(), indent=2, ensure_ascii=False) + "\n"
    return write_atomically(path, lambda handle: handle.write(text.encode()))


def remember_role(root: str | Path, role: str) -> bool:
    """Record ``role`` as the last one used for the repository at ``root``."""
    settings = load_settings()
    key = repo_key(root)
    if settings.roles.get(key) == role:
        return True
    settings.roles.pop(key, None)
    settings.roles[key] = role  # most recent last
    while len(settings.roles) > MAX_REPOSITORIES:
        settings.roles.pop(next(iter(settings.roles)))
    return save_settings(settings)


def remember_theme(theme: str) -> bool:
    settings = load_settings()
    if settings.theme == theme:
        return True
    settings.theme = theme
    return save_settings(settings)


def initial_role(declared: list[str], remembered: str | None) -> str | None:
    """The role the explorer opens on: the last one used here while it is still declared,
    else the first declared in ``opencontext.yaml``."""
    if remembered is not None and remembered in declared:
        return remembered
    return declared[0] if declared else None
