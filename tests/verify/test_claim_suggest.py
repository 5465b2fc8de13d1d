"""``proofdeck claims suggest``: proposed asserts for imported bank cards (the seed, and raw cards of our own)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from verify.reading.asserts import parse
from verify.reading.suggest import propose_sentence, quote, suggest
from verify.reading.textnums import statements

SEED = Path(__file__).resolve().parents[1] / "cards" / "data" / "000_df0768db638cc9c5.txt"


def imported(tmp_path: Path, raw: str, name: str) -> Path:
    src = tmp_path / f"{name}.txt"
    src.write_text(raw, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["import", str(src), "--out", str(out), "--slug", name])
    assert result.exit_code == 0, result.output
    return out / f"{name}.md"


def raw_card(summary_zh: str, summary: str, derivation_en: str) -> str:
    """A bank card in the raw export format: the seed's layout with our own summary and derivation."""
    lines = SEED.read_text(encoding="utf-8").split("\n")
    lines[3], lines[4] = summary_zh, summary
    start = next(i for i, x in enumerate(lines) if x.startswith("Memory Breakdown"))
    end = next(i for i, x in enumerate(lines) if x.startswith("四、"))
    return "\n".join(lines[:start] + [derivation_en] + lines[end:])


def test_seed_import_gets_memory_and_communication_of_all_three_stages(tmp_path: Path) -> None:
    card = imported(tmp_path, SEED.read_text(encoding="utf-8"), "seed")
    props, unchecked = suggest(card)
    got = {p.asserts for p in props}
    for want in ("model_state_bytes(zero1) == 4*Psi+12*Psi/N", "model_state_bytes(zero2) == 2*Psi+14*Psi/N",
                 "model_state_bytes(zero3) == 16*Psi/N", "comm_volume(zero1) == comm_volume(ddp)",
                 "comm_volume(zero2) == 2*Psi", "comm_volume(zero3) / comm_volume(ddp) == 3/2"):
        assert want in got, (want, sorted(got))
    assert all(parse(p.asserts).atoms for p in props) and unchecked
    assert {p.section for p in props} == {"insights", "derivation", "tradeoffs"}  # where each quote stands
    result = CliRunner().invoke(cli, ["claims", "suggest", str(card), "--write"])
    assert result.exit_code == 0, result.output
    from verify.reading.claims import read_cards

    written = [c for c in read_cards(card.parent) if c.claim_id.startswith("proposed-")]
    assert {c.asserts for c in written} == got  # each quote states what its assertion states: all kept
    quotes = {c.asserts: c.text_en or c.text_zh for c in written}
    assert quotes["model_state_bytes(zero3) == 16*Psi/N"] == r"Memory drops to $\frac{16\Psi}{N}$ bytes."
    assert quotes["model_state_bytes(ddp) == 16*Psi"].startswith(r"Total baseline memory per GPU: $2\Psi + ")
    assert "256GB" not in quotes["model_state_bytes(ddp) == 16*Psi"]  # the example's number is another statement


def test_raw_ring_and_pipeline_cards(tmp_path: Path) -> None:
    ring = imported(tmp_path, raw_card(
        "环形 all-reduce 带宽最优。", "Ring all-reduce is bandwidth-optimal.",
        "In a ring all-reduce over $N$ ranks each rank sends $2(N-1)M/N$ for a tensor of $M$ elements."), "ring")
    ring_props = [p for p in suggest(ring)[0] if "ring all-reduce over" in p.sentence]
    assert [p.asserts for p in ring_props] == ["ring_send(all_reduce) == 2*M*(N-1)/N"]
    pipe = imported(tmp_path, raw_card(
        "流水线在填充时空闲。", "Pipelines idle while they fill.",
        "With $p$ stages and $m$ micro-batches the pipeline bubble is $(p-1)/(m+p-1)$ of a step."), "pipe")
    pipe_props = [p for p in suggest(pipe)[0] if "pipeline bubble" in p.sentence]
    assert [p.asserts for p in pipe_props] == ["bubble_fraction(onef1b) == (p-1)/(m+p-1)"]


def test_raw_cards_on_other_topics_match_the_vocabulary_by_formula(tmp_path: Path) -> None:
    # no word rule knows tensor parallelism or checkpointing: the formulas are matched against the ledger
    tp = imported(tmp_path, raw_card(
        "张量并行把矩阵乘切到 t 个 rank。", "Tensor parallelism splits the matmuls over t ranks.",
        r"Each rank stores $12h^2/t$ of a layer's weights, and a ring sends $2(t-1)/t\cdot bsh$ per all-reduce."),
        "tp")
    got = {p.asserts for p in suggest(tp)[0] if "Each rank stores" in p.sentence}
    assert "tp_weights_per_rank() == 12*h**2/t" in got, got
    ckpt = imported(tmp_path, raw_card(
        "激活检查点用重算换显存。", "Activation checkpointing trades compute for memory.",
        r"With $k$ segments over $L$ layers the peak is $(k-1) + L/k$ layer activations and the extra compute "
        r"is $(1-1/k)/3$; the notation $M(k)$ and $XA$ proposes nothing."), "ckpt")
    props, unchecked = suggest(ckpt)
    got = {p.asserts for p in props if "segments over" in p.sentence}
    assert got == {"checkpoint_peak_units() == L/k+k-1", "recompute_overhead() == 1/3-1/(3*k)"}, got
    assert all(parse(p.asserts).atoms for p in props)
    assert not any("XA" in u or "M(k)" in u for u in unchecked)


def test_a_quote_stops_at_the_clauses_of_the_statements_around_it() -> None:
    sentence = r"With ZeRO-2 each rank keeps $2\Psi + \frac{14\Psi}{N}$ bytes of memory, $16\Psi$ in all."
    first, second = (st for st in statements(sentence) if st.value is not None)
    assert quote(sentence, first) == r"With ZeRO-2 each rank keeps $2\Psi + \frac{14\Psi}{N}$ bytes of memory"
    assert quote(sentence, second) == r"$16\Psi$ in all."
    alone = r"Memory drops to $\frac{16\Psi}{N}$ bytes (sharded over $N$ ranks, all of it)."
    assert quote(alone, statements(alone)[0]) == alone  # no other number: the whole sentence
    # a comma inside TeX is no clause boundary: the quote keeps the formula whole
    inside = r"ZeRO-3 sends $3\Psi$ per step, then $f(2\Psi, N) = 2\Psi$ again."
    sts = statements(inside)
    assert quote(inside, sts[0]) == r"ZeRO-3 sends $3\Psi$ per step"
    assert quote(inside, sts[-1]).startswith(r"then $f(2\Psi, N) = 2\Psi$")


def test_a_product_of_numbers_is_no_reduction() -> None:
    sentence = "ZeRO-3 memory per rank: 2Ψ/8 = 2 × 70×10^9 / 8 = 17.5 GB, a 4× reduction."
    got = {p.asserts for p in propose_sentence("en", sentence)}
    assert got == {"reduction(ddp, zero3) == 4"}, got  # not "== 2" (2 × 70…) nor "== 70" (70×10^9)
    assert not propose_sentence("en", "ZeRO++ cuts ZeRO-3's cross-node communication by 4×.")  # no such stage
