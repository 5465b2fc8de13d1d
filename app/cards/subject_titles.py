"""Titles a person would choose for raw bank cards: the card's subject, not its summary's first clause.

The bank's export has no title line. Two places say what a card is about:

- **link anchors**: the bank's cards link to each other by title in 七、关联底层卡片 (``zh title(en title)``), so
  another card of the same import often names this one, in both languages, the way the bank titles it
  (``ZeRO 显存分片：优化器状态、梯度与参数(ZeRO: Sharding Optimizer States, Gradients and Parameters)``).
  An anchor names the card whose summary holds (nearly) all its words, when no other card comes close;
- **the summary's grammatical subject**: ``ZeRO++ shrinks ZeRO-3's cross-node traffic …`` is about ``ZeRO++``;
  ``vLLM 的自动前缀缓存（APC）按 16 个 token …`` about ``vLLM 的自动前缀缓存（APC）``: the words before the
  first verb (en) or the first verb-like marker (zh: 把、在、用、是 …), never cut inside brackets or ``$…$``.

A subject two cards of the import share, or one that cannot be found (a summary that opens with a clause such
as "When the batch grows …"), falls back to the summary's first clause (:func:`app.cards.rawformat.derive_title`).
Each title says where it came from (:class:`Derived`), which the import's report and titles table show.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from app.cards.rawformat import derive_title
from app.cards.rawformat import scan_outside as _scan
from app.cards.schema import CardDoc, LangText

_EN_STOPS = ",;:=≈≤≥<>"
_EN_LEADS = ("a ", "an ", "the ")
_EN_CLAUSE_OPENERS = {"when", "if", "without", "with", "for", "in", "at", "on", "after", "before", "while", "as",
                      "to", "unlike", "because", "since", "although", "once", "given", "by", "from", "under"}
_EN_VERBS = {"is", "are", "was", "were", "has", "have", "had", "does", "do", "did", "can", "cannot", "could", "must",
             "should", "will", "would", "may", "might", "needs", "need"}
# Lowercase words ending in -s that are nouns, not a verb ending the subject.
_EN_S_NOUNS = {"bits", "bytes", "tokens", "states", "weights", "gradients", "parameters", "layers", "heads", "experts",
               "formats", "series", "models", "activations", "matrices", "kernels", "ranks", "nodes", "gpus", "steps",
               "optimizers", "scales", "values", "elements", "blocks", "batches", "samples", "requests", "queries",
               "keys", "dimensions", "operations", "collectives", "rules", "laws", "results", "costs", "terms",
               "units", "tensors", "workers", "groups", "pages", "caches", "hyperparameters", "statistics", "flops",
               "ops", "iops", "words", "sequences", "documents", "labels", "features", "embeddings", "logits",
               "losses", "updates", "devices", "schedules", "stages", "microbatches", "micro-batches",
               "checkpoints", "bandwidths", "links", "lanes", "channels", "threads", "warps", "registers",
               "numbers", "floats", "integers", "exponents", "mantissas", "outliers", "signs", "class", "process",
               "access", "loss", "bias", "status", "gauss", "focus", "axis", "basis", "analysis", "less"}
_EN_VERB_ENDINGS = ("ates", "izes", "ises", "ifies", "uces", "ects", "ains", "oves", "ires", "ows", "eeps", "ends")
_FUNCTION_WORDS = {"the", "a", "an", "each", "every", "both", "all", "only", "its", "their", "from", "to", "with",
                   "by", "into", "in", "on", "at", "about", "over", "across", "up", "out", "no", "not", "one", "two",
                   "how", "what", "that", "whether", "more", "less", "most", "through", "between", "per", "as",
                   "for", "off", "away", "back", "itself", "them", "it", "this", "these", "those", "any", "some"}
# zh markers that end a subject: a verb or preposition after the noun phrase. Two-character ones come first.
_ZH_MARKERS_2 = ("通过", "使用", "利用", "采用", "可以", "能够", "需要", "同时", "只有", "就是", "等于", "约为",
                 "大约", "相当", "相差", "意味", "决定", "取决", "包括", "来自", "指的", "冻结", "分片", "压缩", "提出")
_ZH_MARKERS_1 = "把将在用是为会对让按有只从可能要需先即就由给向比每随"
# Words a zh marker character is part of (性能, 所有 …): not a marker there.
_ZH_COMPOUNDS = {"性能", "功能", "能力", "可能", "所有", "没有", "具有", "拥有", "潜在", "存在", "现在", "实在",
                 "因为", "作为", "认为", "成为", "行为", "对齐", "对称", "相对", "针对", "机会", "可见", "可用",
                 "可训", "要义", "需求", "先验", "由此", "每个", "每层", "每卡", "每步", "每块", "比例", "比特",
                 "将来", "在线", "用户", "用量", "有效", "只读", "从属", "向量", "给定", "即时", "就绪", "为止",
                 "前向", "反向", "方向", "导向", "面向"}
_ZH_STOPS = "，。；：,;:=≈"
_WORD = re.compile(r"[a-z0-9][a-z0-9+.\-]*")
_TEX = re.compile(r"\$[^$]*\$")
_STOPWORDS = {"a", "an", "the", "of", "in", "on", "by", "and", "for", "to", "with", "is", "are", "vs", "per", "its",
              "what", "how", "why", "or", "as", "at", "from", "into", "each", "every", "plus"}
ANCHOR_SHARE = 0.6  # share of an anchor's words that must be in the card's summary
ANCHOR_MARGIN = 0.2  # … and by how much more than in any other card's


TitleKey = tuple[str, str]


def title_key(title: LangText) -> TitleKey:
    """What makes two cards the same card: their zh and en titles, spaces squashed."""
    return re.sub(r"\s+", "", title.zh), re.sub(r"\s+", "", title.en).casefold()


@dataclass(frozen=True)
class Derived:
    """A derived title and what it came from: ``link anchor`` (named by another card, ``by`` its file),
    ``summary subject`` or ``summary first clause``."""

    title: LangText
    how: str
    by: str = ""

    def note(self) -> str:
        said = f"{self.title.zh!r} / {self.title.en!r}"
        if self.how == "link anchor":
            return f"title from the link anchor in {self.by}: {said}"
        return f"title derived from the {self.how}: {said} (review it in the titles table)"


def _en_verb_at(text: str, i: int) -> bool:
    if text[i] in _EN_STOPS:
        return True
    if i == 0 or text[i - 1] != " " or not text[i].isalpha():
        return False
    word = re.match(r"[A-Za-z']+", text[i:])
    w = word.group(0) if word else ""
    if "'" in w:
        return False  # a possessive (layer's) is part of the subject
    after = text[i + len(w) : i + len(w) + 1]
    if not w.islower() or (after and after not in " ,"):
        return False
    if w in _EN_VERBS:
        return True
    if len(w) < 4 or not w.endswith("s") or w.endswith(("ss", "us", "is")) or w in _EN_S_NOUNS:
        return False
    if w.endswith(_EN_VERB_ENDINGS):
        return True
    nxt = text[i + len(w) :].split(" ", 2)[1:2]
    # "Pipeline bubbles shrink …": a plain lowercase word after it is the verb, so the -s word is a plural noun.
    return not (nxt and len(nxt[0]) > 1 and nxt[0].isalpha() and nxt[0].islower() and nxt[0] not in _FUNCTION_WORDS)


def en_subject(summary_en: str) -> str:
    """The English summary's subject: the words before its first verb (``""`` when it opens with a clause)."""
    text = " ".join(summary_en.split())
    if text.split(" ", 1)[0].lower() in _EN_CLAUSE_OPENERS:  # "When the batch grows k-fold, SGD uses …"
        opener = _scan(text, lambda t, i: t[i] == ",")
        text = text[len(opener) + 1 :].strip()
        if text.split(" ", 1)[0].lower() in ("and", "or", "but", "so", "then", "which"):
            return ""  # the opener ran on past its comma: no subject to be found
    head = _scan(text, _en_verb_at).strip()
    if head == text or not head:
        return ""
    for lead in _EN_LEADS:
        if head.lower().startswith(lead):
            head = head[len(lead) :]
    head = head.strip(" -–—")
    if not head or len(re.findall(r"\w+", re.sub(r"\([^()]*\)", "", head))) > 8:  # words outside brackets
        return ""
    return head[0].upper() + head[1:] if head.split()[0].isalpha() and head.split()[0].islower() else head


def _zh_marker_at(text: str, i: int) -> bool:
    if text[i] in _ZH_STOPS:
        return True
    if i < 2:
        return False
    if text.startswith(_ZH_MARKERS_2, i):
        return True
    if text[i] not in _ZH_MARKERS_1:
        return False
    return text[i - 1 : i + 1] not in _ZH_COMPOUNDS and text[i : i + 2] not in _ZH_COMPOUNDS


def zh_subject(summary_zh: str) -> str:
    """The Chinese summary's subject: the text before its first verb-like marker (``""`` when not found)."""
    text = summary_zh.strip()
    head = _scan(text, _zh_marker_at).strip()
    opener = _scan(text, lambda t, i: t[i] in "，,")
    if head == opener.strip() and opener.endswith(("时", "中", "后", "下")):  # "词表很大时，输出层的 logits …"
        text = text[len(opener) + 1 :].strip()
        head = _scan(text, _zh_marker_at).strip()
    outside = re.sub(r"（[^（）]*）|\([^()]*\)", "", _TEX.sub("x", head))  # a formula counts as one character
    if head == text or len(head) < 2 or len(outside) > 24:
        return ""
    return head.strip(" 、")


def subject_title(summary: LangText) -> LangText | None:
    """Both languages' subjects, or ``None`` when either cannot be found."""
    zh, en = zh_subject(summary.zh), en_subject(summary.en)
    return LangText(zh=zh, en=en) if zh and en else None


def _words(text: str) -> set[str]:
    plain = _TEX.sub(" ", text.lower())
    return {w.rstrip(".").removesuffix("s") or w for w in _WORD.findall(plain) if w not in _STOPWORDS}


def _anchor_words(title: LangText) -> set[str]:
    return _words(title.en) | {w for w in _words(title.zh) if w.isascii()}


def anchors_for(docs: list[CardDoc], known: Collection[TitleKey] = ()) -> dict[int, tuple[LangText, int]]:
    """For each card (by index) the link anchor of another card that names it, and that card's index.

    An anchor names card ``j`` when at least :data:`ANCHOR_SHARE` of its words are in ``j``'s summary (en, and the
    Latin words of the zh) and clearly fewer are in any other card's; a card never takes an anchor of its own,
    nor one in ``known`` (the title of a card already in the deck: the link is to that card)."""
    groups: dict[str, list[int]] = {}  # re-exports of one card (the same summary) are one candidate
    for j, d in enumerate(docs):
        groups.setdefault(_squashed(d.sections["summary"]), []).append(j)
    members = list(groups.values())
    summaries = [_words(docs[g[0]].sections["summary"].en) | _words(docs[g[0]].sections["summary"].zh)
                 for g in members]
    owners: dict[tuple[str, str], set[int]] = {}  # a link's title → the groups whose cards carry that link
    for g, group in enumerate(members):
        for key in {(lk.title.zh, lk.title.en) for j in group for lk in docs[j].links}:
            owners.setdefault(key, set()).add(g)
    having: dict[str, list[int]] = {}  # a word → the groups whose summary has it: only those can score above 0
    for g, words in enumerate(summaries):
        for w in words:
            having.setdefault(w, []).append(g)
    found: dict[int, tuple[float, LangText, int]] = {}
    seen: set[tuple[str, str]] = set()
    for i, doc in enumerate(docs):
        for link in doc.links:
            key = (link.title.zh, link.title.en)
            words = _anchor_words(link.title)
            if key in seen or len(words) < 2 or title_key(link.title) in known:
                continue
            seen.add(key)
            mine = owners.get(key, set())
            best = heapq.nlargest(2, ((len(words & summaries[g]) / len(words), g)
                                      for g in _contenders(words, having) if g not in mine))
            if not best or best[0][0] < ANCHOR_SHARE:
                continue  # no group shares a word (or every group owns the link): nothing reaches the share
            second = best[1][0] if len(best) > 1 else 0.0 if len(members) - len(mine) > 1 else None
            if second is not None and best[0][0] - second < ANCHOR_MARGIN:
                continue
            share, g = best[0]
            for j in members[g]:
                if j not in found or found[j][0] < share:
                    found[j] = (share, link.title, i)
    return {j: (title, by) for j, (_, title, by) in found.items()}


# Only a group with at least this share of an anchor's words can decide it: the best needs ANCHOR_SHARE, and a
# second best matters within ANCHOR_MARGIN of it (above 0.4); the rest score lower and change nothing.
_CONTENDER_SHARE = 0.35


def _contenders(words: set[str], having: dict[str, list[int]]) -> set[int]:
    """Every group whose summary has at least ``_CONTENDER_SHARE`` of ``words`` (and maybe others): such a group
    misses at most ``len(words) - need`` of them, so it has one of any ``len(words) - need + 1`` words; the
    rarest ones give the fewest groups to score."""
    need = max(1, int(_CONTENDER_SHARE * len(words)))
    rarest = sorted(words, key=lambda w: len(having.get(w, ())))[: len(words) - need + 1]
    return {g for w in rarest for g in having.get(w, ())}


def _squashed(text: LangText) -> str:
    return re.sub(r"\s+", "", text.zh + text.en)


def choose_titles(docs: list[CardDoc], names: list[str], derive: list[bool],
                  known: Collection[TitleKey] = ()) -> list[Derived | None]:
    """The title for each card whose ``derive`` is set (``None`` for the others, whose title was given): its
    link anchor, else its summary's subject, else (a subject two cards share, or none) the summary's first clause."""
    given = {title_key(d.title) for k, d in enumerate(docs) if not derive[k]}
    anchors = anchors_for(docs, {*known, *given})
    subjects = [subject_title(d.sections["summary"]) if derive[k] and k not in anchors else None
                for k, d in enumerate(docs)]
    # Cards sharing a subject: counted once per distinct summary (a re-export of the same card is no second card).
    taken = Counter(key for key, _ in {(title_key(s), _squashed(docs[k].sections["summary"]))
                                       for k, s in enumerate(subjects) if s is not None})
    taken.update(given)
    out: list[Derived | None] = []
    for k, doc in enumerate(docs):
        subject = subjects[k]
        if not derive[k]:
            out.append(None)
        elif k in anchors:
            title, by = anchors[k]
            out.append(Derived(title, "link anchor", names[by]))
        elif subject is not None and taken[title_key(subject)] == 1:
            out.append(Derived(subject, "summary subject"))
        else:
            out.append(Derived(derive_title(doc.sections["summary"]), "summary first clause"))
    return out
