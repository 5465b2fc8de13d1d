"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.routes import exports, health, verification

api_router = APIRouter()
api_router.include_router(health.router)
# exports before cards: its GET /api/cards/{slug}.md must match before the cards router's /api/cards/{slug}.
api_router.include_router(exports.router)
api_router.include_router(verification.router)
