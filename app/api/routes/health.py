"""Liveness: the process answers and the database is reachable."""

from __future__ import annotations

import os
from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel
from sqlalchemy import text

from app.api.deps import SessionDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: Literal["ok"]
    worker: int  # the answering process (several workers: tells them apart)


@router.get("/healthz")
def healthz(session: SessionDep) -> Health:
    session.exec(text("SELECT 1"))  # type: ignore[call-overload]
    return Health(status="ok", worker=os.getpid())
