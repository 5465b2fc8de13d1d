"""Every router, joined in one place."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.routes import admin, health, login, review, users
from app.pages import quiz

api_router = APIRouter()
api_router.include_router(health.router)
api_router.include_router(review.router)
api_router.include_router(users.router)
api_router.include_router(admin.router)
api_router.include_router(login.router)
api_router.include_router(quiz.router)
