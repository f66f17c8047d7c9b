"""Routes of reminders: an account's reminder settings, its browsers' push subscriptions, the
server's VAPID key, and the service worker (served at the site's root so its scope covers the
game pages).

``GET /api/account/reminders`` · ``PUT /api/account/reminders`` (``{"email", "email_on", "language",
"push_on", "interval_s"}``) · ``POST /api/account/push`` (a browser's ``PushSubscription`` as
JSON) · ``DELETE /api/account/push`` (``{"endpoint"}``) · ``GET /api/push/key`` · ``GET /sw.js``.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from .account_routes import Signed, current_user, in_db
from .accounts import AccountError
from .notify import Notifier, SettingsError, parse_settings
from .serialize import JSON

router = APIRouter()


def notifier_of(request: Request) -> Notifier:
    notifier: Notifier = request.app.state.notifier
    return notifier


@router.get("/api/account/reminders")
async def get_reminders(request: Request) -> JSON:
    found = await current_user(request)
    if found is None:
        raise AccountError(401, "SIGN_IN_REQUIRED", "sign in first")
    user = found[0]
    settings = await in_db(request, notifier_of(request).settings_of, user.id)
    return {"reminders": settings.public(), "email_enabled": notifier_of(request).smtp is not None}


@router.put("/api/account/reminders")
async def put_reminders(request: Request, signed: Signed) -> JSON:
    body = await _json(request)
    try:
        settings = parse_settings(body)
    except SettingsError as exc:
        raise AccountError(422, "BAD_SETTINGS", str(exc)) from None
    await in_db(request, notifier_of(request).save_settings, signed[0].id, settings)
    return {"reminders": settings.public()}


@router.post("/api/account/push", status_code=201)
async def add_push(request: Request, signed: Signed) -> JSON:
    body = await _json(request)
    endpoint = body.get("endpoint")
    keys = body.get("keys")
    if not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")) or len(endpoint) > 1000:
        raise AccountError(
            422, "BAD_SUBSCRIPTION", "a push subscription needs an http(s) endpoint (at most 1000 characters)"
        )
    if not isinstance(keys, dict) or not all(
        isinstance(keys.get(k), str) and 0 < len(keys[k]) <= 200 for k in ("p256dh", "auth")
    ):
        raise AccountError(422, "BAD_SUBSCRIPTION", "a push subscription needs its keys p256dh and auth")
    try:
        await in_db(request, notifier_of(request).subscribe, signed[0].id, endpoint, keys["p256dh"], keys["auth"])
    except SettingsError as exc:
        raise AccountError(422, "TOO_MANY_SUBSCRIPTIONS", str(exc)) from None
    return {"subscribed": True}


@router.delete("/api/account/push")
async def remove_push(request: Request, signed: Signed) -> JSON:
    body = await _json(request)
    endpoint = body.get("endpoint")
    if not isinstance(endpoint, str):
        raise AccountError(422, "BAD_SUBSCRIPTION", "give the subscription's endpoint")
    await in_db(request, notifier_of(request).unsubscribe, signed[0].id, endpoint)
    return {"subscribed": False}


@router.get("/api/push/key")
async def push_key(request: Request) -> JSON:
    return {"key": await in_db(request, notifier_of(request).vapid_public_key)}


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> Response:
    script = files("ttr_nordic").joinpath("web", "static", "sw.js").read_text()
    # Served from the root so the worker's scope covers /play/…; never cached stale.
    return Response(script, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise AccountError(400, "BAD_JSON", "the body must be JSON") from None
    if not isinstance(body, dict):
        raise AccountError(422, "BAD_JSON", "the body must be a JSON object")
    return body


def install(app: FastAPI) -> None:
    app.include_router(router)


__all__ = ["JSONResponse", "install", "router"]
