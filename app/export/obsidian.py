"""The Obsidian vault: one note per card in a folder per module, an index note per module and one
for the deck. Notes follow Obsidian's conventions (properties at byte 0, ``[[wikilinks]]`` by file
name, callouts, ``$`` math) and carry follow-ups in the Spaced Repetition plugin's multi-line format
under a ``#flashcards/...`` tag, each answer ending in the block id ``^pd-<follow-up id>``
(:mod:`app.export.obsidian_state`). Output is a pure function of the deck and of the vault state it is
given (the plugin's scheduling comments found in the user's current notes, put back under the same
follow-up): exporting twice gives identical bytes.
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from app.cards.schema import SECTION_TITLES, CardDoc, Label, LangText
from app.core.progress import Progress
from app.export.deck import Verdicts
from app.export.filenames import NameAllocator, UnsafePathError, safe_join, safe_name
from app.export.obsidian_state import VaultState, block_id
from app.export.obsidian_text import one_block, sr_unsafe, to_obsidian
from app.render.marks import MARKED, Mark, escape_note, finish_markdown, locate, place
from app.verification.present import VERDICT_LABELS, claim_note, marks_for, psi_of, verdict_kind

VAULT_ROOT = "proofdeck"
MANIFEST = ".proofdeck-export.json"  # what the last `proofdeck export obsidian DIR` wrote
DECK_INDEX = "proofdeck index"
NO_MODULE = Label(zh="未分类", en="Unsorted")
NO_ANSWER = "*暂无参考答案 · No reference answer yet*"
AFTER_FENCE = "&#8203;"  # an invisible line after an answer's closing fence, to carry the block id
CALLOUT = {"confirmed": "success", "refuted": "failure", "conditional": "warning", "unverifiable": "question",
           "error": "bug", "mismatch": "failure", "stale": "question", "contradiction": "failure"}
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when present: same text, faster


def tag_text(*parts: str) -> str:
    """A valid Obsidian tag: letters (CJK too), digits, ``_``, ``-``, ``/``; not only digits."""
    out = []
    for part in parts:
        t = re.sub(r"[^\w/-]+", "-", unicodedata.normalize("NFC", part).lower())
        t = "/".join(p.strip("-_") for p in t.split("/") if p.strip("-_"))
        if t:
            out.append(t)
    tag = "/".join(out) or "untagged"
    return "/".join(p if not p.isdigit() else f"n{p}" for p in tag.split("/"))


def label_text(label: LangText) -> str:
    parts = [getattr(label, "code", ""), label.zh, label.en]
    return " · ".join(p for p in dict.fromkeys(p.strip() for p in parts) if p)


def label_key(label: Label) -> str:
    return label.code or label.en or label.zh


def both(text: LangText) -> str:
    return " · ".join(p for p in dict.fromkeys((text.zh.strip(), text.en.strip())) if p)


def one_line(text: str) -> str:
    """Neutralised text for a heading, list item or link line (its code and math handled as in a section)."""
    return to_obsidian(re.sub(r"\s+", " ", text).strip())


@dataclass
class VaultLayout:
    """Where every note goes: module folders and unique note names (file name without ``.md``)."""

    folder: dict[str, str] = field(default_factory=dict)  # module key -> folder name
    index: dict[str, str] = field(default_factory=dict)  # module key -> index note name
    name: dict[str, str] = field(default_factory=dict)  # card slug -> note name
    module: dict[str, Label] = field(default_factory=dict)

    @classmethod
    def plan(cls, docs: Sequence[CardDoc]) -> VaultLayout:
        layout, folders, notes = cls(), NameAllocator(), NameAllocator()
        notes.take(DECK_INDEX)
        for doc in docs:
            mod = doc.module if not doc.module.is_empty() or doc.module.code else NO_MODULE
            key = label_key(mod)
            if key not in layout.folder:
                layout.module[key] = mod
                layout.folder[key] = folders.take(safe_name(label_text(mod), fallback="module"))
                layout.index[key] = notes.take(safe_name(f"{label_text(mod)} index", fallback="module index"))
            layout.name[doc.slug] = notes.take(safe_name(doc.title.en or doc.title.zh, fallback=doc.slug))
        return layout

    def module_key(self, doc: CardDoc) -> str:
        return label_key(doc.module if not doc.module.is_empty() or doc.module.code else NO_MODULE)

    def card_path(self, doc: CardDoc) -> str:
        return f"{self.folder[self.module_key(doc)]}/{self.name[doc.slug]}.md"


def prop_text(text: str) -> str:
    """A property value: Obsidian turns ``[[...]]`` in a text property into a link, so break it."""
    return text.replace("[[", "[ [").replace("]]", "] ]").strip()


def _properties(data: Mapping[str, object]) -> str:
    text = yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False,
                     default_flow_style=False, width=10**6)
    return f"---\n{text}---\n"


def _callout(kind: str, title: str, body: str) -> list[str]:
    """A callout; if a line of it would make a card (code in a callout is not skipped by the plugin:
    its fences do not start at column 0), a heading and the plain body instead."""
    lines = [f"> [!{kind}] {title}"]
    lines += [f"> {line}".rstrip() for line in body.strip("\n").split("\n")]
    if sr_unsafe("\n".join(lines), skip_fences=False):
        return [f"## {title}", "", body.strip("\n"), ""]
    return [*lines, ""]


def _placed(text: LangText, marks: Sequence[tuple[str, Mark]], used: set[int]) -> LangText:
    """``text`` with the sentinels of the claims quoting it; ``marks``: (language, mark), each placed once
    per note (``used``: positions already placed)."""
    out = {}
    for lang in ("zh", "en"):
        value = getattr(text, lang)
        todo = {i for i, (lg, m) in enumerate(marks) if lg == lang and i not in used and locate(value, m.quote)}
        used.update(todo)
        out[lang] = place(value, [m for _, m in marks], todo) if todo else value
    return LangText(**out)


def _bilingual(text: LangText) -> str:
    """zh, a thematic break, en (the break also keeps a zh list and an en list apart)."""
    return "\n\n***\n\n".join(to_obsidian(t.strip("\n")) for t in (text.zh, text.en) if t.strip())


def _short_quote(text: str, limit: int = 48) -> str:
    """The quote on one line, cut at ``limit`` characters but never inside a formula."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    if len(re.findall(r"(?<!\\)\$", cut)) % 2:  # an open formula: cut before it
        cut = cut[:cut.rfind("$")]
    return cut.rstrip() + "…"


def claims_callout(rows: Sequence[Mapping[str, Any]], psi: float | None) -> list[str]:
    """Every claim of the card in one folded callout, a line each: its sign, its quoted words (shortened)
    and the mark's few words ("✗ … — 应为 16Ψ，不是 14Ψ", "✓ … — measured"); the raw assertions and
    per-run numbers stay in the web app and the verification report."""
    lines: list[str] = []
    tally: dict[str, int] = {}
    for v in rows:
        kind = verdict_kind(v)
        _zh, _en, sign = VERDICT_LABELS[kind]
        tally[sign] = tally.get(sign, 0) + 1
        lang = "zh" if v.get("text_zh") else "en"
        quote = _short_quote(str(v.get(f"text_{lang}") or v.get("claim_id") or ""))
        note = claim_note(v, lang, psi) if kind in MARKED else ""
        lines.append(f"- {sign} {one_line(quote)}" + (f" — {escape_note(note)}" if note else ""))
    if not lines:
        return []
    title = "论断 · Claims (" + " · ".join(f"{n} {sign}" for sign, n in tally.items()) + ")"
    body = [f"> [!info]- {title}", *(f"> {line}" for line in lines)]
    if sr_unsafe("\n".join(body), skip_fences=False):
        return [f"## {title}", "", *lines, ""]
    return [*body, ""]


def followup_card(question: str, answer: str, fu_id: str, schedule: str | None = None) -> list[str]:
    """One follow-up as a multi-line Spaced Repetition card ended by its block id (and the plugin's
    scheduling comment when the user's vault had one). An answer ending in a code fence gets a line
    after it: the plugin writes `` ^id`` onto the card's last line, which would break the closing fence."""
    if answer.rsplit("\n", 1)[-1].startswith("```"):
        answer += "\n" + AFTER_FENCE
    lines = [question, "?", f"{answer} ^{block_id(fu_id)}"]
    if schedule:
        lines.append(f"<!--SR:{schedule}-->")
    return [*lines, ""]


def card_note(doc: CardDoc, layout: VaultLayout, verdicts: Verdicts | None = None,
              vault: VaultState | None = None) -> str:
    """One card as an Obsidian note; ``vault``: the user's current notes, whose scheduling comments and
    note-review properties are kept for the follow-ups that still exist."""
    mod = layout.module[layout.module_key(doc)]
    tags = ["proofdeck", tag_text("proofdeck/module", label_key(mod)),
            *([tag_text("proofdeck/topic", label_key(doc.topic))] if label_key(doc.topic) else []),
            tag_text("proofdeck/difficulty", doc.difficulty), *(tag_text(t) for t in doc.tags)]
    props = {"aliases": list(dict.fromkeys(prop_text(t) for t in (doc.title.zh, doc.title.en) if t.strip())),
             "tags": list(dict.fromkeys(tags)), "module": prop_text(label_text(mod)),
             "topic": prop_text(label_text(doc.topic)),
             "difficulty": doc.difficulty, "slug": doc.slug,
             **(vault.properties(doc.slug) if vault else {})}
    index = layout.index[layout.module_key(doc)]
    out = [_properties(props), f"# {one_line(both(doc.title))}", "",
           f"[[{index}]] · {one_line(label_text(doc.topic))} · {doc.difficulty}", ""]
    rows = list((verdicts or {}).get(doc.slug, ()))
    psi = psi_of(rows)
    marks = [(lang, m) for lang in ("zh", "en") for m in marks_for(rows, lang, psi, link=False)]
    used: set[int] = set()
    for key, text in doc.sections.items():
        if text.is_empty():
            continue
        text = _placed(text, marks, used)
        heading = " · ".join(SECTION_TITLES[key])
        if key == "pitfalls":
            out += _callout("warning", heading, _bilingual(text))
        else:
            out += [f"## {heading}", "", _bilingual(text), ""]
    out += claims_callout(rows, psi)
    if doc.links:
        out += ["## 关联卡片 · Related", ""]
        for link in doc.links:
            if link.slug in layout.name:
                out.append(f"- [[{layout.name[link.slug]}]]")
            else:
                out.append(f"- {one_line(both(link.title) or link.slug)} (不在卡组中 · not in the deck yet)")
        out.append("")
    if doc.follow_ups:
        deck_tag = tag_text("flashcards/proofdeck", label_key(mod))
        out += ["## 追问 · Follow-ups", "", f"#{deck_tag}", ""]
        schedules = vault.schedules(doc.slug) if vault else {}
        for fu in doc.follow_ups:
            question = one_block(fu.question.zh, fu.question.en)
            ans = _placed(fu.answer, marks, used)
            answer = one_block(ans.zh, ans.en) or NO_ANSWER
            out += followup_card(question, answer, fu.id, schedules.get(fu.id))
    return finish_markdown("\n".join(out).rstrip("\n") + "\n", [m for _, m in marks])


def module_index(key: str, docs: Sequence[CardDoc], layout: VaultLayout) -> str:
    mod = layout.module[key]
    props = {"aliases": list(dict.fromkeys(prop_text(t) for t in (mod.zh, mod.en) if t.strip())),
             "tags": ["proofdeck", tag_text("proofdeck/module", key)], "module": prop_text(label_text(mod))}
    out = [_properties(props), f"# {one_line(label_text(mod))}", "", f"[[{DECK_INDEX}]]", ""]
    topic = None
    for doc in docs:
        if label_text(doc.topic) != topic:
            topic = label_text(doc.topic)
            out += ["", f"## {one_line(topic or '其他 · Other')}", ""]
        out.append(f"- [[{layout.name[doc.slug]}]] · {doc.difficulty}")
    return "\n".join(out).rstrip("\n") + "\n"


def deck_index(layout: VaultLayout, counts: dict[str, int]) -> str:
    out = [_properties({"tags": ["proofdeck"]}), "# proofdeck", ""]
    out += [f"- [[{layout.index[k]}]] ({counts[k]})" for k in layout.folder]
    return "\n".join(out) + "\n"


def vault_files(docs: Sequence[CardDoc], verdicts: Verdicts | None = None,
                progress: Progress | None = None, vault: VaultState | None = None) -> dict[str, str]:
    """Relative path → note text for the whole vault, in a stable order; ``vault``: see :func:`card_note`;
    ``progress`` ticks once per card note."""
    layout = VaultLayout.plan(docs)
    by_module: dict[str, list[CardDoc]] = {k: [] for k in layout.folder}
    files: dict[str, str] = {}
    for doc in progress.each("rendering notes", docs, unit="cards") if progress else docs:
        by_module[layout.module_key(doc)].append(doc)
        files[layout.card_path(doc)] = card_note(doc, layout, verdicts, vault)
    for key, mdocs in by_module.items():
        files[f"{layout.folder[key]}/{layout.index[key]}.md"] = module_index(key, mdocs, layout)
    files[f"{DECK_INDEX}.md"] = deck_index(layout, {k: len(v) for k, v in by_module.items()})
    return dict(sorted(files.items()))


def vault_zip(files: dict[str, str]) -> bytes:
    """The vault as a zip under ``proofdeck/``, byte-identical for identical files."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, text in sorted(files.items()):
            safe_join(Path("/vault"), rel)  # the same guard as on disk
            info = zipfile.ZipInfo(f"{VAULT_ROOT}/{rel}", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text.encode("utf-8"))
    return buf.getvalue()


def _previous_export(folder: Path) -> list[str]:
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []


def write_vault(folder: Path, files: dict[str, str], progress: Progress | None = None) -> list[Path]:
    """Write the notes under ``folder``; every path is checked to stay inside it. Notes that the
    previous export wrote (listed in ``.proofdeck-export.json``) and this one does not are removed,
    so a renamed card leaves no stale note behind; nothing else in the folder is touched. ``progress``
    ticks once per note written."""
    targets = {rel: safe_join(folder, rel) for rel in files}  # check every path before writing any
    folder.mkdir(parents=True, exist_ok=True)
    for rel in sorted(set(_previous_export(folder)) - set(files)):
        try:
            stale = safe_join(folder, rel)
        except UnsafePathError:
            continue
        if stale.suffix == ".md" and stale.is_file():
            stale.unlink()
            if stale.parent != folder.resolve() and not any(stale.parent.iterdir()):
                stale.parent.rmdir()
    for rel, text in progress.each("writing", list(files.items()), unit="notes") if progress else files.items():
        targets[rel].parent.mkdir(parents=True, exist_ok=True)
        targets[rel].write_bytes(text.encode("utf-8"))
    manifest = json.dumps(sorted(files), ensure_ascii=False, indent=0)
    (folder / MANIFEST).write_text(manifest + "\n", encoding="utf-8")
    return list(targets.values())
