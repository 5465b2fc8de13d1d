"""User management (admin only): list, create (prints a token once), new token, delete; ``/api/users/me``."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session, col, select

from app.api.deps import AdminUser, CurrentUser, SessionDep
from app.api.errors import IdPath, errors
from app.auth.users import MIN_PASSWORD, USERNAME_RE, UserError, create_user, issue_token
from app.core.writes import run_write
from app.models.clock import user_changed
from app.models.user import User, UserPublic

router = APIRouter(prefix="/api/users", tags=["users"], responses=errors(401, 422))


class UsersPublic(BaseModel):
    data: list[UserPublic]
    count: int


class UserCreated(BaseModel):
    """A new account and its API token, shown this once."""

    user: UserPublic
    token: str


class TokenCreated(BaseModel):
    user_id: int
    token: str


class UserCreate(BaseModel):
    """Pattern and minimum length are documented here, checked by ``create_user`` (its messages say how to fix).
    Strict: ``"is_admin": 0`` or ``"yes"`` is refused, only ``true`` / ``false`` make an admin or not."""

    model_config = ConfigDict(strict=True)

    username: str = Field(max_length=64, json_schema_extra={"pattern": USERNAME_RE.pattern})
    is_admin: bool = False
    password: str | None = Field(default=None, max_length=200, json_schema_extra={"minLength": MIN_PASSWORD})


def _public(u: User) -> UserPublic:
    assert u.id is not None
    return UserPublic(id=u.id, username=u.username, is_admin=u.is_admin, created_at=u.created_at)


@router.get("/me")
def me(user: CurrentUser) -> UserPublic:
    return _public(user)


@router.get("", responses=errors(403))
def list_users(_admin: AdminUser, session: SessionDep) -> UsersPublic:
    users = session.exec(select(User).order_by(col(User.id))).all()
    return UsersPublic(data=[_public(u) for u in users], count=len(users))


@router.post("", status_code=201, responses=errors(400, 403, 409))
def add_user(body: UserCreate, _admin: AdminUser, request: Request, session: SessionDep) -> UserCreated:
    """Create a user; the response holds their API token, shown this once (only its hash is stored)."""

    def work(s: Session) -> UserCreated:
        user, token = create_user(s, body.username, is_admin=body.is_admin, password=body.password)
        return UserCreated(user=_public(user), token=token)

    try:
        return run_write(request.app.state.engine, work, release=session)
    except UserError as exc:
        raise HTTPException(409 if "already exists" in str(exc) else 422, detail=str(exc)) from None


@router.post("/{user_id}/tokens", status_code=201, responses=errors(403, 404))
def new_token(user_id: IdPath, _admin: AdminUser, request: Request, session: SessionDep) -> TokenCreated:
    def work(s: Session) -> TokenCreated:
        user = s.get(User, user_id)
        if user is None:
            raise HTTPException(404, detail=f"user {user_id} not found")
        return TokenCreated(user_id=user_id, token=issue_token(s, user, kind="api", label="issued by an admin"))

    return run_write(request.app.state.engine, work, release=session)


@router.delete("/{user_id}", status_code=204, responses=errors(403, 404, 409))
def delete_user(user_id: IdPath, admin: AdminUser, request: Request, session: SessionDep) -> None:
    if user_id == admin.id:
        raise HTTPException(409, detail="you cannot delete your own account; ask another admin")

    def work(s: Session) -> None:
        user = s.get(User, user_id)
        if user is None:
            raise HTTPException(404, detail=f"user {user_id} not found")
        from app.models.review import DrillShowing, ItemState, ReviewLog
        from app.models.user import ApiToken, LoginLink, UserSettings

        for table in (ApiToken, LoginLink, UserSettings, ItemState, ReviewLog, DrillShowing):
            for row in s.exec(select(table).where(table.user_id == user_id)):
                s.delete(row)
        s.flush()
        s.delete(user)
        user_changed(s, user_id)  # its in-memory review queues go (an id can be reused)

    run_write(request.app.state.engine, work, release=session)
