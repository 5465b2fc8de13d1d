"""A small bilingual card file written in a test: a summary, insights, a derivation and pitfalls, zh then en.

The judges' tests (tests/verify/test_statement_judges.py, test_definitions_judge.py) plant a mistake in such a
card and judge it as ``proofdeck sync`` would.
"""

from __future__ import annotations


def _bullets(items: tuple[str, ...]) -> str:
    return "\n".join(f"- {x}" for x in items)


def card(summary: tuple[str, str], insights: tuple[str, ...] = (), derivation: tuple[str, str] | None = None,
         slug: str = "t", pitfalls: tuple[str, ...] = ()) -> str:
    """A card file with a summary (zh, en), insights and pitfalls as bullets (zh1, en1, zh2, en2, …) and a
    derivation (zh, en)."""
    parts = [f"---\nslug: {slug}\n---\n", f"# Summary\n\n## zh\n\n{summary[0]}\n\n## en\n\n{summary[1]}\n"]
    if insights:
        parts.append(f"# Key insights\n\n## zh\n\n{_bullets(insights[0::2])}\n\n## en\n\n{_bullets(insights[1::2])}\n")
    if derivation:
        parts.append(f"# Derivation\n\n## zh\n\n{derivation[0]}\n\n## en\n\n{derivation[1]}\n")
    if pitfalls:
        parts.append(f"# Pitfalls\n\n## zh\n\n{_bullets(pitfalls[0::2])}\n\n## en\n\n{_bullets(pitfalls[1::2])}\n")
    return "\n".join(parts)
