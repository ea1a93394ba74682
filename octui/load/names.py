"""Which files of a repository hold what: its configuration, and the suffixes of its object
files. Nothing is imported here, so a tool that only walks a tree (the benchmark's floors,
whose workers import nothing heavy before they measure) asks the loader's own rule."""

from __future__ import annotations

CONFIG_FILE = "opencontext.yaml"
OBJECT_SUFFIXES = (".md", ".yaml", ".yml")


def is_object_path(rel: str) -> bool:
    """Whether the file at ``rel`` (relative to the repository root, ``/``-separated) may
    hold an object: a suffix the loader reads, and not the root's configuration (a nested
    ``opencontext.yaml`` is an object file like any other)."""
    return rel.endswith(OBJECT_SUFFIXES) and rel != CONFIG_FILE
