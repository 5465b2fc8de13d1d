"""One settings object, read from the environment (prefix ``PROOFDECK_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PROOFDECK_", extra="ignore")

    # SQLite file by default; any SQLAlchemy URL (postgresql+psycopg://...) works with the same code.
    DATABASE_URL: str = f"sqlite:///{PROJECT_ROOT / 'data' / 'proofdeck.db'}"
    # Folder of card source files (Markdown + YAML front matter), synced into the database.
    CARDS_DIR: Path = PROJECT_ROOT / "cards"
    # the bundled deck's latest sweep, stored by `proofdeck sync` while the database has no run of its own
    BUNDLED_REPORT: Path = PROJECT_ROOT / "verify" / "results" / "latest.json"
    # Sync cards/ into the database when the server starts.
    SYNC_ON_STARTUP: bool = True
    # Load the statement judges (sympy, pint: ~2 s) at start-up, not on the first card page that counts statements.
    WARM_JUDGES: bool = True
    # Public base URL, used in the login link printed at first start.
    BASE_URL: str = "http://127.0.0.1:8000"
    # Where `proofdeck serve` records the address it serves, for links printed by the CLI (app/core/served.py).
    SERVED_FILE: Path = PROJECT_ROOT / "data" / "served.json"
    ENVIRONMENT: str = "development"
    # SQLite durability (README "Durability"): FULL syncs the log at every commit; NORMAL at checkpoints only.
    SQLITE_SYNCHRONOUS: Literal["FULL", "NORMAL"] = "FULL"
    # Slow clients (app/core/http_timeouts.py): seconds for a request's head, then for its body.
    HEADER_TIMEOUT: float = 10.0
    BODY_TIMEOUT: float = 30.0
    # Web sessions end after this many days without a request, and this many days after the login at most.
    SESSION_IDLE_DAYS: float = Field(default=30.0, gt=0)
    SESSION_MAX_DAYS: float = Field(default=90.0, gt=0)
    # A login link (`proofdeck user link`, first start) signs in once, within this many minutes (app/auth/links.py).
    LOGIN_LINK_MINUTES: float = Field(default=15.0, gt=0)
    # Addresses (comma-separated IPs or CIDRs, or "*") of reverse proxies whose X-Forwarded-For and
    # X-Forwarded-Proto are believed; empty (the default): no proxy header is believed.
    TRUSTED_PROXIES: str = ""
    # Seconds between the plain progress lines a long command prints when its output is not a terminal
    # (app/core/progress.py); 0: a line per item.
    PROGRESS_INTERVAL: float = Field(default=2.0, ge=0)


settings = Settings()
