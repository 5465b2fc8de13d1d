"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.routes import cards, graph, health

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(cards.router)
api_router.include_router(graph.router)
