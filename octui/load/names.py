"""Which files of a repository hold what: its configuration, and the suffixes of its object
files. Nothing is imported here, so a tool that only walks a tree (the benchmark's floors,
whose workers import nothing heavy before they measure) asks the loader's own rule."""

from __future__ import annotations

CONFIG_FILE = "opencontext.yaml"
OBJECT_SUFFIXES = (".md", ".yaml", ".yml")
