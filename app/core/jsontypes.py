"""Request-body types that follow JSON's own rules, strictly.

Strict pydantic models refuse ``false`` or ``"20"`` for a number (issue: lenient types stored
``{"new_per_day": false}`` as 0). But JSON Schema calls ``244.0`` an integer (a number whose fraction
is zero), and clients that write every number as a float send it: ``JsonInt`` takes such a float as
its integer and still refuses booleans, strings and ``1.5``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator


def _integral_float_to_int(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


JsonInt = Annotated[int, BeforeValidator(_integral_float_to_int)]
