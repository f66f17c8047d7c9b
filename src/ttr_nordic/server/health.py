"""``/healthz`` and ``/readyz``: whether a server process is alive, and whether it can serve games.

* ``GET /healthz`` answers ``{"status": "ok"}`` while the process serves HTTP at all (a
  supervisor restarts a process that stops answering it).
* ``GET /readyz`` answers 200 ``{"status": "ready", "checks": {...}}`` when the database answers,
  its schema is at this version's newest migration, and the AI workers are up (or start at the
  first AI decision, or run on Ray); else 503 ``{"status": "not ready", ...}`` with the failing
  check's reason. A proxy sends players only to ready processes (``health_uri /readyz`` in
  ``deploy/Caddyfile``).

>>> from fastapi import FastAPI
>>> app = FastAPI()
>>> install(app)
>>> sorted(route.path for route in app.routes if route.path.endswith("z"))
['/healthz', '/readyz']
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from .db import current_revision, database_error_reason, head_revision, revision_gap

#: How long the database may take to answer a readiness check.
DATABASE_TIMEOUT_S = 5.0


def _database_check(service: Any, head: str) -> dict[str, Any]:
    try:
        revision = current_revision(service.engine)
    except Exception as exc:
        return {"ok": False, "reason": f"the database does not answer: {database_error_reason(exc)}"}
    gap = revision_gap(revision, head)
    if gap is not None:
        return {"ok": False, "reason": gap}
    return {"ok": True, "migration": revision}


def ai_check(service: Any) -> dict[str, Any]:
    """Whether the service's AI workers can take decisions."""
    pool = service.ai
    if pool.ray_address is not None:
        return {"ok": True, "mode": "ray"}
    alive = pool.workers_alive()
    if alive is None:
        return {"ok": True, "mode": "processes", "workers": 0, "note": "they start at the first AI decision"}
    if alive == 0:
        return {"ok": False, "mode": "processes", "workers": 0, "reason": "no AI worker process is alive"}
    return {"ok": True, "mode": "processes", "workers": alive}


def install(app: FastAPI) -> None:
    """Add ``/healthz`` and ``/readyz`` to ``app`` (its ``state.service`` is the GameService)."""
    head = head_revision()

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        service = getattr(request.app.state, "service", None)
        if service is None:
            return JSONResponse({"status": "not ready", "checks": {}, "reason": "starting"}, status_code=503)
        try:
            database = await asyncio.wait_for(asyncio.to_thread(_database_check, service, head), DATABASE_TIMEOUT_S)
        except TimeoutError:
            database = {"ok": False, "reason": f"the database did not answer within {DATABASE_TIMEOUT_S:g} s"}
        checks = {"database": database, "ai": ai_check(service)}
        ready = all(check["ok"] for check in checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "not ready", "checks": checks}, status_code=200 if ready else 503
        )
