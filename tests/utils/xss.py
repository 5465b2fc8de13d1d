"""One shared XSS corpus, and hostile cards that carry it in every field.

Payloads set ``window.__xss`` (so a browser test can see that one ran even where no dialog opens)
or call ``alert`` (a dialog). ``hostile_card`` puts payloads into every free-text field a card has:
title, module/topic labels and codes, tags, every section, follow-up questions and answers, link
titles, claim texts and checks; ``hostile_report`` puts them into a verify report's verdict texts,
reasons and conditions (stored with ``app.verification.store.store_report``).
"""

from __future__ import annotations

from typing import Any

from app.cards.schema import SECTION_KEYS, CardDoc, Claim, FollowUp, Label, LangText, Link

JS = "window.__xss=1"
PAYLOADS: tuple[str, ...] = (
    # raw HTML elements and event handlers
    f"<script>{JS}</script>",
    "<SCRIPT SRC=//127.0.0.1:9/x.js></SCRIPT>",
    f"<img src=x onerror={JS}>",
    f'<img src="x" onerror="{JS}">',
    "<svg onload=alert(1)>",
    f"<svg><script>{JS}</script></svg>",
    f"<iframe src=javascript:{JS}></iframe>",
    f'<iframe srcdoc="<script>parent.{JS}</script>"></iframe>',
    f"<math><mtext><script>{JS}</script></mtext></math>",
    f'<math href="javascript:{JS}"><mi>x</mi></math>',
    f"<details open ontoggle={JS}>x</details>",
    f'<a href="vbscript:msgbox(1)">vb</a> <a href="javascript:{JS}">js</a>',
    f'<form action="javascript:{JS}"><button formaction="javascript:{JS}">go</button></form>',
    f'<object data="javascript:{JS}"></object> <embed src="javascript:{JS}">',
    "<base href=javascript:/> <meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
    "<style>body{background:url(javascript:alert(1))}</style> <link rel=stylesheet href=//127.0.0.1:9/x.css>",
    f"<div>\n<script>{JS}</script>\n</div>",  # a raw HTML block
    f"<!-- <script>{JS}</script> --> <![CDATA[<script>{JS}</script>]]>",
    f"</textarea></style></title></script><script>{JS}</script>",
    # attribute breakouts
    f'" onmouseover="{JS}" x="',
    f"' onfocus='{JS}' autofocus='",
    f'"><img src=x onerror={JS}>',
    # Markdown links, images, autolinks, reference links
    f"[js](javascript:{JS})",
    f"[mixed case](JaVaScRiPt:{JS})",
    f"[tab](java&#x09;script:{JS})",
    f"[entity](&#106;avascript:{JS})",
    f"[colon](javascript&colon;{JS})",
    f"[spaced](  javascript:{JS})",
    f"[pointy](<javascript:{JS}>)",
    f"[split](java\tscript:{JS})",
    f"[backslash](javascript\\:{JS}) [percent](java%09script:{JS}) [nested](&amp;#106;avascript:{JS})",
    "[vb](vbscript:msgbox(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    f"![img](javascript:{JS})",
    "![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    f"<javascript:{JS}>",
    f"[ref link][r]\n\n[r]: javascript:{JS}",
    f"[ref entity][e]\n\n[e]: &#106;avascript:{JS}",
    f'[title](https://example.com "t\\" onmouseover={JS}")',
    # entities, code, tables
    "&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;",
    f"`a\n\n<script>{JS}</script>\n\nb`",  # a code span cannot cross a blank line
    f"```html\n<script>{JS}</script>\n```",
    f"| a | b |\n|---|---|\n| <script>{JS}</script> | [x](javascript:{JS}) |",
    # math
    f"$\\href{{javascript:{JS}}}{{x}}$",
    f"$$\n\\href{{javascript:{JS}}}{{click}}\n$$",
    f"$\\text{{<img src=x onerror={JS}>}}$",
    f"$\\text{{<script>{JS}</script>}}$",
    f'$\\color{{red" onclick="{JS}}}{{x}}$',
    "$\\unicode{x3c}script\\unicode{x3e}$ $\\style{color:red}{x}$",
    f'$\\class{{x" onclick="{JS}}}{{y}} \\cssId{{a}}{{b}}$ $\\require{{html}}\\data{{on=1}}{{x}}$',
    f"$\\url{{javascript:{JS}}}$ $\\bbox[background:url(javascript:{JS})]{{x}}$ $\\mmlToken{{mi}}[href=x]{{y}}$",
    "$x^2$ and $$\\frac{a}{b}$$ stay math",
    # template injection
    "{{ 7*7 }} {{ config }} {% raw %}{% endraw %} ${7*7} #{7*7}",
    # Obsidian and Anki specific
    f"[[x|<script>{JS}</script>]] ![[../../secret]] %%hidden%% ==hl== a::b #tag",
    f"{{{{c1::<img src=x onerror={JS}>}}}} [sound:evil.mp3] [anki:tts lang=en_US]hi[/anki:tts]",
)


def one_line(text: str) -> str:
    return " ".join(text.split())


def hostile_text(payloads: tuple[str, ...] = PAYLOADS) -> LangText:
    body = "\n\n".join(payloads)
    return LangText(zh=f"中文 {body}", en=f"English {body}")


def hostile_label(payloads: tuple[str, ...] = PAYLOADS) -> LangText:
    line = one_line(" ".join(payloads))
    return LangText(zh=f"标签 {line}", en=f"Label {line}")


def hostile_card(slug: str, payloads: tuple[str, ...] = PAYLOADS, *, link_to: str = "") -> CardDoc:
    """A card with ``payloads`` in every free-text field (a claim asserting a ZeRO quantity, so
    the card also gets the computed drills)."""
    text, label = hostile_text(payloads), hostile_label(payloads)
    line = one_line(" ".join(payloads))
    return CardDoc(
        slug=slug, title=label,
        module=Label(code=line[:40], zh=label.zh, en=label.en), topic=Label(code=line[-40:], zh=label.zh, en=label.en),
        difficulty="hard", tags=[one_line(p) for p in payloads],
        sections=dict.fromkeys(SECTION_KEYS, text),
        follow_ups=[FollowUp(id="fu-a", question=text, answer=text), FollowUp(id="fu-b", question=label)],
        links=[Link(title=label), *([Link(slug=link_to)] if link_to else [])],
        claims=[Claim(id="c-1", text=text, asserts="model_state_bytes(zero3) == 16*Psi/N", section="summary")],
        source=line,
    )


def hostile_report(docs: list[CardDoc], payloads: tuple[str, ...] = PAYLOADS) -> dict[str, Any]:
    """A verify report judging every claim of ``docs``, with payloads in every text it carries."""
    text = "\n\n".join(payloads)
    line = one_line(" ".join(payloads))
    return {
        "environment": {"torch": line, "backend": line, "device": line, "world_sizes": [2, 4], "host": line},
        "claims": [{"card": d.slug, "claim_id": c.id, "verdict": "conditional", "check": f"{c.id} {line}",
                    "judged": line, "text_zh": text, "text_en": text, "predicted": line, "measured": 16.0,
                    "condition": text, "reason_zh": text, "reason_en": text}
                   for d in docs for c in d.claims],
    }
