"""The bilingual glossary (``glossary.yaml``): each group of terms is one concept token, ``~<group>``.

A term found in a card or in a query adds its group's token, in both directions: 显存 in a query finds
"GPU memory" in a card and the other way round. Terms match after :func:`app.search.text.normalise`;
see the YAML header for the spelling rules.

One pass finds them all: every term of every group in one alternation, longest first (one regex per
group, or lookbehinds, cost 10-40x more on a 1,000-card deck), then a match that starts or ends inside
an English word is dropped, and a match fires every group one of whose terms it contains (流水线并行 is
a pipeline-parallel term and holds the pipeline term 流水线). ``templates/match.js`` does the same with
the :func:`pattern` and :func:`term_groups` the handbook ships.
"""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from app.search.text import HERE, normalise

CONCEPT = "~"
SEPARATORS = re.compile(r"[\s\-_]+")
_ALNUM = re.compile(r"[a-z0-9]")


def _words(term: str) -> list[str]:
    return [w for w in SEPARATORS.split(normalise(term)) if w]


def term_pattern(term: str) -> str:
    """A regular expression (valid in Python and JavaScript) for one glossary term, no lookaround."""
    words = _words(term)
    body = r"[\s\-_]*".join(re.escape(w) for w in words)
    if words[-1][-1].isascii() and words[-1][-1].isalpha():
        body += "s?"
    return body


def canonical(matched: str) -> str:
    """What a match is looked up by: separators removed (``zero 3``, ``zero-3`` → ``zero3``)."""
    return SEPARATORS.sub("", matched)


@lru_cache(maxsize=1)
def groups() -> dict[str, list[str]]:
    data = yaml.safe_load((HERE / "glossary.yaml").read_text(encoding="utf-8"))
    return {str(name): [str(t) for t in terms] for name, terms in data["groups"].items()}


@lru_cache(maxsize=1)
def pattern() -> str:
    terms = {normalise(t) for ts in groups().values() for t in ts}
    return "|".join(term_pattern(t) for t in sorted(terms, key=lambda t: (-len(t), t)))


@lru_cache(maxsize=1)
def term_groups() -> dict[str, list[str]]:
    """Canonical term → the groups it fires: its own, and every group with a term inside it."""
    single = {name: re.compile("|".join(term_pattern(t) for t in terms)) for name, terms in groups().items()}
    out: dict[str, list[str]] = {}
    for ts in groups().values():
        for t in ts:
            norm = normalise(t)
            out[canonical(norm)] = sorted(name for name, p in single.items() if p.search(norm))
    return out


@lru_cache(maxsize=1)
def _compiled() -> re.Pattern[str]:
    return re.compile(pattern())


def matches(norm: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """(start, end, groups) of every glossary term in normalised text."""
    lookup = term_groups()
    out = []
    for m in _compiled().finditer(norm):
        s, e = m.span()
        if (_ALNUM.match(norm[s]) and s > 0 and _ALNUM.match(norm[s - 1])) or (
                _ALNUM.match(norm[e - 1]) and e < len(norm) and _ALNUM.match(norm[e])):
            continue  # inside an English word: "ring" in "during"
        key = canonical(m.group(0))
        found = lookup.get(key) or lookup.get(key[:-1]) or []  # [:-1]: the optional plural s
        if found:
            out.append((s, e, tuple(found)))
    return tuple(out)


def concept_tokens(norm: str) -> list[str]:
    """``~group`` once per term of the group found in normalised text."""
    return [CONCEPT + name for _, _, names in matches(norm) for name in names]


@lru_cache(maxsize=1024)
def _snippet_matches(norm: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    return matches(norm)  # cached for snippets: the same cards' texts come back query after query


def concept_spans(norm: str, names: set[str]) -> list[tuple[int, int]]:
    """Where terms of the concepts ``names`` (without ``~``) occur in normalised text."""
    return [(s, e) for s, e, found in _snippet_matches(norm) if names.intersection(found)]
