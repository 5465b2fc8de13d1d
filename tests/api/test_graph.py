"""GET /api/graph: cards as nodes, resolved links as edges, the rest dangling."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_graph_nodes_edges_and_dangling_links(read_client: TestClient) -> None:
    r = read_client.get("/api/graph")
    assert r.status_code == 200
    graph = r.json()
    assert [n["slug"] for n in graph["nodes"]] == ["ring-allreduce", "zero-optimizer", "tensor-parallel",
                                                    "attention-flops"]
    assert graph["nodes"][1] == {
        "slug": "zero-optimizer", "title": {"zh": "ZeRO 显存分片", "en": "ZeRO memory sharding"},
        "module": {"code": "M3", "zh": "深度学习基础", "en": "Deep Learning Foundations"},
        "topic": {"code": "dist", "zh": "分布式训练", "en": "Distributed Training"},
    }
    # ring-allreduce links to zero-optimizer twice (by zh title and by slug): one edge
    assert graph["edges"] == [
        {"source": "ring-allreduce", "target": "zero-optimizer"},
        {"source": "zero-optimizer", "target": "ring-allreduce"},
        {"source": "zero-optimizer", "target": "tensor-parallel"},
    ]
    assert graph["dangling"] == [
        {"source": "zero-optimizer", "slug": "", "title": {"zh": "不存在的卡片", "en": "A card not written yet"}},
        {"source": "zero-optimizer", "slug": "missing-card", "title": {"zh": "", "en": ""}},
    ]


def test_graph_json_has_exactly_the_documented_shape(read_client: TestClient) -> None:
    """/api/graph writes plain dicts straight as JSON: they must be what GraphPublic documents, no field more."""
    from app.schemas.cards import GraphPublic

    graph = read_client.get("/api/graph").json()
    assert GraphPublic.model_validate(graph).model_dump() == graph
    schema = read_client.get("/openapi.json").json()
    ok = schema["paths"]["/api/graph"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/GraphPublic"}
