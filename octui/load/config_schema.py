"""The Pydantic models of ``opencontext.yaml``: the full validation, and every error's words.

:func:`octui.load.config.parse_config` comes here only when the fast check
(:mod:`octui.load.config_fast`) is unsure of a file or refuses it; so Pydantic is imported
only then. A configuration these models accept becomes the plain
:class:`octui.load.config.Config` that the fast check would have made.
"""

from __future__ import annotations

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
from octui.load import config_values as plain
from octui.load.config_values import (
    SOURCE_NAME_PATTERN,
    ConfigError,
    _describe,
    levels_of,
    patterns_of,
    precedence_of,
    relative_path_of,
    source_authority_of,
    sources_of,
    spec_of,
    tie_breakers_of,
)


def _duration(value: object) -> int:
    return parse_duration(value)


Duration = Annotated[int, BeforeValidator(_duration)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class AuthorityConfig(_Strict):
    precedence: tuple[Authority, ...] = DEFAULT_PRECEDENCE
    tie_breakers: tuple[TieBreaker, ...] = plain.AuthorityConfig().tie_breakers

    _permutation = field_validator("precedence", mode="before")(precedence_of)
    _tie_breakers = field_validator("tie_breakers", mode="before")(tie_breakers_of)


class ClassificationConfig(_Strict):
    levels: tuple[str, ...] = plain.ClassificationConfig().levels

    _levels = field_validator("levels", mode="before")(levels_of)


class FreshnessConfig(_Strict):
    default: Duration | None = None
    by_type: dict[str, Duration] = Field(default_factory=dict)


class RankingConfig(_Strict):
    floor: int = Field(default=10, ge=0)


class SourceConfig(_Strict):
    name: str = Field(pattern=SOURCE_NAME_PATTERN)
    path: str = "."
    authority: Authority | None = None

    _authority = field_validator("authority", mode="before")(source_authority_of)
    _relative = field_validator("path")(relative_path_of)


class ScopeConfig(_Strict):
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    _patterns = field_validator("include", "exclude", mode="before")(patterns_of)


class RoleConfig(_Strict):
    clearance: str | None = None
    scope: ScopeConfig = ScopeConfig()
    description: str | None = None


class Config(_Strict):
    spec: int = 1
    authority: AuthorityConfig = AuthorityConfig()
    classification: ClassificationConfig = ClassificationConfig()
    freshness: FreshnessConfig = FreshnessConfig()
    ranking: RankingConfig = RankingConfig()
    sources: tuple[SourceConfig, ...] = (SourceConfig(name="main", path="."),)
    roles: dict[str, RoleConfig] = Field(default_factory=dict)

    _spec = field_validator("spec")(spec_of)
    _sources = field_validator("sources", mode="before")(sources_of)


def validated_config(data: dict[str, Any], file: str) -> plain.Config:
    """``data`` validated by the models above, as a plain configuration (raises
    :class:`ConfigError` with the first problem, in the repository's words)."""
    try:
        model = Config.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key, msg = _describe(error)
        if error.get("type") == "extra_forbidden":
            msg = _unknown_key_message(tuple(error.get("loc", ())))
        raise ConfigError(file, key, msg) from None
    except (TypeError, ArithmeticError) as exc:  # a validator choking on a hostile value
        raise ConfigError(file, "", f"cannot be understood ({exc})") from None
    return _plain(model)


def _plain(model: Config) -> plain.Config:
    """The plain configuration of a validated model: the same values, field by field."""
    return plain.Config(
        spec=model.spec,
        authority=plain.AuthorityConfig(model.authority.precedence, model.authority.tie_breakers),
        classification=plain.ClassificationConfig(model.classification.levels),
        freshness=plain.FreshnessConfig(model.freshness.default, dict(model.freshness.by_type)),
        ranking=plain.RankingConfig(model.ranking.floor),
        sources=tuple(plain.SourceConfig(s.name, s.path, s.authority) for s in model.sources),
        roles={
            name: plain.RoleConfig(
                role.clearance,
                plain.ScopeConfig(role.scope.include, role.scope.exclude),
                role.description,
            )
            for name, role in model.roles.items()
        },
    )


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
