"""``opencontext.yaml``: the repository's configuration, validated with Pydantic.

Every problem becomes a :class:`ConfigError` naming the file, the key and what
is expected — never a traceback.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from octui.core.enums import DEFAULT_PRECEDENCE, Authority, TieBreaker
from octui.core.timeutil import parse_duration
from octui.load.fsread import RefusedFile
from octui.load.strict_yaml import YamlError, load_yaml
from octui.load.tree import MAX_FILE_BYTES, FsTree, Tree

CONFIG_FILE = "opencontext.yaml"


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


def _duration(value: object) -> int:
    return parse_duration(value)


Duration = Annotated[int, BeforeValidator(_duration)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AuthorityConfig(_Strict):
    precedence: tuple[Authority, ...] = DEFAULT_PRECEDENCE
    tie_breakers: tuple[TieBreaker, ...] = (
        TieBreaker.VERSION,
        TieBreaker.UPDATED,
        TieBreaker.CONFIDENCE,
        TieBreaker.ID,
    )

    @field_validator("precedence", mode="before")
    @classmethod
    def _permutation(cls, value: Any) -> Any:
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
            problems.append("unknown " + ", ".join(unknown))
        if repeated:
            problems.append("repeated " + ", ".join(repeated))
        if problems:
            raise ValueError(
                "must be a permutation of exactly the six levels "
                "(canonical, approved, reference, observed, inferred, historical): "
                + "; ".join(problems)
            )
        return tuple(Authority(n) for n in names)

    @field_validator("tie_breakers", mode="before")
    @classmethod
    def _tie_breakers(cls, value: Any) -> Any:
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


class ClassificationConfig(_Strict):
    levels: tuple[str, ...] = ("public", "internal", "confidential", "restricted")

    @field_validator("levels", mode="before")
    @classmethod
    def _levels(cls, value: Any) -> Any:
        if not isinstance(value, list) or not value:
            raise ValueError("expected a non-empty list of level names, lowest first")
        for v in value:
            if not isinstance(v, str) or not _LEVEL_RE.fullmatch(v):
                raise ValueError(f"expected lower-case level names, got {v!r}")
        if len(set(value)) != len(value):
            raise ValueError("level names must be distinct")
        return tuple(value)


class FreshnessConfig(_Strict):
    default: Duration | None = None
    by_type: dict[str, Duration] = Field(default_factory=dict)


class RankingConfig(_Strict):
    floor: int = Field(default=10, ge=0)


class SourceConfig(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    path: str = "."
    authority: Authority | None = None

    @field_validator("authority", mode="before")
    @classmethod
    def _authority(cls, value: Any) -> Any:
        if value is None:
            return value
        if value in {a.value for a in Authority}:
            return Authority(value)
        raise ValueError(
            "expected one of canonical, approved, reference, observed, inferred, historical"
        )

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        p = Path(value)
        if p.is_absolute() or ".." in p.parts:
            raise ValueError("expected a path inside the repository (relative, without '..')")
        return p.as_posix()


class ScopeConfig(_Strict):
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    @field_validator("include", "exclude", mode="before")
    @classmethod
    def _patterns(cls, value: Any) -> Any:
        if value is None:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ValueError("expected a list of id patterns such as 'policies.*'")
        return tuple(value)


def _any_of(globs: tuple[str, ...]) -> re.Pattern[str]:
    """Shell-style globs over the whole id (``*`` crosses dots) as one alternation."""
    alternatives = [f"(?:{fnmatch.translate(p)})" for p in globs]
    return re.compile("|".join(alternatives) if alternatives else "(?!)")


class RoleConfig(_Strict):
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


class Config(_Strict):
    spec: int = 1
    authority: AuthorityConfig = AuthorityConfig()
    classification: ClassificationConfig = ClassificationConfig()
    freshness: FreshnessConfig = FreshnessConfig()
    ranking: RankingConfig = RankingConfig()
    sources: tuple[SourceConfig, ...] = (SourceConfig(name="main", path="."),)
    roles: dict[str, RoleConfig] = Field(default_factory=dict)

    @field_validator("spec")
    @classmethod
    def _spec(cls, value: int) -> int:
        if value != 1:
            raise ValueError("expected 1 (the only specification version this tool reads)")
        return value

    @field_validator("sources", mode="before")
    @classmethod
    def _sources(cls, value: Any) -> Any:
        if not isinstance(value, list) or not value:
            raise ValueError("expected a non-empty list of {name, path, authority}")
        return tuple(value)

    # -- derived ---------------------------------------------------------------------------

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


def _format_loc(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif item.startswith(("function-", "list[", "dict[", "tuple[")) or item in {
            "nullable[str]",
            "str",
            "int",
        }:
            continue
        else:
            parts.append(("." if parts else "") + item)
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
        msg = "unknown key (check the spelling; see SPEC §1.1 for the keys)"
    elif kind == "missing":
        msg = "required key is missing"
    if "input" in error and kind not in {"extra_forbidden", "missing", "value_error"}:
        msg = f"{msg} (got {error['input']!r})"
    return key, msg


def parse_config(data: object, file: str = CONFIG_FILE) -> Config:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(file, "", "expected a mapping at the top level")
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key, msg = _describe(error)
        if error.get("type") == "extra_forbidden":
            msg = _unknown_key_message(tuple(error.get("loc", ())))
        raise ConfigError(file, key, msg) from None
    except (TypeError, ArithmeticError) as exc:  # a validator choking on a hostile value
        raise ConfigError(file, "", f"cannot be understood ({exc})") from None
    _cross_check(config, file)
    return config


def _unknown_key_message(loc: tuple[int | str, ...]) -> str:
    """Name the keys that are allowed where an unknown one was found."""
    parent = tuple("[]" if isinstance(p, int) else p for p in loc[:-1])
    if len(parent) >= 2 and parent[0] == "roles":
        parent = ("roles", "*", *parent[2:])
    models: dict[tuple[str, ...], type[BaseModel]] = {
        (): Config,
        ("authority",): AuthorityConfig,
        ("classification",): ClassificationConfig,
        ("freshness",): FreshnessConfig,
        ("ranking",): RankingConfig,
        ("sources", "[]"): SourceConfig,
        ("roles", "*"): RoleConfig,
        ("roles", "*", "scope"): ScopeConfig,
    }
    model = models.get(parent)
    if model is None:
        return "unknown key (check the spelling; see SPEC §1.1 for the keys)"
    return "unknown key; expected one of " + ", ".join(model.model_fields)


def _cross_check(config: Config, file: str) -> None:
    """Checks that span keys, each reported with the key at fault."""
    seen_names: set[str] = set()
    seen_paths: set[str] = set()
    for i, source in enumerate(config.sources):
        if source.name in seen_names:
            raise ConfigError(file, f"sources[{i}].name", f"{source.name!r} is used twice")
        if source.path in seen_paths:
            raise ConfigError(file, f"sources[{i}].path", f"{source.path!r} is configured twice")
        seen_names.add(source.name)
        seen_paths.add(source.path)
    for name, role in config.roles.items():
        if role.clearance is not None and role.clearance not in config.classification.levels:
            raise ConfigError(
                file,
                f"roles.{name}.clearance",
                f"unknown level {role.clearance!r}; expected one of "
                + ", ".join(config.classification.levels),
            )


def load_config(root: Path) -> Config:
    """Read and validate ``ROOT/opencontext.yaml`` (a regular file inside the repository,
    at most 1 MiB: the same rules as every object file)."""
    tree = FsTree(root)
    return load_config_bytes(read_config(tree, str(root)), tree.describe(CONFIG_FILE))


def load_config_bytes(raw: bytes, file: str) -> Config:
    try:
        data = load_yaml(raw)
    except YamlError as exc:
        raise ConfigError(file, "", str(exc)) from None
    return parse_config(data, file)


def read_config(tree: Tree, root: str) -> bytes:
    """The bytes of ``opencontext.yaml``: a regular file inside the repository, at most
    1 MiB; anything else is a configuration error (NotARepository when there is none)."""
    where = tree.describe(CONFIG_FILE)
    try:
        raw = tree.read(CONFIG_FILE)
    except FileNotFoundError:
        raise NotARepository(f"{root}: not an OpenContext repository (no {CONFIG_FILE})") from None
    except RefusedFile as exc:
        raise ConfigError(where, "", exc.problem) from None
    except OSError as exc:
        raise ConfigError(where, "", f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(where, "", f"file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    return raw
