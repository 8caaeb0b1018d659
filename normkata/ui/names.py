"""Names the learner types (commands, katas, topics): matching and "did you mean".

Imported only on the path that needs it, so that difflib never costs a correct command.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def fold(name: str) -> str:
    """A name as compared: full-width letters and digits made plain, case ignored."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def find(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` means, ignoring case and full width; None when there is none."""
    wanted = fold(name)
    return next((k for k in known if fold(k) == wanted), None)


#: difflib's similarity a suggestion needs, and how far behind the best one it may be: every
#: kata ends in "norm", so without the margin `layrnorm` would suggest three of them.
_CUTOFF, _MARGIN = 0.6, 0.1


def close_matches(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` known names that look like `name` (a typo, a letter doubled or swapped),
    the closest first."""
    import difflib

    wanted = fold(name)
    scored = []
    for candidate in dict.fromkeys(known):
        matcher = difflib.SequenceMatcher(None, wanted, fold(candidate))
        if matcher.real_quick_ratio() >= _CUTOFF and matcher.quick_ratio() >= _CUTOFF:
            scored.append((matcher.ratio(), candidate))
    scored = sorted((s for s in scored if s[0] >= _CUTOFF), key=lambda s: -s[0])
    return [c for score, c in scored[:n] if score >= scored[0][0] - _MARGIN]


def did_you_mean(name: str, known: Iterable[str], lang: str) -> str:
    """The " (did you mean X?)" to append in `lang`, or "" when no known name is close."""
    from normkata.i18n import t

    close = close_matches(name, known)
    return t("name.did_you_mean", lang, names=", ".join(close)) if close else ""
