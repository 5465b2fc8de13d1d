"""Deadlines for slow clients: a request's head and body must arrive in time, or the connection closes.

uvicorn closes an idle keep-alive connection after ``--timeout-keep-alive`` seconds, but a connection
that never completes its request head (slowloris: open, then a header byte every few seconds) or its
body stays open for ever: each one holds a file descriptor and a little memory, and thousands of them
starve the server. :class:`TimedHttpToolsProtocol` is uvicorn's httptools protocol with two deadlines:

- the head: from the connection's opening (and from the end of each response on a keep-alive
  connection) until the request's headers are complete, at most :attr:`Settings.HEADER_TIMEOUT` seconds;
- the body: from the end of the headers until the whole body is read, at most
  :attr:`Settings.BODY_TIMEOUT` seconds (our request bodies are small JSON documents and forms).

Past a deadline the connection is closed (a request in progress sees ``http.disconnect``). Time the
application spends answering is not limited. ``proofdeck serve`` uses it; a bare uvicorn takes it with
``--http app.core.http_timeouts:TimedHttpToolsProtocol``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.core.config import Settings

PROTOCOL = "app.core.http_timeouts:TimedHttpToolsProtocol"


class TimedHttpToolsProtocol(HttpToolsProtocol):
    _limits: Settings | None = None  # read from the environment once per process

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cls = type(self)
        if cls._limits is None:
            cls._limits = Settings()
        self._header_timeout = cls._limits.HEADER_TIMEOUT
        self._body_timeout = cls._limits.BODY_TIMEOUT
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self._header_timeout)

    def on_headers_complete(self) -> None:
        self._arm(self._body_timeout)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm(self._header_timeout)  # the next request's head (uvicorn's keep-alive timer runs too)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
