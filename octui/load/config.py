"""``opencontext.yaml``: the repository's configuration.

Every problem becomes a :class:`ConfigError` naming the file, the key and what
is expected — never a traceback. A configuration is made of plain frozen values
(:class:`Config` and its parts). A plainly valid file is checked here, by
:mod:`octui.load.config_fast`; anything it is unsure of is validated by the Pydantic
models of :mod:`octui.load.config_schema`, which also word every error. Both give the
same :class:`Config`; Pydantic, a sizeable import, is loaded only in the second case.
"""

from __future__ import annotations

from pathlib import Path

from octui.core.textsafe import shown_name
from octui.load.config_fast import fast_config
from octui.load.config_values import (
    AuthorityConfig,
    ClassificationConfig,
    Config,
    ConfigError,
    FreshnessConfig,
    NotARepository,
    RankingConfig,
    RoleConfig,
    ScopeConfig,
    SourceConfig,
)
from octui.load.fsread import RefusedFile
from octui.load.names import CONFIG_FILE
from octui.load.tree import MAX_FILE_BYTES, FsTree, Tree

__all__ = [
    "CONFIG_FILE",
    "AuthorityConfig",
    "ClassificationConfig",
    "Config",
    "ConfigError",
    "FreshnessConfig",
    "NotARepository",
    "RankingConfig",
    "RoleConfig",
    "ScopeConfig",
    "SourceConfig",
    "config_data",
    "load_config",
    "load_config_bytes",
    "parse_config",
    "read_config",
]


def parse_config(data: object, file: str = CONFIG_FILE) -> Config:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(file, "", "expected a mapping at the top level")
    config = fast_config(data)
    if config is None:  # unsure, or refused: Pydantic decides and words the error
        from octui.load.config_schema import validated_config

        config = validated_config(data, file)
    _cross_check(config, file)
    return config


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
                f"roles.{shown_name(name)}.clearance",
                f"unknown level {role.clearance!r}; expected one of "
                + ", ".join(config.classification.levels),
            )


def load_config(root: Path) -> Config:
    """Read and validate ``ROOT/opencontext.yaml`` (a regular file inside the repository,
    at most 1 MiB: the same rules as every object file)."""
    tree = FsTree(root)
    return load_config_bytes(read_config(tree, str(root)), tree.describe(CONFIG_FILE))


def load_config_bytes(raw: bytes, file: str) -> Config:
    return parse_config(config_data(raw, file), file)


def config_data(raw: bytes, file: str) -> object:
    """The YAML document of a configuration file's bytes (what :func:`parse_config` reads).
    YAML is imported here, not with this module: a load a repository snapshot serves takes
    the document its snapshot kept for the same bytes."""
    from octui.load.strict_yaml import YamlError, load_yaml

    try:
        return load_yaml(raw)
    except YamlError as exc:
        raise ConfigError(file, "", str(exc)) from None


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
