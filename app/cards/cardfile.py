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
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from pydantic import ValidationError

from app.cards.errors import CardFileError
from app.cards.schema import SECTION_KEYS, SECTION_TITLES, CardDoc, LangText

FRONT_MATTER_FENCE = "---"
LANGS = ("zh", "en")
MAX_FILE_BYTES = 2_000_000

# Heading text (case-insensitive) → section key: the key itself, the English and the Chinese title.
_SECTION_BY_HEADING: dict[str, str] = {}
for _key in SECTION_KEYS:
    _zh, _en = SECTION_TITLES[_key]
    for _name in (_key, _en, _zh):
        _SECTION_BY_HEADING[_name.lower()] = _key

_md = MarkdownIt("commonmark")


def decode_card_bytes(data: bytes, path: str) -> str:
    """UTF-8 (a BOM is fine) with CRLF normalised; anything else is a clear error."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CardFileError(
            path, f"not valid UTF-8 (byte {exc.start} is 0x{data[exc.start]:02x})", line=line,
            hint="save the file as UTF-8",
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_front_matter(text: str, path: str) -> tuple[dict[str, Any], str, int]:
    """Return (front matter mapping, body, line number where the body starts)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        raise CardFileError(path, "missing YAML front matter", line=1, hint="start the file with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FRONT_MATTER_FENCE)
    except StopIteration:
        raise CardFileError(
            path, "front matter is not closed", line=1, hint="end the YAML block with a '---' line"
        ) from None
    try:
        meta = yaml.load("\n".join(lines[1:end]), Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CardFileError(path, f"invalid YAML in front matter: {problem}", line=line) from None
    if not isinstance(meta, dict):
        raise CardFileError(path, "front matter must be a YAML mapping (key: value lines)", line=2)
    return meta, "\n".join(lines[end + 1 :]), end + 2


def parse_body(body: str, path: str, first_line: int) -> dict[str, LangText]:
    """Split the Markdown body into sections by its level-1 / level-2 headings."""
    lines = body.split("\n")
    headings: list[tuple[int, int, int, str]] = []  # (level, start, end, text), 0-based lines in body
    tokens = _md.parse(body)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h1", "h2") and tok.map:
            headings.append((int(tok.tag[1]), tok.map[0], tok.map[1], tokens[i + 1].content.strip()))

    found: dict[str, dict[str, str]] = {}
    section: str | None = None
    lang: str | None = None
    for n, (level, start, _end, name) in enumerate(headings):
        at = first_line + start
        next_start = headings[n + 1][1] if n + 1 < len(headings) else len(lines)
        content = "\n".join(lines[headings[n][2] : next_start]).strip("\n")
        if level == 1:
            key = _SECTION_BY_HEADING.get(name.lower())
            if key is None:
                raise CardFileError(
                    path, f"unknown section heading '# {name}'", line=at,
                    hint=f"use one of {', '.join(SECTION_TITLES[k][1] for k in SECTION_KEYS)}; "
                    "use ### for headings inside a section",
                )
            if key in found:
                raise CardFileError(path, f"section '{name}' appears twice", line=at)
            found[key] = {}
            section, lang = key, None
            if content.strip():
                raise CardFileError(
                    path, f"text directly under '# {name}'", line=at + 1,
                    hint="put it under '## zh' or '## en'",
                )
        else:
            lang = name.lower()
            if section is None:
                raise CardFileError(path, f"'## {name}' before any section heading", line=at)
            if lang not in LANGS:
                raise CardFileError(
                    path, f"unknown language heading '## {name}'", line=at,
                    hint="use '## zh' or '## en'; use ### for headings inside a section",
                )
            if lang in found[section]:
                raise CardFileError(path, f"'## {lang}' appears twice in section '{section}'", line=at)
            found[section][lang] = content
    if headings:
        before = "\n".join(lines[: headings[0][1]]).strip()
    else:
        before = body.strip()
    if before:
        raise CardFileError(
            path, "text before the first section heading", line=first_line,
            hint="start the body with a section heading such as '# Summary'",
        )
    return {k: LangText(**v) for k, v in found.items()}


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "card"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def load_card_text(text: str, path: str) -> CardDoc:
    meta, body, body_line = split_front_matter(text, path)
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
    name = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CardFileError(name, f"cannot read: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise CardFileError(name, f"file is {len(data)} bytes, more than {MAX_FILE_BYTES}")
    return load_card_text(decode_card_bytes(data, name), name)


# libyaml's C loader/dumper when present (10x faster than pure Python), same safe semantics.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    out = [FRONT_MATTER_FENCE, front.rstrip("\n"), FRONT_MATTER_FENCE, ""]
    for key, text in doc.sections.items():
        out += [f"# {SECTION_TITLES[key][1]}", ""]
        for lang in LANGS:
            out += [f"## {lang}", ""]
            value = getattr(text, lang).strip("\n")
            if value:
                out += [value, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def content_hash(doc: CardDoc) -> str:
    """Stable hash of a card's content (not of its file's formatting)."""
    canonical = json.dumps(doc.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
