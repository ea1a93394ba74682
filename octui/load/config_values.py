"""The values of ``opencontext.yaml``: the plain frozen :class:`Config` and its parts, the
checks of single values that both validations run (a ``ValueError`` refuses a value), and
the wording of a problem (:class:`ConfigError`). :mod:`octui.load.config` reads and
validates the file.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from octui.core.enums import DEFAULT_PRECEDENCE, Authority, TieBreaker
from octui.core.textsafe import shown_name


class ConfigError(Exception):
    """A configuration problem: one line naming the file, the key and what is expected."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        where = f"{file}: {key}: " if key else f"{file}: "
        super().__init__(where + problem)


class NotARepository(Exception):
    """The folder has no ``opencontext.yaml``."""


# -- the checks of single values, shared by both validations (ValueError: refused) ------------


def precedence_of(value: Any) -> tuple[Authority, ...]:
    """``authority.precedence``: a permutation of the six authority levels."""
    if not isinstance(value, list):
        raise ValueError("expected a list of the six authority levels")
    known = {a.value for a in Authority}
    names = [str(v) for v in value]
    unknown = sorted(set(names) - known)
    missing = [a.value for a in Authority if a.value not in names]
    repeated = sorted({n for n in names if names.count(n) > 1})
    problems = []
    if missing:
        problems.append("missing " + ", ".join(missing))
    if unknown:
        problems.append("unknown " + ", ".join(map(shown_name, unknown)))
    if repeated:
        problems.append("repeated " + ", ".join(map(shown_name, repeated)))
    if problems:
        raise ValueError(
            "must be a permutation of exactly the six levels "
            "(canonical, approved, reference, observed, inferred, historical): "
            + "; ".join(problems)
        )
    return tuple(Authority(n) for n in names)


def tie_breakers_of(value: Any) -> tuple[TieBreaker, ...]:
    """``authority.tie_breakers``: known names, each once, ``id`` last when missing."""
    if not isinstance(value, list):
        raise ValueError("expected a list drawn from version, updated, created, confidence, id")
    known = {t.value for t in TieBreaker}
    unknown = [str(v) for v in value if not isinstance(v, str) or v not in known]
    if unknown:
        raise ValueError(
            f"unknown tie breaker {', '.join(map(repr, unknown))}; "
            "expected names from version, updated, created, confidence, id"
        )
    result: list[TieBreaker] = []
    for v in value:
        if TieBreaker(v) not in result:
            result.append(TieBreaker(v))
    if TieBreaker.ID not in result:
        result.append(TieBreaker.ID)
    return tuple(result)


_LEVEL_RE = re.compile(r"[a-z0-9][a-z0-9_-]*", re.ASCII)


def levels_of(value: Any) -> tuple[str, ...]:
    """``classification.levels``: distinct lower-case names, lowest first."""
    if not isinstance(value, list) or not value:
        raise ValueError("expected a non-empty list of level names, lowest first")
    for v in value:
        if not isinstance(v, str) or not _LEVEL_RE.fullmatch(v):
            raise ValueError(f"expected lower-case level names, got {v!r}")
    if len(set(value)) != len(value):
        raise ValueError("level names must be distinct")
    return tuple(value)


def source_authority_of(value: Any) -> Authority | None:
    """A source's ``authority``: one of the six levels, or none."""
    if value is None:
        return value
    if value in {a.value for a in Authority}:
        return Authority(value)
    raise ValueError(
        "expected one of canonical, approved, reference, observed, inferred, historical"
    )


def relative_path_of(value: str) -> str:
    """A source's ``path``: inside the repository, as a POSIX path."""
    p = Path(value)
    if p.is_absolute() or ".." in p.parts:
        raise ValueError("expected a path inside the repository (relative, without '..')")
    return p.as_posix()


def patterns_of(value: Any) -> tuple[str, ...] | None:
    """A scope's ``include`` or ``exclude``: a list of non-empty id patterns."""
    if value is None:
        return value
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError("expected a list of id patterns such as 'policies.*'")
    return tuple(value)


def spec_of(value: int) -> int:
    if value != 1:
        raise ValueError("expected 1 (the only specification version this tool reads)")
    return value


def sources_of(value: Any) -> tuple[Any, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("expected a non-empty list of {name, path, authority}")
    return tuple(value)


SOURCE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


# -- the configuration -----------------------------------------------------------------------


@dataclass(frozen=True)
class AuthorityConfig:
    """``authority``: the precedence of the six levels, highest first, and the tie-breakers."""

    precedence: tuple[Authority, ...] = DEFAULT_PRECEDENCE
    tie_breakers: tuple[TieBreaker, ...] = (
        TieBreaker.VERSION,
        TieBreaker.UPDATED,
        TieBreaker.CONFIDENCE,
        TieBreaker.ID,
    )


@dataclass(frozen=True)
class ClassificationConfig:
    """``classification.levels``: the levels, lowest first."""

    levels: tuple[str, ...] = ("public", "internal", "confidential", "restricted")


@dataclass(frozen=True)
class FreshnessConfig:
    """``freshness``: the freshness window in days, by default and by object type."""

    default: int | None = None
    by_type: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RankingConfig:
    """``ranking.floor``: the floor score of L0/L1 objects."""

    floor: int = 10


@dataclass(frozen=True)
class SourceConfig:
    """One of ``sources``: its name, its folder and the authority it gives its objects."""

    name: str
    path: str = "."
    authority: Authority | None = None


@dataclass(frozen=True)
class ScopeConfig:
    """A role's ``scope``: the id patterns it includes (None: every id) and excludes."""

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Lists given by a caller are kept as tuples, as validation gives them."""
        if isinstance(self.include, list):
            object.__setattr__(self, "include", tuple(self.include))
        if isinstance(self.exclude, list):
            object.__setattr__(self, "exclude", tuple(self.exclude))


def _any_of(globs: tuple[str, ...]) -> re.Pattern[str]:
    """Shell-style globs over the whole id (``*`` crosses dots) as one alternation."""
    alternatives = [f"(?:{fnmatch.translate(p)})" for p in globs]
    return re.compile("|".join(alternatives) if alternatives else "(?!)")


@dataclass(frozen=True)
class RoleConfig:
    """One of ``roles``: the highest level it may read, its scope and its description."""

    clearance: str | None = None
    scope: ScopeConfig = ScopeConfig()
    description: str | None = None

    @cached_property
    def _include_any(self) -> re.Pattern[str] | None:
        """One regex: does any include glob match (None: no include patterns)."""
        if self.scope.include is None:
            return None
        return _any_of(self.scope.include)

    @cached_property
    def _exclude_res(self) -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
        """One regex for "any exclude glob matches", and each glob on its own."""
        each = tuple((p, re.compile(fnmatch.translate(p))) for p in self.scope.exclude)
        return _any_of(self.scope.exclude), each

    def excluded_by(self, object_id: str) -> str | None:
        """The first ``exclude`` pattern matching the id, if any."""
        any_match, each = self._exclude_res
        if not any_match.match(object_id):
            return None
        return next(pattern for pattern, regex in each if regex.match(object_id))

    def includes(self, object_id: str) -> bool:
        """True when the role has no include patterns or one of them matches."""
        include_any = self._include_any
        return include_any is None or include_any.match(object_id) is not None


@dataclass(frozen=True)
class Config:
    """The whole of ``opencontext.yaml``, validated (every part has its default)."""

    spec: int = 1
    authority: AuthorityConfig = AuthorityConfig()
    classification: ClassificationConfig = ClassificationConfig()
    freshness: FreshnessConfig = field(default_factory=FreshnessConfig)
    ranking: RankingConfig = RankingConfig()
    sources: tuple[SourceConfig, ...] = (SourceConfig(name="main", path="."),)
    roles: dict[str, RoleConfig] = field(default_factory=dict)

    def authority_rank(self, authority: str | None) -> int:
        """Position in the precedence (0 = highest); unknown authorities sort after all."""
        return self._ranks.get(authority or "", len(self.authority.precedence))

    @cached_property
    def _ranks(self) -> dict[str, int]:
        return {a.value: i for i, a in enumerate(self.authority.precedence)}

    def level_rank(self, level: str) -> int:
        return self.classification.levels.index(level)

    def clearance_rank(self, role: RoleConfig) -> int:
        if role.clearance is None:
            return 0
        return self.level_rank(role.clearance)

    def freshness_days(self, object_type: str | None) -> int | None:
        if object_type is not None and object_type in self.freshness.by_type:
            return self.freshness.by_type[object_type]
        return self.freshness.default


_NAMED_BY_THE_USER = frozenset({("roles",), ("freshness", "by_type")})
"""The mappings whose keys are names the repository chose (a role, an object type): a key
right under one is always the user's, never a name of Pydantic's."""


def _format_loc(loc: tuple[int | str, ...], *, named_last: bool = False) -> str:
    """Where an error is, as a dotted path of keys (``roles.support.clearance``) on one line:
    Pydantic's own names for a union's or validator's branch are left out, but never a key
    the user chose — a role's or a type's name, or the last key when it is an unknown one
    (``named_last``) — and a key that would not read as itself on one line (empty, padded,
    a line break or another control or invisible character) is written quoted and
    escaped, as Python writes a string."""
    parts: list[str] = []
    keys: list[str] = []
    for place, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
            continue
        users = (named_last and place == len(loc) - 1) or tuple(keys) in _NAMED_BY_THE_USER
        if not users and (
            item.startswith(("function-", "list[", "dict[", "tuple["))
            or item in {"nullable[str]", "str", "int"}
        ):
            continue
        keys.append(item)
        parts.append(("." if parts else "") + shown_name(item))
    return "".join(parts)


def _describe(error: Mapping[str, Any]) -> tuple[str, str]:
    loc = tuple(error.get("loc", ()))
    key = _format_loc(loc)
    msg = str(error.get("msg", "invalid"))
    msg = msg.removeprefix("Value error, ")
    # Pydantic's internal names mean nothing to someone editing YAML.
    msg = re.sub(r" or instance of \w+", "", msg).replace("valid tuple", "valid list")
    kind = error.get("type", "")
    if "[key]" in loc and loc.index("[key]") >= 1:  # a mapping key (e.g. a role name)
        at = loc.index("[key]")
        key = _format_loc(loc[: at - 1])
        return key, f"the name {loc[at - 1]!r} must be a string"
    if kind == "extra_forbidden":
        key = _format_loc(loc, named_last=True)
        msg = "unknown key (check the spelling; see SPEC §1.1 for the keys)"
    elif kind == "missing":
        msg = "required key is missing"
    if "input" in error and kind not in {"extra_forbidden", "missing", "value_error"}:
        msg = f"{msg} (got {error['input']!r})"
    return key, msg
