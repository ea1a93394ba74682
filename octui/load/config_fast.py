"""The check of a plainly valid ``opencontext.yaml``, without Pydantic.

:func:`fast_config` builds the :class:`~octui.load.config.Config` that the Pydantic models
(:mod:`octui.load.config_schema`) would give, for the data it is sure of: exact types (the
models are strict), known keys, and every value passing the same checks the models run
(the functions of :mod:`octui.load.config`). Anything else — an unknown key, a null where
a value is needed, a number too large for the models, a failing check — returns ``None``,
and the models decide and word the error.
"""

from __future__ import annotations

import re
from typing import Any

from octui.core.timeutil import parse_duration
from octui.load.config_values import (
    SOURCE_NAME_PATTERN,
    AuthorityConfig,
    ClassificationConfig,
    Config,
    FreshnessConfig,
    RankingConfig,
    RoleConfig,
    ScopeConfig,
    SourceConfig,
    levels_of,
    patterns_of,
    precedence_of,
    relative_path_of,
    source_authority_of,
    spec_of,
    tie_breakers_of,
)

_NAME = re.compile(SOURCE_NAME_PATTERN, re.ASCII)  # used with fullmatch
_INT_MAX = (1 << 63) - 1  # the models' integers beyond this are theirs to judge


class _Unsure(Exception):
    """Let the models decide."""


def fast_config(data: dict[Any, Any]) -> Config | None:
    """The configuration ``data`` holds when it is plainly valid; else ``None``."""
    try:
        return _config(data)
    except (_Unsure, ValueError, TypeError, ArithmeticError):
        return None


def _mapping(value: Any, keys: frozenset[str]) -> dict[str, Any]:
    """``value`` as a mapping of known string keys (nothing else is sure)."""
    if type(value) is not dict or any(type(k) is not str for k in value) or set(value) - keys:
        raise _Unsure
    return value


def _int(value: Any) -> int:
    if type(value) is not int or not -_INT_MAX <= value <= _INT_MAX:
        raise _Unsure
    return value


def _str(value: Any, optional: bool = True) -> Any:
    if (value is None and optional) or type(value) is str:
        return value
    raise _Unsure


def _days(value: Any) -> int:
    return _int(parse_duration(_str(value, optional=False)))


_TOP = frozenset(("spec", "authority", "classification", "freshness", "ranking"))


def _config(data: dict[Any, Any]) -> Config:
    data = _mapping(data, _TOP | {"sources", "roles"})
    parts: dict[str, Any] = {}
    if "spec" in data:
        parts["spec"] = spec_of(_int(data["spec"]))
    if "authority" in data:
        given = _mapping(data["authority"], frozenset(("precedence", "tie_breakers")))
        default = AuthorityConfig()
        precedence = given.get("precedence")
        ties = given.get("tie_breakers")
        parts["authority"] = AuthorityConfig(
            default.precedence if "precedence" not in given else precedence_of(_strs(precedence)),
            default.tie_breakers if "tie_breakers" not in given else tie_breakers_of(ties),
        )
    if "classification" in data:
        levels = _mapping(data["classification"], frozenset(("levels",)))
        if "levels" in levels:
            parts["classification"] = ClassificationConfig(levels_of(levels["levels"]))
    if "freshness" in data:
        parts["freshness"] = _freshness(data["freshness"])
    if "ranking" in data:
        ranking = _mapping(data["ranking"], frozenset(("floor",)))
        if "floor" in ranking:
            floor = _int(ranking["floor"])
            if floor < 0:
                raise _Unsure
            parts["ranking"] = RankingConfig(floor)
    if "sources" in data:
        sources = data["sources"]
        if type(sources) is not list or not sources:
            raise _Unsure
        parts["sources"] = tuple(_source(s) for s in sources)
    if "roles" in data:
        roles = data["roles"]
        if type(roles) is not dict or any(type(name) is not str for name in roles):
            raise _Unsure
        parts["roles"] = {name: _role(role) for name, role in roles.items()}
    return Config(**parts)


def _strs(value: Any) -> list[str]:
    if type(value) is not list or any(type(v) is not str for v in value):
        raise _Unsure
    return value


def _freshness(value: Any) -> FreshnessConfig:
    given = _mapping(value, frozenset(("default", "by_type")))
    default = given.get("default")
    by_type = given.get("by_type", {})
    if type(by_type) is not dict or any(type(name) is not str for name in by_type):
        raise _Unsure
    return FreshnessConfig(
        None if default is None else _days(default),
        {name: _days(days) for name, days in by_type.items()},
    )


def _source(value: Any) -> SourceConfig:
    given = _mapping(value, frozenset(("name", "path", "authority")))
    name = _str(given.get("name"), optional=False)
    if not _NAME.fullmatch(name):
        raise _Unsure
    path = relative_path_of(_str(given.get("path", "."), optional=False))
    return SourceConfig(name, path, source_authority_of(_str(given.get("authority"))))


def _role(value: Any) -> RoleConfig:
    given = _mapping(value, frozenset(("clearance", "scope", "description")))
    scope = ScopeConfig()
    if "scope" in given:
        patterns = _mapping(given["scope"], frozenset(("include", "exclude")))
        include = patterns_of(patterns.get("include"))
        exclude = patterns_of(patterns["exclude"]) if "exclude" in patterns else ()
        if exclude is None:  # a null exclude is not a list of patterns
            raise _Unsure
        scope = ScopeConfig(include, exclude)
    return RoleConfig(_str(given.get("clearance")), scope, _str(given.get("description")))
