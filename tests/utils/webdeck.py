"""A small fixture deck for API and page tests: four live cards across two modules, with links."""

from __future__ import annotations

from app.cards.schema import CardDoc
from tests.utils.cards import make_card

M3 = {"code": "M3", "zh": "深度学习基础", "en": "Deep Learning Foundations"}
M4 = {"code": "M4", "zh": "Transformer 模型", "en": "Transformers"}
DIST = {"code": "dist", "zh": "分布式训练", "en": "Distributed Training"}
TP = {"code": "tp", "zh": "模型并行", "en": "Model Parallelism"}
ATTN = {"code": "attn", "zh": "注意力", "en": "Attention"}


def fixture_deck() -> list[CardDoc]:
    return [
        make_card(
            "zero-optimizer", module=M3, topic=DIST, difficulty="easy", tags=["zero", "memory"],
            title={"zh": "ZeRO 显存分片", "en": "ZeRO memory sharding"},
            sections={
                "summary": {"zh": "ZeRO 分片优化器状态、梯度与参数。", "en": "ZeRO shards optimizer states."},
                "derivation": {"zh": r"每卡显存 $2\Psi + 2\Psi + \frac{12\Psi}{N_d}$ 字节。",
                               "en": "Memory per rank:\n\n$$\n2\\Psi + 2\\Psi + \\frac{12\\Psi}{N_d}\n$$"},
            },
            follow_ups=[{"id": "why-optimizer", "question": {"zh": "为什么优化器状态最大？",
                                                             "en": "Why are optimizer states the largest?"},
                         "answer": {"en": r"Adam keeps $m$ and $v$ in fp32."}}],
            links=[{"slug": "ring-allreduce"}, {"title": {"en": "Tensor Parallelism"}},
                   {"title": {"zh": "不存在的卡片", "en": "A card not written yet"}}, {"slug": "missing-card"}],
            claims=[{"id": "zero3-comm", "text": {"zh": "ZeRO-3 通信量是 DDP 的 $1.5\\times$",
                                                  "en": "ZeRO-3 moves $1.5\\times$ the bytes of DDP"},
                     "asserts": "comm_volume(zero3) / comm_volume(ddp) == 3/2", "section": "derivation"}],
        ),
        make_card(
            "ring-allreduce", module=M3, topic=DIST, difficulty="medium", tags=["communication"],
            title={"zh": "环形 All-Reduce", "en": "Ring all-reduce"},
            sections={"summary": {"zh": "每个 rank 发送 $2\\frac{N-1}{N}$ 倍梯度。",
                                  "en": "Each rank sends $2\\frac{N-1}{N}$ times the gradients."}},
            links=[{"title": {"zh": "ZeRO 显存分片"}}, {"slug": "zero-optimizer"}],
        ),
        make_card(
            "tensor-parallel", module=M3, topic=TP, difficulty="hard", tags=["parallelism", "100%_sure"],
            title={"zh": "张量并行", "en": "Tensor Parallelism"},
            sections={"summary": {"zh": "按列或按行切分矩阵乘法。", "en": "Split matrix multiplies by column or row."}},
        ),
        make_card(
            "attention-flops", module=M4, topic=ATTN, difficulty="medium", tags=["flops"],
            title={"zh": "注意力的计算量", "en": "Attention FLOPs"},
            sections={"summary": {"zh": "序列长度 $n$ 的注意力是 $O(n^2)$。",
                                  "en": "Attention costs 50% more when n grows by a factor 1.22, since $O(n^2)$."}},
        ),
    ]
