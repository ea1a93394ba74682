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


#: The two denial reasons, for a set look-up where :attr:`ExclusionReason.is_denial` (a call)
#: would be asked once per record.
DENIALS: frozenset[ExclusionReason] = frozenset(r for r in ExclusionReason if r.is_denial)
#: The spellings of the two denial reasons, for code reading bundle JSON.
DENIAL_REASONS: frozenset[str] = frozenset(r.value for r in DENIALS)


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


class DiffAspect(StrEnum):
    """Every kind of change one object can show between two bundles, in the order a diff
    reports them (the first is a change's *primary* aspect)."""

    ADDED = "added"
    REMOVED = "removed"
    NOW_INCLUDED = "now-included"
    NOW_EXCLUDED = "now-excluded"
    VERSION = "version"
    REASON = "reason"
    RELATED = "related"
    LIFECYCLE = "lifecycle"
    STALE = "stale"
    AUTHORITY = "authority"
    FIELDS = "fields"
    RANK = "rank"

    @property
    def moves_in(self) -> bool:
        """The object moved into the bundle: it is new on side B, or now included."""
        return self in (DiffAspect.ADDED, DiffAspect.NOW_INCLUDED)

    @property
    def moves_out(self) -> bool:
        """The object moved out of the bundle: it is gone on side B, or now excluded."""
        return self in (DiffAspect.REMOVED, DiffAspect.NOW_EXCLUDED)


class CauseKind(StrEnum):
    """Which date of an object makes an instant a candidate of the change agenda."""

    VALID_FROM = "valid-from"
    CREATED = "created"
    VALID_UNTIL = "valid-until"
    SUPERSESSION = "supersession"
    STALE = "stale"


class LogChangeKind(StrEnum):
    """What one commit did to one version of an id, in the object's git log."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


class FindingMark(StrEnum):
    """The glyph at the head of a finding's line, in every layout and in the explorer:
    ``✗`` an error, ``⚠`` a warning, ``!`` staleness (a reminder more than a fault)."""

    ERROR = "✗"
    WARNING = "⚠"
    STALE = "!"

    @classmethod
    def of(cls, code: WarningCode) -> FindingMark:
        """The mark of a finding with ``code``."""
        if code is WarningCode.STALE:
            return cls.STALE
        return cls.ERROR if code.severity is Severity.ERROR else cls.WARNING

    @property
    def style(self) -> str:
        """The explorer's (Rich) style of the mark and of the finding's code."""
        return _MARK_STYLE[self]

    @property
    def ansi(self) -> str:
        """The terminal colour (ANSI SGR) ``--color`` paints the mark with."""
        return _MARK_ANSI[self]


_MARK_STYLE: dict[FindingMark, str] = {
    FindingMark.ERROR: "bold red",
    FindingMark.WARNING: "yellow",
    FindingMark.STALE: "yellow",
}
_MARK_ANSI: dict[FindingMark, str] = {
    FindingMark.ERROR: "\x1b[31m",  # red
    FindingMark.WARNING: "\x1b[33m",  # yellow
    FindingMark.STALE: "\x1b[36m",  # cyan: staleness is a reminder, not a fault
}
