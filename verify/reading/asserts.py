"""Parse a claim's ``asserts:`` expression with sympy, over the vocabulary only.

    python -c "from verify.reading.asserts import parse; print(parse('model_state_bytes(zero3) == 16*Psi/N'))"

Syntax: sympy/Python arithmetic over the vocabulary's quantities (``model_state_bytes(zero3)``, keyword
arguments fix symbols for that quantity: ``bubble_fraction(gpipe, p=4, m=8)``), its symbols (``Psi``,
``N`` …), its units (``GB``, ``ms`` …), and the helpers ``reduction(a, b)`` (model-state bytes of stage
a over stage b) and ``approx(x, 31.4)`` (x rounds to the literal: within half a unit of its last digit).
Relations: ``==``, ``<``, ``<=``, ``>``, ``>=``; several joined with ``&``. Any other name is an error:
nothing is evaluated beyond sympy's constructors and the vocabulary.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from io import StringIO
from typing import Any

import sympy as sp
from sympy.parsing.sympy_parser import auto_number, parse_expr, rationalize

from verify.known.vocabulary import ARG_VALUES, HELPERS, QUANTITIES, SYMBOLS, UNITS


class AssertError(ValueError):
    """An ``asserts`` expression that cannot be judged: the message says what and how to fix it."""


@dataclass(frozen=True)
class Atom:
    """One use of a quantity in an assertion: its name, arguments and fixed symbols."""

    quantity: str
    args: tuple[str, ...]
    fixed: tuple[tuple[str, Any], ...] = ()  # (symbol name, value) from keyword arguments

    def label(self) -> str:
        kw = [f"{k}={sp.sstr(v)}" for k, v in self.fixed]
        return f"{self.quantity}({', '.join([*self.args, *kw])})"


@dataclass(frozen=True)
class Relation:
    op: str  # "==", "<", "<=", ">", ">=", "≈"
    lhs: sp.Expr
    rhs: sp.Expr
    tol: sp.Rational = sp.Rational(0)  # ≈: half a unit of the literal's last digit


@dataclass
class Parsed:
    source: str
    relations: list[Relation]
    atoms: dict[sp.Symbol, Atom] = field(default_factory=dict)

    def literal_values(self) -> list[sp.Expr]:
        """Every sub-expression of the assertion that names no quantity: what the quoted text may say."""
        out: list[sp.Expr] = []
        for rel in self.relations:
            for side in (rel.lhs, rel.rhs):
                for node in sp.preorder_traversal(side):
                    if isinstance(node, sp.Expr) and not (node.free_symbols & set(self.atoms)):
                        out.append(node)
                        out.append(node.doit())
        for atom in self.atoms.values():
            out += [sp.sympify(v) for _, v in atom.fixed]
        return out


_OPS = {sp.Eq: "==", sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">",
        sp.GreaterThan: ">="}
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def names(source: str) -> list[tuple[str, bool]]:
    """(identifier, followed by '=') for every name token; errors on anything but plain expressions."""
    try:
        toks = list(tokenize.generate_tokens(StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as e:
        raise AssertError(f"cannot tokenize: {e} (write a Python/sympy expression)") from e
    out = []
    for i, tok in enumerate(toks):
        if tok.type == tokenize.OP and tok.string in (".", ":", "[", "]", "{", "}", "lambda", ";", "@"):
            raise AssertError(f"{tok.string!r} is not allowed (quantities, symbols, numbers, + - * / ** and "
                              f"relations only)")
        if tok.type == tokenize.NAME:
            nxt = toks[i + 1].string if i + 1 < len(toks) else ""
            out.append((tok.string, nxt == "="))
    return out


def parse(source: str) -> Parsed:
    """Parse ``source`` into relations over quantity atoms; raises :class:`AssertError`. Cached by the text (the
    result names quantities, it does not hold them; ``verify.judge.core.reset_caches`` forgets it): never mutate it."""
    if not isinstance(source, str):
        raise AssertError("asserts is empty (write e.g. 'model_state_bytes(zero3) == 16*Psi/N')")
    return _parse(source)


@lru_cache(maxsize=4096)
def _parse(source: str) -> Parsed:
    if not source.strip():
        raise AssertError("asserts is empty (write e.g. 'model_state_bytes(zero3) == 16*Psi/N')")
    args = {a for values in ARG_VALUES.values() for a in values}
    for name, is_kw in names(source):
        if is_kw and name in SYMBOLS:
            continue
        if name not in QUANTITIES and name not in SYMBOLS and name not in UNITS and name not in args \
                and name not in HELPERS:
            raise AssertError(f"unknown name {name!r} (quantities: {', '.join(sorted(QUANTITIES))}; symbols: "
                              f"{', '.join(SYMBOLS)}; see the vocabulary in verify/README.md)")
    atoms: dict[sp.Symbol, Atom] = {}
    approx: list[Relation] = []

    def make(qname: str) -> Any:
        q = QUANTITIES[qname]

        def call(*a: Any, **kw: Any) -> sp.Symbol:
            if len(a) != len(q.params) or not all(isinstance(x, str) for x in a):
                raise AssertError(f"{qname} takes ({', '.join(q.params) or 'no arguments'}), got {a!r}")
            for kind, x in zip(q.params, a, strict=True):
                if x not in ARG_VALUES[kind]:
                    raise AssertError(f"{qname}: {x!r} is not a {kind} ({', '.join(ARG_VALUES[kind])})")
            atom = Atom(qname, tuple(a), tuple(sorted((key, sp.nsimplify(val)) for key, val in kw.items())))
            sym = sp.Symbol(atom.label())
            atoms[sym] = atom
            return sym
        return call

    def reduction(a: str, b_: str) -> sp.Expr:
        ms = make("model_state_bytes")
        return ms(a) / ms(b_)

    def approx_(x: sp.Expr, lit: sp.Expr) -> sp.Symbol:
        lit = sp.nsimplify(lit)
        if not lit.is_Rational:
            raise AssertError(f"approx(x, LITERAL): the second argument must be a number, got {lit}")
        digits = next((d for d in range(13) if (lit * 10**d).is_integer), 12)
        marker = sp.Symbol(f"__approx{len(approx)}")
        approx.append(Relation("≈", x, lit, sp.Rational(1, 2 * 10**digits)))
        return marker

    local: dict[str, Any] = {**{name: make(name) for name in QUANTITIES}, **SYMBOLS, **UNITS,
                             **{a: a for a in args}, "reduction": reduction, "approx": approx_,
                             "sqrt": sp.sqrt, "ceiling": sp.ceiling, "floor": sp.floor, "log": sp.log, "exp": sp.exp,
                             "diff": lambda e, x: sp.Derivative(e, x),
                             "Min": sp.Min, "Max": sp.Max}
    glob: dict[str, Any] = {n: getattr(sp, n) for n in ("Add", "Mul", "Pow", "Integer", "Float", "Rational",
                                                        "Symbol", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And",
                                                        "Not", "Tuple")}
    glob["__builtins__"] = {}
    try:
        expr = parse_expr(source, local_dict=local, global_dict=glob, transformations=(auto_number, rationalize),
                          evaluate=False)
    except AssertError:
        raise
    except Exception as e:  # SyntaxError, TypeError from sympy: the author's expression is malformed
        raise AssertError(f"cannot parse: {type(e).__name__}: {e} (write e.g. 'reduction(ddp, zero1) == 4')") from e
    relations = []
    for part in (expr.args if isinstance(expr, sp.And) else (expr,)):
        if isinstance(part, sp.Symbol) and part.name.startswith("__approx"):
            relations.append(approx[int(part.name[len("__approx"):])])
        elif type(part) in _OPS:
            relations.append(Relation(_OPS[type(part)], part.lhs, part.rhs))
        else:
            raise AssertError(f"{sp.sstr(part)!r} is not a relation (use ==, <, <=, >, >= or approx(x, value); "
                              f"join several with &)")
    if not atoms:
        raise AssertError("names no quantity (an assertion compares a quantity of the vocabulary with a value)")
    return Parsed(source, relations, atoms)
