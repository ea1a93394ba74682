"""Layouts of an :class:`octui.analysis.audit.Audit`: text, JSON, CSV and a Markdown report.

Every layout is deterministic (same audit, same bytes) and makes repository text inert:
control characters are shown as escapes; JSON escapes C1 and bidirectional controls like
the bundle; a CSV cell that a spreadsheet would run as a formula is quoted with ``'``;
Markdown punctuation in repository text is escaped so a title cannot become a link or
markup.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

from octui.analysis.audit import Audit, AuditFinding
from octui.bundle.bundle import dumps_bundle
from octui.core.enums import AuditFormat
from octui.core.textsafe import inert
from octui.core.timeutil import format_instant
from octui.render.findings import glyph


def source_label(audit: Audit) -> str:
    """``working tree`` or ``git commit <hash> (<revision>)``."""
    src = audit.source
    if src.commit is None:
        return "working tree"
    named = f" ({src.revision})" if src.revision and src.revision != src.commit else ""
    return f"git commit {src.commit}{named}"


def file_list(f: AuditFinding) -> list[str]:
    """The finding's files, the first with ``:line`` when the line is known."""
    paths = list(f.finding.paths)
    if paths and f.finding.line is not None:
        paths[0] = f"{paths[0]}:{f.finding.line}"
    return paths


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _counts(audit: Audit) -> str:
    return f"{_plural(audit.errors, 'error')}, {_plural(audit.warnings, 'warning')}"


def _excluded_text(excluded: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in excluded) or "none"


# -- text ------------------------------------------------------------------------------------------


def render_text(audit: Audit) -> str:
    """Findings (errors first, then by code) with their files and roles, then the summary."""

    def safe(text: str) -> str:
        return inert(text, keep_newlines=False)

    lines = [
        safe(
            f"Audit at {format_instant(audit.as_of)} ({source_label(audit)}): "
            f"{_plural(len(audit.objects), 'object')}, {_plural(len(audit.roles), 'role')}"
        ),
        f"Findings: {_counts(audit)}",
    ]
    for f in audit.findings:
        w = f.finding
        ids = f" {' '.join(w.ids)}" if w.ids else ""
        lines.append(safe(f"  {glyph(w)} {w.code.value}{ids}: {w.message}"))
        if w.hint:
            lines.append(safe(f"      → {w.hint}"))
        files = file_list(f)
        if files:
            lines.append(safe(f"      files: {', '.join(files)}"))
        lines.append(safe(f"      roles: {', '.join(f.roles) if f.roles else 'none'}"))
    lines.append("Summary:")
    for s in audit.summary:
        lines.append(
            safe(
                f"  {s.role}: {s.included} included; excluded: {_excluded_text(s.excluded)}; "
                f"{_plural(s.errors, 'error')}, {_plural(s.warnings, 'warning')}"
            )
        )
    return "".join(line + "\n" for line in lines)


# -- JSON ------------------------------------------------------------------------------------------


def render_json(audit: Audit) -> str:
    return dumps_bundle(audit.to_json())


# -- CSV -------------------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    text = inert(text, keep_newlines=False)
    return "'" + text if text.startswith(_FORMULA_START) else text


def render_csv(audit: Audit) -> str:
    """The role × object matrix: ``id,version,path,<role>…``, one row per object; a cell is
    ``included#N`` (its rank in the role's bundle) or the exclusion reason."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "version", "path", *(_cell(r) for r in audit.roles)])
    for o in audit.objects:
        writer.writerow(
            [_cell(o.obj.id), o.obj.version, _cell(o.obj.path), *(f.cell for f in o.fates)]
        )
    return out.getvalue()


# -- Markdown --------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|~&$])")  # brackets escaped: no link can form


def md_text(text: str) -> str:
    """Repository text as literal Markdown (inline, one line)."""
    return _MD_SPECIAL.sub(r"\\\1", inert(text, keep_newlines=False))


def md_code(text: str) -> str:
    """Repository text as an inline code span (pipes escaped for tables)."""
    text = inert(text, keep_newlines=False)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def render_markdown(audit: Audit) -> str:
    """A report: the findings with their roles and files, the summary per role, and the
    matrix for the objects whose fate differs between roles."""
    out = [
        "# Audit of the context repository",
        "",
        md_text(
            f"At {format_instant(audit.as_of)}, read from the {source_label(audit)}: "
            f"{_plural(len(audit.objects), 'object')}, {_plural(len(audit.roles), 'role')} "
            f"({', '.join(audit.roles) or 'none'})."
        ),
        "",
        f"## Findings: {_counts(audit)}",
        "",
    ]
    for f in audit.findings:
        w = f.finding
        ids = " ".join(md_code(i) for i in w.ids)
        out.append(f"- {glyph(w)} **{w.code.value}** {ids}".rstrip() + f" — {md_text(w.message)}")
        if w.hint:
            out.append(f"  - → {md_text(w.hint)}")
        files = file_list(f)
        if files:
            out.append("  - files: " + ", ".join(md_code(p) for p in files))
        out.append("  - roles: " + (", ".join(md_text(r) for r in f.roles) or "none"))
    if not audit.findings:
        out.append("No findings.")
    out += ["", "## Summary", "", "| role | included | excluded | errors | warnings |"]
    out.append("|---|---:|---|---:|---:|")
    for s in audit.summary:
        out.append(
            f"| {md_text(s.role)} | {s.included} | {md_text(_excluded_text(s.excluded))} "
            f"| {s.errors} | {s.warnings} |"
        )
    differing = [o for o in audit.objects if o.differs]
    out += ["", f"## Objects whose fate differs between roles ({len(differing)})", ""]
    if differing:
        out.append("| id | version | path | " + " | ".join(md_text(r) for r in audit.roles) + " |")
        out.append("|---|---:|---|" + "---|" * len(audit.roles))
        for o in differing:
            cells = " | ".join(f.cell for f in o.fates)
            out.append(
                f"| {md_code(o.obj.id)} | {o.obj.version} | {md_code(o.obj.path)} | {cells} |"
            )
    else:
        out.append("Every role gets every object the same way.")
    return "\n".join(out) + "\n"


RENDERERS: dict[AuditFormat, Callable[[Audit], str]] = {
    AuditFormat.TEXT: render_text,
    AuditFormat.JSON: render_json,
    AuditFormat.CSV: render_csv,
    AuditFormat.MARKDOWN: render_markdown,
}


def render(audit: Audit, fmt: AuditFormat) -> str:
    return RENDERERS[fmt](audit)
