"""Build small OpenContext repositories from Python values, for tests.

    root = make_repo(tmp_path, {"policies/refunds.md": obj("policies.refunds", version=2)})
    res = resolve_at(root, role="support", as_of="2026-03-01")

Object files are given as a mapping of relative path to either a ``dict`` (front
matter; for ``.md`` files the ``content`` key becomes the body) or a ``str``/``bytes``
(written as-is). The configuration is a dict merged over :data:`DEFAULT_CONFIG`
(top-level keys replace), or a raw string written verbatim.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from octui.bundle.bundle import bundle_dict, digest
from octui.core.model import Exclusion, Finding
from octui.core.timeutil import parse_instant
from octui.load.assemble import Repository
from octui.load.loader import load_repository
from octui.resolve.cache import ResolutionCache
from octui.resolve.engine import resolve
from octui.resolve.result import Query, Resolution

#: A permissive configuration: one role ``reader`` that may read everything up to restricted.
DEFAULT_CONFIG: dict[str, Any] = {
    "spec": 1,
    "classification": {"levels": ["public", "internal", "confidential", "restricted"]},
    "roles": {"reader": {"clearance": "restricted"}},
}

AS_OF = "2026-06-01"


def obj(object_id: str, **fields: Any) -> dict[str, Any]:
    """Front matter for one object; ``authority`` defaults to ``canonical``."""
    data: dict[str, Any] = {"id": object_id}
    data.setdefault("authority", "canonical")
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def object_text(path: str, value: dict[str, Any] | str | bytes) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    data = dict(value)
    if path.endswith(".md"):
        body = str(data.pop("content", ""))
        front = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        return f"---\n{front}---\n{body}".encode()
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8")


def write_config(root: Path, config: dict[str, Any] | str | None = None) -> None:
    if isinstance(config, str):
        text = config
    else:
        merged = copy.deepcopy(DEFAULT_CONFIG)
        merged.update(copy.deepcopy(config or {}))
        text = yaml.safe_dump(merged, sort_keys=False)
    (root / "opencontext.yaml").write_text(text, encoding="utf-8")


def write_objects(root: Path, files: Mapping[str, dict[str, Any] | str | bytes]) -> None:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(object_text(rel, value))


def make_repo(
    root: Path,
    files: Mapping[str, dict[str, Any] | str | bytes] | None = None,
    config: dict[str, Any] | str | None = None,
) -> Path:
    """Write ``opencontext.yaml`` and the object files under ``root``; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    write_config(root, config)
    write_objects(root, files or {})
    return root


def resolve_at(
    root: Path | Repository,
    role: str | None = "reader",
    as_of: str = AS_OF,
    cache: ResolutionCache | None = None,
    **query: Any,
) -> Resolution:
    """Load (unless given a Repository) and resolve (with ``cache``, the repository's)."""
    repo = root if isinstance(root, Repository) else load_repository(root)
    return resolve(repo, Query(role=role, as_of=parse_instant(as_of), **query), cache)


def fixed_bundle(resolution: Resolution) -> dict[str, Any]:
    """The bundle with its per-run fields pinned, for byte comparisons."""
    return bundle_dict(
        resolution,
        bundle_id="00000000-0000-4000-8000-000000000000",
        generated_at=parse_instant("2000-01-01"),
    )


def exclusions_by_id(resolution: Resolution) -> dict[str, list[Exclusion]]:
    out: dict[str, list[Exclusion]] = {}
    for ex in resolution.exclusions:
        out.setdefault(ex.id, []).append(ex)
    return out


def the_exclusion(resolution: Resolution, object_id: str, version: int | None = None) -> Exclusion:
    """The single exclusion of ``object_id`` (optionally of one version)."""
    found = [
        e
        for e in resolution.exclusions
        if e.id == object_id and (version is None or e.version in (version, None))
    ]
    assert len(found) == 1, (object_id, version, resolution.exclusions)
    return found[0]


def included_keys(resolution: Resolution) -> list[str]:
    return [i.obj.key for i in resolution.included]


def warnings_with(resolution: Resolution, code: str) -> list[Finding]:
    return [w for w in resolution.warnings if w.code.value == code]


def codes(resolution: Resolution) -> list[str]:
    return [w.code.value for w in resolution.warnings]


def digest_of_repo(root: Path, role: str | None = "reader", as_of: str = AS_OF, **q: Any) -> str:
    return digest(resolve_at(root, role, as_of, **q))
