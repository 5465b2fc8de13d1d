"""Geometry of the stats page's year heatmap (server-side SVG, like the other charts): one column per week,
Monday on top, five shades by the day's count relative to the busiest day."""

from __future__ import annotations

from typing import Any

CELL, GAP, LEFT, TOP = 13, 3, 30, 18
LEVELS = 4  # shades 1-4; 0 is "no review"


def level(count: int, busiest: int) -> int:
    if count <= 0 or busiest <= 0:
        return 0
    return min(LEVELS, 1 + (LEVELS * (count - 1)) // busiest)


def heatmap(days: list[dict[str, Any]]) -> dict[str, Any]:
    """``days``: ``history.daily`` output (oldest first, whole weeks or not)."""
    busiest = max((d["reviews"] for d in days), default=0)
    first = days[0]["date"] if days else None
    offset = first.weekday() if first else 0  # the first column starts on a Monday
    cells, months, last_month = [], [], None
    for i, d in enumerate(days):
        col, row = divmod(i + offset, 7)
        x, y = LEFT + col * (CELL + GAP), TOP + row * (CELL + GAP)
        cells.append({"x": x, "y": y, "date": d["date"].isoformat(), "reviews": d["reviews"],
                      "level": level(d["reviews"], busiest)})
        if (row == 0 or i == 0) and d["date"].month != last_month:  # a month is named on its first Monday
            months.append({"x": x, "label": d["date"].strftime("%b")})
            last_month = d["date"].month
    columns = (len(days) + offset + 6) // 7
    return {"width": LEFT + columns * (CELL + GAP), "height": TOP + 7 * (CELL + GAP), "cell": CELL,
            "cells": cells, "months": months, "busiest": busiest,
            "total": sum(d["reviews"] for d in days), "active_days": sum(1 for d in days if d["reviews"])}
