""" "Did you mean …" for a mistyped id or role (plain difflib, no dependencies)."""

from __future__ import annotations

from collections.abc import Iterable


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The (up to ``n``) candidates closest to ``word``, best first; equally close ones in
    alphabetical order."""
    import difflib  # only a mistyped name needs it: not imported at every start-up

    pool = sorted(set(candidates))
    close = difflib.get_close_matches(word, pool, n=len(pool) or 1, cutoff=0.6)
    ranked = sorted(close, key=lambda c: (-difflib.SequenceMatcher(None, word, c).ratio(), c))
    return ranked[:n]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)``, `` (did you mean 'x' or 'y'?)``; ``""`` when nothing is close."""
    matches = [repr(m) for m in close_matches(word, candidates)]
    if not matches:
        return ""
    listed = matches[0] if len(matches) == 1 else ", ".join(matches[:-1]) + " or " + matches[-1]
    return f" (did you mean {listed}?)"
