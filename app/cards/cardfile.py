"""The card source format: Markdown with YAML front matter, one file per card (see cards/README.md).

    ---
    slug: zero-sharding
    title: {zh: ..., en: ...}
    ...follow_ups, links, claims...
    ---

    # Summary
    ## zh
    ...
    ## en
    ...

Level-1 headings name sections, level-2 headings name the language; section text may use any
Markdown except level-1/2 headings (use ### and deeper).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from app.cards.schema import SECTION_KEYS, SECTION_TITLES, CardDoc, LangText
from app.core.vocab import CARD_LANGS
from verify.reading.cardfile import FENCE, CardFileError, decode, read_bytes, split

LANGS = CARD_LANGS

# Heading text (case-insensitive) → section key: the key itself, the English and the Chinese title.
_SECTION_BY_HEADING: dict[str, str] = {}
for _key in SECTION_KEYS:
    _zh, _en = SECTION_TITLES[_key]
    for _name in (_key, _en, _zh):
        _SECTION_BY_HEADING[_name.lower()] = _key

_HEADING = re.compile(r"^(#{1,2})[ \t]+(.*?)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _structure_line(line: str) -> tuple[int, str] | None:
    """(level, name) when ``line`` is a section heading (``# Summary``) or a language heading (``## en``)."""
    m = _HEADING.match(line)
    if not m:
        return None
    level, name = len(m.group(1)), m.group(2)
    if (level == 1 and name.lower() in _SECTION_BY_HEADING) or (level == 2 and name.lower() in LANGS):
        return level, name
    return None


def parse_body(body: str, path: str, first_line: int) -> dict[str, LangText]:
    """Split the Markdown body into sections by its ``# Section`` / ``## zh|en`` lines.

    Those lines always delimit, even after an unclosed code fence in the text above them, so one
    section's Markdown can never swallow the next. Any other level-1/2 heading outside a code fence is
    an error (use ### inside a section).
    """
    found: dict[str, dict[str, list[str]]] = {}
    section: str | None = None
    lang: str | None = None
    fence: str | None = None
    for offset, line in enumerate(body.split("\n")):
        at = first_line + offset
        structure = _structure_line(line)
        if structure is not None:
            fence = None
            level, name = structure
            if level == 1:
                key = _SECTION_BY_HEADING[name.lower()]
                if key in found:
                    raise CardFileError(path, f"section '{name}' appears twice", line=at)
                found[key], section, lang = {}, key, None
            else:
                if section is None:
                    raise CardFileError(path, f"'## {name}' before any section heading", line=at)
                lang = name.lower()
                if lang in found[section]:
                    raise CardFileError(path, f"'## {lang}' appears twice in section '{section}'", line=at)
                found[section][lang] = []
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker):].strip():
                fence = None
        elif fence is None and _HEADING.match(line):
            raise CardFileError(
                path, f"unknown heading '{line.strip()[:60]}'", line=at,
                hint=f"sections are {', '.join('# ' + SECTION_TITLES[k][1] for k in SECTION_KEYS)}; "
                "languages are '## zh' and '## en'; use ### for headings inside a section",
            )
        if section is None or lang is None:
            if line.strip():
                where = "before the first section heading" if section is None else f"directly under section '{section}'"
                raise CardFileError(path, f"text {where}", line=at,
                                    hint="put text under a '# Section' heading and a '## zh' or '## en' heading")
            continue
        found[section][lang].append(line)
    return {k: LangText(**{lg: "\n".join(lines).strip("\n") for lg, lines in v.items()}) for k, v in found.items()}


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "card"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def load_card_text(text: str, path: str) -> CardDoc:
    """The card document of a card file's text (``verify.reading.cardfile`` splits it; this validates it)."""
    card = split(text, path)
    meta, body, body_line = card.meta, card.body, card.body_line
    if "sections" in meta:
        raise CardFileError(path, "'sections' belongs in the Markdown body, not the front matter", line=2)
    sections = parse_body(body, path, body_line)
    try:
        return CardDoc(**meta, sections=sections)
    except ValidationError as exc:
        raise CardFileError(path, f"invalid card: {_validation_message(exc)}", line=2) from None
    except TypeError as exc:
        raise CardFileError(path, f"invalid card: {exc}", line=2) from None


def load_card_file(path: Path) -> CardDoc:
    """Read one card file; every problem is a :class:`CardFileError` naming the file."""
    return load_card_text(decode(read_bytes(path), str(path)), str(path))


# libyaml's C dumper when present (10x faster than pure Python), same safe semantics.
class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    pass


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str_representer)


def _prune(value: Any) -> Any:
    """Drop empty strings/lists/dicts so files stay short."""
    if isinstance(value, dict):
        pruned = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if v not in ("", [], {}, None)}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def dump_card(doc: CardDoc) -> str:
    """The card file text for ``doc``; ``load_card_text(dump_card(doc)) == doc``."""
    meta = _prune(doc.model_dump(mode="json", exclude={"sections"}))
    front = yaml.dump(meta, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    out = [FENCE, front.rstrip("\n"), FENCE, ""]
    for key, text in doc.sections.items():
        out += [f"# {SECTION_TITLES[key][1]}", ""]
        for lang in LANGS:
            out += [f"## {lang}", ""]
            value = getattr(text, lang).strip("\n")
            clash = next((ln for ln in value.split("\n") if _structure_line(ln)), None)
            if clash is not None:
                raise ValueError(f"section {key}/{lang} of {doc.slug!r} contains the line {clash!r}, which is a "
                                 "card-file heading; indent it or use ### instead")
            if value:
                out += [value, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def content_hash(doc: CardDoc) -> str:
    """Stable hash of a card's content (not of its file's formatting)."""
    canonical = json.dumps(doc.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
