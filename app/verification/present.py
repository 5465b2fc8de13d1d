"""How verdicts read to people: bilingual labels and compact predicted / measured values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# verdict -> (zh, en, sign)
VERDICT_LABELS = {"confirmed": ("已证实", "confirmed", "✓"), "refuted": ("被推翻", "refuted", "✗"),
                  "conditional": ("有条件成立", "conditional", "≈"), "unverifiable": ("无法验证", "unverifiable", "?"),
                  # the quoted text states a number its asserts does not / the quoted text left the card
                  "mismatch": ("原文与断言不符", "text and assertion disagree", "≠"),
                  "stale": ("原文已改动", "quoted text no longer in the card", "⌛"),
                  "error": ("检查出错", "check failed", "!"), "missing-check": ("缺少检查", "no check yet", "?")}


# how a verdict's numbers were obtained -> zh label
METHOD_LABELS = {"measured": "实测", "simulated": "模拟", "calculated": "计算（非实测）",
                 "construction": "由代码构造决定（非独立实测）", "none": "无数值"}


def verdict_kind(v: Mapping[str, Any]) -> str:
    kind = str(v.get("verdict", ""))
    return kind if kind in VERDICT_LABELS else "unverifiable"


def format_value(value: Any) -> str:
    """A predicted / measured value for people: ``1.5``, ``ratio 1.5, bytes 3.5e+09``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {format_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value)
    return "" if value is None else str(value)


def verdict_view(row: Any) -> dict[str, Any]:
    """A stored verdict (``ClaimVerdict``) as the card page shows it."""
    kind = verdict_kind({"verdict": row.verdict})
    zh, en, sign = VERDICT_LABELS[kind]
    return {"kind": kind, "zh": zh, "en": en, "sign": sign, "judged": row.judged, "method": row.method,
            "method_zh": METHOD_LABELS.get(row.method, ""),
            "predicted": format_value(row.predicted), "measured": format_value(row.measured),
            "condition": row.condition, "reason_zh": row.reason_zh, "reason_en": row.reason_en}
