"""Generated decks for export tests and benchmarks: N linked cards with math, zh/en text,
follow-ups, pitfalls, claims, hostile file-name titles and an XSS payload in every text field."""

from __future__ import annotations

from app.cards.schema import CardDoc, Claim, FollowUp, Label, LangText, Link

XSS = (
    '<script>alert("xss")</script>',
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">a</a>',
    "</textarea></style><script>alert(1)</script>",
    "![beacon](http://127.0.0.1:9/beacon.png) ![local](beacon.png) ![up](../up.png)",
    "<iframe src=javascript:alert(1)></iframe> <!-- hidden -->",
    "%%comment%% ==highlight== a::b [[../secret]] #flashcards",
    "{{ 7*7 }} {% raw %} <<SCRIPT>alert(1);//<</SCRIPT>",
)
# Titles that must not become paths outside the export folder or invalid file names.
HOSTILE_TITLES = ("../../etc/passwd", "CON", "/abs/path: x*y?", "   ...   ", 'a<b>c:"d"|e?f#g^h[i]j%%k',
                  "nul.txt", "C:\\Windows\\system32")
MODULES = (Label(code="M1", zh="数学基础", en="Math Foundations"),
           Label(code="M3", zh="深度学习基础", en="Deep Learning Foundations"),
           Label(code="M7", zh="大模型系统 <b>x</b>", en="LLM Systems <script>alert(1)</script>"),
           Label(code="", zh="", en=""))
TOPICS = (Label(code="dist", zh="分布式训练", en="Distributed Training"),
          Label(code="mem", zh="显存", en="Memory"), Label(code="", zh="通信 <i>", en="Communication"))
DIFFICULTIES = ("easy", "medium", "hard")


def xss(i: int) -> str:
    return XSS[i % len(XSS)]


def token(i: int) -> str:
    """A word that appears in card ``i`` only (for search tests)."""
    return f"k{i:04d}q"


def make_card(i: int, n: int, *, hostile: bool = True, summary_extra: str = "") -> CardDoc:
    """Card ``i`` of a deck of ``n``: linked to cards i+1 and i+7, plus one link by title only."""
    bad = xss(i) if hostile else ""
    slug = f"card-{i:04d}"
    title_en = f"ZeRO memory {i}: shard/gather {bad}"
    if hostile and i % 25 < len(HOSTILE_TITLES):
        title_en = HOSTILE_TITLES[i % 25]
    if hostile and i % 25 == 10:
        title_en = "ZeRO memory 0: shard/gather " + XSS[0]  # collides with card 0's file name
    ps = f"\\Psi_{{{i}}}"  # a formula per card, so renders are not all cache hits
    answer_zh = (f"混合精度 Adam 每参数 $12{ps}$ 字节。\n\n第二段 {bad}\n\n?\n\n"
                 f"$$\n2{ps} + 2{ps}\n+ \\frac{{12{ps}}}{{N}}\n$$")
    answer_en = (f"FP32 master, $m$ and $v$: $4 + 4 + 4 = 12$ bytes.\n\n- a::b `std::vector<int>`\n"
                 f"- ==not a cloze==\n\n??\n\nMore {bad}")
    follow_ups = [
        FollowUp(id="why-optimizer", question=LangText(zh=f"为什么优化器状态占显存最多？{bad}",
                                                       en=f"Why do optimizer states dominate memory? {bad}"),
                 answer=LangText(zh=answer_zh, en=answer_en)),
        FollowUp(id="zero3-comm", question=LangText(zh="ZeRO-3 的通信量？", en=f"ZeRO-3 traffic? {bad}"),
                 answer=LangText(zh=f"约 $1.5\\times$ DDP {bad}")),
        FollowUp(id="no-answer", question=LangText(en=f"Open question {i} {bad}")),
    ]
    code = f"Use `std::map<a,b>`:\n\n```python\nx = '<script>alert(1)</script>'\n\ny = a::b\n```\n\n{bad}"
    return CardDoc(
        slug=slug,
        title=LangText(zh=f"零冗余优化器 {i} {bad}", en=title_en),
        module=MODULES[i % len(MODULES)],
        topic=TOPICS[(i // 3) % len(TOPICS)],
        difficulty=DIFFICULTIES[i % 3],  # type: ignore[arg-type]
        tags=["zero", "分布式", f"t{i % 5}", "2020", bad] if hostile else ["zero"],
        sections={
            "summary": LangText(zh=f"ZeRO 分片优化器状态 {i}，显存 $\\frac{{16{ps}}}{{N}}$ {bad}"
                                   f"{summary_extra}",
                                en=f"ZeRO shards optimizer states across $N$ ranks (ref {token(i)}) {bad}"
                                   f"{summary_extra}"),
            "insights": LangText(zh=f"- 每设备显存：$16{ps}$ 字节\n- ZeRO-1 省 $4\\times$ {bad}",
                                 en=f"- Memory per device: $2{ps} + 2{ps} + 12{ps}$\n- Note {bad}"),
            "derivation": LangText(
                zh=f"推导：\n\n$$\n\\sum_{{i=1}}^{{N}} \\frac{{{ps}}}{{N}} = {ps}\n$$\n\n结论 {bad}",
                en=f"Derivation with $\\text{{{bad}}}$ and $x < y$:\n\n"
                   f"$$\nM = 2{ps} + \\frac{{14{ps}}}{{N}}\n$$"),
            "tradeoffs": LangText(zh=f"通信 vs 显存 {bad}", en=code),
            "pitfalls": LangText(zh=f"- 以为 ZeRO 免费 {bad}", en=f"- Assuming ZeRO-1 adds traffic {bad}"),
        },
        follow_ups=follow_ups,
        links=[Link(slug=f"card-{(i + 1) % n:04d}"), Link(slug=f"card-{(i + 7) % n:04d}"),
               Link(title=LangText(zh="环形 All-Reduce", en=f"Ring All-Reduce {bad}"))],
        claims=[Claim(id="memory-total", asserts="model_state_bytes(ddp) == 16*Psi", section="summary",
                      text=LangText(zh=f"总显存 $16{ps}$ {bad}", en=f"Total $16{ps}$ {bad}"))],
        source=f"generated-{i}",
    )


def make_deck(n: int, *, hostile: bool = True) -> list[CardDoc]:
    return [make_card(i, n, hostile=hostile) for i in range(n)]


def make_verdicts(docs: list[CardDoc]) -> dict[str, list[dict[str, object]]]:
    """One verdict per card, cycling through the four kinds, with hostile text."""
    kinds = ("confirmed", "refuted", "conditional", "unverifiable")
    return {d.slug: [{"claim_id": "memory-total", "verdict": kinds[i % 4], "text_zh": f"总显存 {xss(i)}",
                      "text_en": f"Total memory {xss(i)}", "predicted": 16.0, "measured": 16.02,
                      "reason_zh": f"实测 {xss(i + 1)}", "reason_en": f"measured on 4 ranks {xss(i + 1)}"}]
            for i, d in enumerate(docs)}
