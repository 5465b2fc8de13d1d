"""The question bank's raw export (the seed's ``.txt`` format) → :class:`CardDoc`.

A raw card is a header and seven numbered sections, then an advertising footer::

    所属模块：
    M3 · 深度学习基础 (Deep Learning Foundations)| 专题分类：分布式训练 (...)| 难度等级：Easy
    一、核心一句话结论 (One-Sentence Summary)      zh line, en line
    二、核心考点要义 (Key Insights)                 zh bullets, "English Insights:", en bullets
    三、核心数学原理与机理推导 (...)                 $$display$$ (both languages), zh, "📖 查看英文…", en
    四、工业级落地权衡与工程考量 (...)               zh, "⚙️ 查看英文…", en
    五、常见面试避坑陷阱 (...)                       zh bullets, "English Pitfalls:", en bullets
    六、高频深度面试追问与预测 (...)                 one question per bullet, each in zh OR en
    七、知识图谱对齐 (...)                           "🔗 关联底层卡片：" zh title(en title) links,
                                                     "🗺️ 知识图谱模块：" map name (ignored)
    🔬 算法科学家…                                   advertising footer (dropped)

The export lost LaTeX backslashes; :func:`app.cards.latex_repair.repair_math` puts them back.
Every problem is a :class:`CardFileError` naming the file, the line and the section.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from app.cards.latex_repair import repair_math
from app.cards.pitfalls import mark_consequences
from app.cards.schema import DIFFICULTIES, CardDoc, FollowUp, Label, LangText, Link
from verify.reading.cardfile import CardFileError, decode

NUMERALS = "一二三四五六七"
SECTION_NAMES = ("summary", "insights", "derivation", "trade-offs", "pitfalls", "follow-ups", "links")
# Line that starts the English half of sections 二 … 五.
EN_MARKERS = {
    1: re.compile(r"^English\s+Insights\s*[:：]\s*$", re.I),
    2: re.compile(r"^📖\s*查看英文"),
    3: re.compile(r"^⚙\ufe0f?\s*查看英文"),
    4: re.compile(r"^English\s+Pitfalls\s*[:：]\s*$", re.I),
}
EN_MARKER_NAMES = {1: "English Insights:", 2: "📖 查看英文…", 3: "⚙️ 查看英文…", 4: "English Pitfalls:"}

_HEADING = re.compile(r"^\s*([一二三四五六七])、\s*(.*)$")
_HEADER = re.compile(
    r"^所属模块\s*[:：]\s*(?P<module>.+?)\s*\|\s*专题分类\s*[:：]\s*(?P<topic>.+?)\s*\|"
    r"\s*难度等级\s*[:：]\s*(?P<difficulty>\S+)\s*$"
)
_FOOTER = re.compile(r"^\s*🔬")
_BULLET = re.compile(r"^(?:[-–—•*])\s+(?:(?:📌|⚠\ufe0f?|🔗|💡|✅|❌|👉)\s*)?")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff01-\uff60]")
_DISPLAY_MATH_LINE = re.compile(r"^\$\$.*\$\$$")
_LINK_MARK = re.compile(r"-?\s*🔗\s*关联底层卡片\s*[:：]?")
_MAP_MARK = re.compile(r"\s*-?\s*🗺\ufe0f?\s*知识图谱模块\s*[:：]?")
_CODE = re.compile(r"^([A-Za-z]\w{0,9})\s*[·・•]\s*(.+)$")
_OPEN, _CLOSE = "(（", ")）"


@dataclass(frozen=True)
class RawCard:
    """A parsed raw card; ``notes`` tell the user what the importer guessed (a derived title)."""

    doc: CardDoc
    title_derived: bool = False
    notes: list[str] = field(default_factory=list)
    title_from: str = "given"  # or what the title was derived from (app.cards.subject_titles.Derived.how)


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def split_bilingual(text: str) -> tuple[str, str]:
    """``"zh title(en title)"`` → (zh, en); the last balanced bracket group is the English part.

    Text without a trailing bracket group is zh when it has CJK characters, else en. Raises
    ``ValueError`` when a bracket is left open (a truncated title).
    """
    text = text.strip()
    if text and text[-1] in _CLOSE:
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            if text[i] in _CLOSE:
                depth += 1
            elif text[i] in _OPEN:
                depth -= 1
                if depth == 0:
                    zh, en = text[:i].strip(), text[i + 1 : -1].strip()
                    if zh and not has_cjk(zh) and has_cjk(en):
                        zh, en = en, zh
                    return zh, en
        raise ValueError(f"unbalanced brackets in {text!r}")
    if any(c in _OPEN for c in text):
        raise ValueError(f"bracket opened but not closed in {text!r}")
    return (text, "") if has_cjk(text) else ("", text)


def parse_label(text: str) -> Label:
    """``"M3 · 深度学习基础 (Deep Learning Foundations)"`` → Label(code="M3", zh=..., en=...)."""
    code = ""
    m = _CODE.match(text.strip())
    if m:
        code, text = m.group(1), m.group(2)
    zh, en = split_bilingual(text)
    return Label(code=code, zh=zh, en=en)


def to_markdown(lines: list[str]) -> str:
    """Raw lines → Markdown: bank bullets become ``- `` items, other lines separate paragraphs."""
    blocks: list[str] = []
    in_list = False
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        m = _BULLET.match(line)
        if m:
            item = "- " + line[m.end() :].strip()
            if in_list:
                blocks[-1] += "\n" + item
            else:
                blocks.append(item)
            in_list = True
            continue
        if line.startswith("#"):
            line = "\\" + line  # a raw line must not become a card-file heading
        blocks.append(line)
        in_list = False
    return repair_math("\n\n".join(blocks))


_TEX = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\[A-Za-z]+")
_OPEN, _CLOSE = "(（[【{「", ")）]】}」"


def slugify(text: str, max_words: int = 6) -> str:
    """ASCII kebab-case from English text: TeX dropped, ``++`` read as "plus plus" (ZeRO++ → zero-plus-plus)."""
    stop = {"a", "an", "the", "of", "in", "on", "by", "and", "for", "to", "with", "is", "are", "vs"}
    plain = re.sub(r"['’]s\b", "", _TEX.sub(" ", text)).replace("++", " plus plus ").replace("&", " and ")
    words = re.findall(r"[a-z0-9]+", plain.lower())
    kept = [w for w in words if w not in stop] or words
    return "-".join(kept[:max_words])


def scan_outside(text: str, stop_at: Callable[[str, int], bool]) -> str:
    """``text`` up to the first index ``i`` where ``stop_at(text, i)`` holds outside every bracket and every
    ``$…$``: what this returns never ends inside brackets or TeX."""
    depth, in_tex = 0, False
    for i, ch in enumerate(text):
        if ch == "$":
            in_tex = not in_tex
        elif not in_tex and ch in _OPEN:
            depth += 1
        elif not in_tex and ch in _CLOSE:
            depth = max(0, depth - 1)
        elif not in_tex and depth == 0 and stop_at(text, i):
            return text[:i]
    return text


def _first_clause(text: str, stops: str, words: tuple[str, ...] = ()) -> str:
    """``text`` up to the first of ``stops`` (or a space-delimited word in ``words``) outside brackets and TeX."""

    def stop_at(t: str, i: int) -> bool:
        ch = t[i]
        if ch in stops and (ch not in ",;:." or i + 1 >= len(t) or t[i + 1].isspace() or has_cjk(ch)):
            return True
        return ch == " " and any(t.startswith(f" {w} ", i) for w in words)

    return scan_outside(text, stop_at)


def _balanced(text: str) -> bool:
    return text.count("$") % 2 == 0 and sum(map(text.count, _OPEN)) <= sum(map(text.count, _CLOSE))


def _whole_units(text: str, limit: int) -> str:
    """At most ``limit`` characters of ``text``, ended before a bracket or ``$…$`` it would cut."""
    for k in range(min(limit, len(text)), 0, -1):
        if _balanced(text[:k]):
            return text[:k].rstrip(" （(，,") if k < len(text) else text
    return text[:limit]


def derive_title(summary: LangText) -> LangText:
    """A short readable title from the summary's first clause in each language, never cut inside brackets/TeX."""
    zh = _whole_units(_first_clause(summary.zh, "，。；：,;:").strip(), 40)
    en_clause = _first_clause(summary.en, ",;:.", ("by", "which", "that", "because"))
    en = " ".join(en_clause.split()[:8]).strip()
    return LangText(zh=zh, en=_whole_units(en, len(en)).strip())


class _Sections:
    """The seven sections of one raw card: (first line number, lines) each, found in order."""

    def __init__(self, lines: list[str], name: str) -> None:
        self.name = name
        self.body: dict[int, tuple[int, list[str]]] = {}
        self.header_end = len(lines)
        current = -1
        starts: list[tuple[int, int]] = []  # (section index, 0-based line)
        for n, line in enumerate(lines):
            m = _HEADING.match(line)
            if m and NUMERALS.index(m.group(1)) > current:
                current = NUMERALS.index(m.group(1))
                starts.append((current, n))
        if starts:
            self.header_end = starts[0][1]
        for k, (idx, start) in enumerate(starts):
            end = starts[k + 1][1] if k + 1 < len(starts) else len(lines)
            self.body[idx] = (start + 2, lines[start + 1 : end])  # 1-based line of the first body line
        self.missing = [i for i in range(7) if i not in self.body]
        self.n_lines = len(lines)

    def error(self, idx: int, message: str, line: int | None = None, hint: str = "") -> CardFileError:
        where = f"section {NUMERALS[idx]} ({SECTION_NAMES[idx]})"
        return CardFileError(self.name, f"{where}: {message}", line=line or self.body[idx][0] - 1, hint=hint)


def _header(lines: list[str], end: int, name: str) -> tuple[Label, Label, str]:
    text = " ".join(line.strip() for line in lines[:end] if line.strip())
    m = _HEADER.match(text)
    if m is None:
        raise CardFileError(name, "header does not match "
                            "'所属模块：<module>| 专题分类：<topic>| 难度等级：<level>'", line=1,
                            hint="a bank card starts with its module, topic and difficulty")
    difficulty = m.group("difficulty").lower()
    if difficulty not in DIFFICULTIES:
        raise CardFileError(name, f"difficulty {m.group('difficulty')!r} is not Easy, Medium or Hard", line=2)
    try:
        return parse_label(m.group("module")), parse_label(m.group("topic")), difficulty
    except ValueError as exc:
        raise CardFileError(name, f"header: {exc}", line=2) from None


def _split_languages(sec: _Sections, idx: int) -> LangText:
    first, lines = sec.body[idx]
    marker = EN_MARKERS[idx]
    at = next((n for n, line in enumerate(lines) if marker.match(line.strip())), None)
    if at is None:
        raise sec.error(idx, f"no '{EN_MARKER_NAMES[idx]}' line before the English part",
                        hint="the bank's format puts it between the Chinese and the English text")
    zh_lines, en_lines = lines[:at], lines[at + 1 :]
    shared: list[str] = []
    while zh_lines and (not zh_lines[0].strip() or _DISPLAY_MATH_LINE.match(zh_lines[0].strip())):
        shared.append(zh_lines.pop(0))  # the derivation's display formula belongs to both languages
    zh, en = to_markdown(shared + zh_lines), to_markdown(shared + en_lines)
    if not to_markdown(zh_lines):
        raise sec.error(idx, "the Chinese part is empty")
    if not to_markdown(en_lines):
        raise sec.error(idx, "the English part is empty", line=first + at,
                        hint="truncated? the text after the marker line is missing")
    return LangText(zh=zh, en=en)


def _summary(sec: _Sections) -> LangText:
    _first, lines = sec.body[0]
    zh = [line for line in lines if line.strip() and has_cjk(line)]
    en = [line for line in lines if line.strip() and not has_cjk(line)]
    if not zh or not en:
        raise sec.error(0, f"needs a Chinese and an English line (found {len(zh)} and {len(en)})")
    return LangText(zh=to_markdown(zh), en=to_markdown(en))


def _follow_ups(sec: _Sections) -> list[FollowUp]:
    _first, lines = sec.body[5]
    questions: list[str] = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        m = _BULLET.match(line)
        if m or not questions:
            questions.append(line[m.end() :].strip() if m else line)
        else:
            questions[-1] += " " + line
    if not questions:
        raise sec.error(5, "no follow-up questions", hint="truncated? each question is a '- ' line")
    out = []
    for n, q in enumerate(questions, start=1):
        q = repair_math(q)
        text = LangText(zh=q) if has_cjk(q) else LangText(en=q)
        out.append(FollowUp(id=f"fu-{n}", question=text))
    return out


def _links(sec: _Sections) -> list[Link]:
    first, lines = sec.body[6]
    links: list[Link] = []
    for n, raw in enumerate(lines):
        mark = _MAP_MARK.search(raw)
        line = raw[: mark.start()] if mark else raw
        line = _BULLET.sub("", _LINK_MARK.sub("", line).strip()).strip()
        if not line:
            if mark:
                break
            continue
        try:
            zh, en = split_bilingual(line)
        except ValueError as exc:
            raise sec.error(6, f"link title: {exc}", line=first + n,
                            hint="truncated? a link reads 'zh title(en title)'") from None
        links.append(Link(title=LangText(zh=zh, en=en)))
        if mark:
            break  # the rest is the map name ("AI 基础设施工程导图"): bank navigation, ignored
    return links


def _missing_error(sec: _Sections) -> CardFileError:
    """Name every missing section and where it was expected."""
    named = ", ".join(f"{NUMERALS[i]} ({SECTION_NAMES[i]})" for i in sec.missing)
    places: list[tuple[int, str]] = []
    for i in sec.missing:
        after = [k for k in sec.body if k > i]
        if after:
            at = sec.body[after[0]][0] - 1
            places.append((at, f"{NUMERALS[i]} expected before section {NUMERALS[after[0]]} at line {at}"))
    if sec.missing[-1] == 6:
        last = f"inside section {NUMERALS[max(sec.body)]}" if sec.body else "before any numbered section"
        places.append((sec.n_lines, f"the file ends at line {sec.n_lines} {last}"))
    return CardFileError(sec.name, f"missing section(s) {named}; " + "; ".join(p for _, p in places),
                         line=places[0][0], hint="a bank card has all seven sections 一 … 七; truncated? re-export it")


def parse_raw_text(text: str, name: str, *, title: LangText | None = None, slug: str = "") -> RawCard:
    """Parse one raw card's text; ``name`` is used in errors and as the card's ``source``."""
    if not text.strip():
        raise CardFileError(name, "empty file: not a bank card", line=1)
    lines = text.split("\n")
    last_section = next((n for n in range(len(lines) - 1, -1, -1) if lines[n].lstrip().startswith("七、")), 0)
    footer = next((n for n in range(last_section, len(lines)) if _FOOTER.match(lines[n])), None)
    if footer is not None:
        lines = lines[:footer]  # the bank's advertising, after section 七
    first = next((line.strip() for line in lines if line.strip()), "")
    sec = _Sections(lines, name)
    if not first.startswith("所属模块") and len(sec.missing) > 3:
        raise CardFileError(name, f"not a bank card: starts with {first[:40]!r}", line=1,
                            hint="a bank export starts with '所属模块：' and has sections 一 … 七")
    if sec.missing:
        raise _missing_error(sec)
    module, topic, difficulty = _header(lines, sec.header_end, name)
    sections = {"summary": _summary(sec)}
    for idx, key in ((1, "insights"), (2, "derivation"), (3, "tradeoffs"), (4, "pitfalls")):
        sections[key] = _split_languages(sec, idx)
    sections["pitfalls"] = mark_consequences(sections["pitfalls"])
    follow_ups, links = _follow_ups(sec), _links(sec)
    notes: list[str] = []
    derived = title is None
    if title is None:
        from app.cards.subject_titles import subject_title

        subject = subject_title(sections["summary"])
        title = subject or derive_title(sections["summary"])
        how = "summary subject" if subject else "summary first clause"
        notes.append(f"title derived from the {how}: {title.zh!r} / {title.en!r} (edit it in the card)")
    slug = slug or slugify(title.en or sections["summary"].en) or "card"
    try:
        doc = CardDoc(slug=slug, title=title, module=module, topic=topic, difficulty=difficulty,  # type: ignore[arg-type]
                      sections=sections, follow_ups=follow_ups, links=links, source=name.rsplit("/", 1)[-1])
    except ValidationError as exc:
        msg = "; ".join(e["msg"] for e in exc.errors())
        raise CardFileError(name, f"cannot build a card: {msg}", line=1) from None
    return RawCard(doc=doc, title_derived=derived, notes=notes)


def parse_raw_bytes(data: bytes, name: str, *, title: LangText | None = None, slug: str = "") -> RawCard:
    """Decode (UTF-8, BOM and CRLF accepted) and parse one raw card."""
    if b"\x00" in data[:4096]:
        raise CardFileError(name, "binary file: not a bank card", line=1)
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":
            line = data.count(b"\n") + 1
            raise CardFileError(name, "truncated: the file ends inside a UTF-8 character", line=line,
                                hint="re-export the card") from None
    text = decode(data, name)
    return parse_raw_text(text, name, title=title, slug=slug)
