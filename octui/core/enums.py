"""The closed sets of the specification, defined once."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Authority(StrEnum):
    """The six authority levels, in their default precedence (highest first)."""

    CANONICAL = "canonical"
    APPROVED = "approved"
    REFERENCE = "reference"
    OBSERVED = "observed"
    INFERRED = "inferred"
    HISTORICAL = "historical"


DEFAULT_PRECEDENCE: tuple[Authority, ...] = tuple(Authority)


class Status(StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"


class Layer(StrEnum):
    L0 = "L0"
    L1 = "L1"
    L2 = "L2"
    L3 = "L3"
    L4 = "L4"


class TieBreaker(StrEnum):
    """Keys that order objects sharing an id once authority has not settled it."""

    VERSION = "version"
    UPDATED = "updated"
    CREATED = "created"
    CONFIDENCE = "confidence"
    ID = "id"


class ExclusionReason(StrEnum):
    """Why an object is not in the bundle. The set is closed (seed, SPEC §2)."""

    PERMISSION_DENIED = "permission-denied"
    CLASSIFICATION_DENIED = "classification-denied"
    SCOPE_EXCLUSION = "scope-exclusion"
    NOT_IN_SCOPE = "not-in-scope"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    NOT_YET_VALID = "not-yet-valid"
    OUTRANKED = "outranked"
    UNAPPROVED = "unapproved"
    NOT_RELEVANT = "not-relevant"
    CONFLICT = "conflict"
    SOURCE_UNAVAILABLE = "source-unavailable"

    @property
    def is_denial(self) -> bool:
        """Denied objects contribute nothing to a role's output but id and reason."""
        return self in (ExclusionReason.PERMISSION_DENIED, ExclusionReason.CLASSIFICATION_DENIED)


#: The spellings of the two denial reasons, for code reading bundle JSON.
DENIAL_REASONS: frozenset[str] = frozenset(r.value for r in ExclusionReason if r.is_denial)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class WarningCode(StrEnum):
    """Findings about the repository. The set is closed (SPEC §4)."""

    DUPLICATE_CANONICAL = "duplicate-canonical"
    MULTIPLE_ACTIVE_VERSIONS = "multiple-active-versions"
    CONFLICT_AMBIGUOUS = "conflict-ambiguous"
    CONFLICT_DECLARED = "conflict-declared"
    BROKEN_REFERENCE = "broken-reference"
    SUPERSESSION_CYCLE = "supersession-cycle"
    STALE = "stale"
    UNKNOWN_AUTHORITY = "unknown-authority"
    INVALID_OBJECT = "invalid-object"
    DUPLICATE_VERSION = "duplicate-version"
    UNKNOWN_FIELD = "unknown-field"
    SOURCE_UNAVAILABLE = "source-unavailable"

    @property
    def severity(self) -> Severity:
        return _SEVERITY[self]


_SEVERITY: dict[WarningCode, Severity] = {
    WarningCode.DUPLICATE_CANONICAL: Severity.ERROR,
    WarningCode.MULTIPLE_ACTIVE_VERSIONS: Severity.WARNING,
    WarningCode.CONFLICT_AMBIGUOUS: Severity.ERROR,
    WarningCode.CONFLICT_DECLARED: Severity.WARNING,
    WarningCode.BROKEN_REFERENCE: Severity.ERROR,
    WarningCode.SUPERSESSION_CYCLE: Severity.ERROR,
    WarningCode.STALE: Severity.WARNING,
    WarningCode.UNKNOWN_AUTHORITY: Severity.WARNING,
    WarningCode.INVALID_OBJECT: Severity.ERROR,
    WarningCode.DUPLICATE_VERSION: Severity.ERROR,
    WarningCode.UNKNOWN_FIELD: Severity.WARNING,
    WarningCode.SOURCE_UNAVAILABLE: Severity.ERROR,
}


class ReportFormat(StrEnum):
    """How ``validate`` reports its findings: for people (``text``), programs (``json``),
    CI systems (``github`` workflow commands, ``sarif`` 2.1.0, ``junit`` XML), or ``auto``:
    ``github`` inside GitHub Actions, else ``text``."""

    TEXT = "text"
    JSON = "json"
    GITHUB = "github"
    SARIF = "sarif"
    JUNIT = "junit"
    AUTO = "auto"


class Lifecycle(StrEnum):
    """State of an included object at ``as_of``."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"


class ColorMode(StrEnum):
    """``--color``: colour the text layouts ``never``, ``always``, or (``auto``) only on a
    terminal with ``NO_COLOR`` unset or empty."""

    NEVER = "never"
    AUTO = "auto"
    ALWAYS = "always"


class FateState(StrEnum):
    """Where one object ends for one role in an audit: in the bundle or out of it."""

    INCLUDED = "included"
    EXCLUDED = "excluded"


class AuditFormat(StrEnum):
    """The layouts of ``opencontext audit`` (and of the explorer's audit export)."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"
    MARKDOWN = "markdown"


class ExitCode(IntEnum):
    """How ``opencontext`` ends: 0 done; 1 a check failed (a strict run with errors,
    ``validate``/``audit`` findings at ``--fail-on``, a diff with ``--exit-code``, a bundle
    not reproduced); 2 a usage or configuration error, reported as one line on stderr;
    130 interrupted (Ctrl-C)."""

    OK = 0
    FAILED = 1
    USAGE = 2
    INTERRUPTED = 130
