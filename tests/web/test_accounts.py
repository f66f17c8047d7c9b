"""Accounts in the browser (real Chromium, several contexts = several people or devices):
password sign-up and sign-in, a passkey through Chromium's virtual authenticator, a guest's
games carried into the account and opened from a second device, and a rated game between two
accounts played to the end, with the rating change in the final dialog and on the profile."""

from __future__ import annotations

import json
import random
import re
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from .conftest import RequestLog, shot
from .driver import wait_state
from .test_page_axe import serious_violations

PASSWORD = "trains to Murmansk"
SIZES = [(1440, 900), (1366, 768), (390, 844)]


def unique(prefix: str) -> str:
    """A user name no other test took (the server's database lives for the whole session)."""
    return f"{prefix}{uuid.uuid4().hex[:8]}"


@pytest.fixture
def contexts(browser: Any, base_url: str) -> Iterator[Any]:
    """Makes new browser contexts (each its own cookies and storage); closes them after the test."""
    made: list[Any] = []

    def make(url: str = base_url, width: int = 1440, height: int = 900, audit: bool = False) -> Any:
        # An audited context bypasses the pages' CSP, which allows no injected script (axe).
        context = browser.new_context(base_url=url, viewport={"width": width, "height": height}, bypass_csp=audit)
        made.append(context)
        return context

    yield make
    for context in made:
        context.close()


def opened(page: Any, first_field: str) -> None:
    """Wait until a dialog just opened has moved the focus to its first field (so that typing
    meant for another field is not sent there meanwhile)."""
    expect(page.locator(first_field)).to_be_focused()


def sign_up_in_page(page: Any, name: str, password: str = PASSWORD, passkey_later: bool = True) -> None:
    page.click("#sign-up-open")
    opened(page, "#account-name")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    page.click("#account-submit")
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")
    expect(page.locator("#account-dialog h2")).to_have_text(f"Welcome, {name}!")  # a passkey is offered
    if passkey_later:
        page.click("#passkey-later")
        expect(page.locator("#account-dialog")).to_have_count(0)


def sign_in_in_page(page: Any, name: str, password: str = PASSWORD) -> None:
    page.click("#sign-in-open")
    opened(page, "#account-name")
    page.fill("#account-name", name)
    page.fill("#account-password", password)
    page.click("#account-submit")


def test_sign_up_sign_out_and_sign_in_with_a_password(contexts: Any, requests_seen: RequestLog) -> None:
    context = contexts(audit=True)
    requests_seen.attach(context)
    page = context.new_page()
    page.goto("/")
    name = unique("Astrid")
    page.click("#sign-up-open")
    opened(page, "#account-name")
    found = serious_violations(page, "sign-up dialog")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"account-sign-up-{width}x{height}")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.fill("#account-name", "1 bad name")
    page.fill("#account-password", PASSWORD)
    page.evaluate("() => document.querySelector('#account-form').noValidate = true")
    page.click("#account-submit")
    expect(page.locator("#account-error")).to_contain_text("a user name is 3 to 20 letters")
    page.fill("#account-name", name)
    page.click("#account-submit")
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")
    page.click("#passkey-later")
    cookie = next(c for c in context.cookies() if c["name"] == "ttr_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("() => document.cookie").find("ttr_session") == -1  # the page cannot read it
    page.click("#account-button")
    found += serious_violations(page, "account menu")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"account-menu-{width}x{height}")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.click("#menu-settings")
    expect(page.locator("#settings-dialog")).to_be_visible()
    found += serious_violations(page, "settings")
    page.goto(f"/players/{name}")
    expect(page.locator("#no-history")).to_have_text("No rated games yet.")
    found += serious_violations(page, "own profile")
    assert found == []
    page.goto("/")
    page.click("#account-button")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.click("#menu-sign-out")
    expect(page.locator("#sign-in-open")).to_be_visible()
    # A wrong password and an unknown name read the same.
    sign_in_in_page(page, name, "not my password")
    expect(page.locator("#account-error")).to_have_text("wrong user name or password")
    page.fill("#account-name", unique("Nobody"))
    page.click("#account-submit")
    expect(page.locator("#account-error")).to_have_text("wrong user name or password")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")
    page.reload()
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")  # the session outlives the page
    assert requests_seen.foreign() == []
    assert requests_seen.errors == []


def test_a_password_change_signs_out_the_other_device_and_delete_removes_the_account(contexts: Any) -> None:
    name = unique("Gunnar")
    phone, laptop = contexts().new_page(), contexts().new_page()
    phone.goto("/")
    sign_up_in_page(phone, name)
    laptop.goto("/")
    sign_in_in_page(laptop, name)
    expect(laptop.locator("#account-button")).to_be_visible()
    phone.click("#account-button")
    phone.click("#menu-settings")
    opened(phone, "#current-password")
    shot(phone, "account-settings-1440x900")
    phone.fill("#current-password", PASSWORD)
    phone.fill("#new-password", "a brand new password")
    phone.click("#change-password")
    expect(phone.locator("#password-status")).to_have_text("Password changed. Signed out elsewhere: 1.")
    laptop.reload()
    expect(laptop.locator("#sign-in-open")).to_be_visible()
    phone.reload()
    expect(phone.locator("#account-button")).to_be_visible()
    phone.click("#account-button")
    phone.click("#menu-settings")
    opened(phone, "#current-password")
    phone.fill("#delete-password", "a brand new password")
    expect(phone.locator("#delete-password")).to_have_value("a brand new password")
    phone.click("#delete-account")
    expect(phone.locator("#delete-status")).to_be_hidden()  # no refusal shown
    expect(phone.locator("#sign-in-open")).to_be_visible()
    phone.goto(f"/players/{name}")
    expect(phone.locator(".fatal h1")).to_have_text("Player not found")


def test_the_reminder_settings_wait_for_the_saved_ones_before_taking_a_change(contexts: Any) -> None:
    """A box ticked before the saved settings arrive was overwritten by them (a CI machine saved
    "push off" after the test had ticked push): the form stays disabled until they are in."""
    name = unique("Ragna")
    page = contexts().new_page()
    page.goto("/")
    sign_up_in_page(page, name)
    held: list[Any] = []

    def hold_the_settings(route: Any) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/account/reminders", hold_the_settings)
    page.click("#account-button")
    page.click("#menu-settings")
    expect(page.locator("#reminder-form")).to_be_visible()
    for _ in range(300):  # until the page's request for the saved settings is held here
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
    controls = ("#reminder-email", "#reminder-email-on", "#reminder-push-on", "#reminder-interval", "#save-reminders")
    for control in controls:
        expect(page.locator(control)).to_be_disabled()
    page.locator("#reminder-form").scroll_into_view_if_needed()
    shot(page, "reminders-loading-1440x900")
    held[0].continue_()
    expect(page.locator("#reminder-email-on")).to_be_enabled()
    page.fill("#reminder-email", "ragna@example.org")
    page.check("#reminder-email-on")
    page.click("#save-reminders")
    expect(page.locator("#reminder-status")).to_have_text("Reminders saved.")
    page.unroute("**/api/account/reminders")
    page.reload()
    page.click("#account-button")
    page.click("#menu-settings")
    expect(page.locator("#reminder-email")).to_have_value("ragna@example.org")
    expect(page.locator("#reminder-email-on")).to_be_checked()


def create_online_in_page(page: Any, names: list[str], rated: bool = False) -> list[str]:
    page.goto("/")
    page.select_option("#on-count", str(len(names)))
    for i, name in enumerate(names, start=1):
        page.fill(f"#on-name-{i}", name)
    if rated:
        page.check("#on-rated")
    page.click("#start-online")
    links = page.locator("#invites .invite-link")
    expect(links).to_have_count(len(names))
    return [links.nth(i).input_value() for i in range(len(names))]


def test_a_guests_games_move_to_the_account_and_open_on_another_device(contexts: Any) -> None:
    guest = contexts().new_page()
    urls = create_online_in_page(guest, ["Solveig", "Ola"])
    game_id = urls[0].split("/play/")[1].split("?")[0]
    guest.goto(urls[0])
    wait_state(guest)
    guest.goto("/")
    name = unique("Solveig")
    sign_up_in_page(guest, name)
    expect(guest.locator("[data-testid=toast-info]").first).to_contain_text(
        "1 game of this browser added to your account"
    )
    # A second device, signed in to the account: the game is on the profile and its seat opens.
    device = contexts().new_page()
    device.goto("/")
    expect(device.locator("#account-games")).to_be_hidden()
    sign_in_in_page(device, name)
    expect(device.locator("#account-button")).to_be_visible()
    # The start page lists it under "On your account" (this browser does not keep it) ...
    expect(device.locator(f'#account-games li[data-game="{game_id}"]')).to_contain_text("Solveig · Ola")
    shot(device, "account-games-1440x900")
    # ... and so does the profile.
    device.click("#account-button")
    device.click("#menu-profile")
    device.wait_for_url(f"**/players/{name}")
    entry = device.locator(f'#account-active li[data-game="{game_id}"]')
    expect(entry).to_contain_text("Solveig · Ola")
    entry.locator("a.resume-link").click()
    device.wait_for_url(f"**/play/{game_id}")
    wait_state(device)
    expect(device.locator("#conn")).to_have_text("live")
    # Signed out, the same address opens nothing.
    stranger = contexts().new_page()
    stranger.goto(f"/play/{game_id}")
    expect(stranger.locator("[data-testid=toast-error]").first).to_contain_text("this token does not open a seat")


def add_virtual_authenticator(context: Any, page: Any) -> Any:
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp


def test_a_passkey_is_added_and_signs_in(contexts: Any, base_url: str) -> None:
    # A passkey needs a secure context with a host name: http://localhost is one.
    local = base_url.replace("127.0.0.1", "localhost")
    context = contexts(local)
    page = context.new_page()
    add_virtual_authenticator(context, page)
    page.goto("/")
    name = unique("Passkey")
    sign_up_in_page(page, name, passkey_later=False)
    shot(page, "account-passkey-offer-1440x900")
    page.click("#offer-passkey")
    expect(page.locator("#passkey-status")).to_have_text("Passkey added: you can sign in with it on this device.")
    page.click("#passkey-later")  # "Done"
    page.click("#account-button")
    page.click("#menu-sign-out")
    expect(page.locator("#sign-in-open")).to_be_visible()
    page.click("#sign-in-open")
    page.click("#passkey-sign-in")
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")
    page.reload()
    page.click("#account-button")
    page.click("#menu-settings")
    expect(page.locator("#settings-dialog")).to_contain_text("You have 1.")


def play_seats_to_the_end(base_url: str, game_id: str, tokens: list[str]) -> None:
    """Each seat's player sends random legal moves over its own socket until the game is over."""
    errors: list[BaseException] = []

    def seat(token: str, seed: int) -> None:
        rng = random.Random(seed)
        url = base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}"
        try:
            with connect(url) as ws:
                while True:
                    message = json.loads(ws.recv(timeout=30))
                    if message["type"] == "game_over":
                        return
                    if message["type"] == "state" and message["legal"]:
                        choice = rng.choice(message["legal"])["action"]
                        ws.send(json.dumps({"type": "act", "action": choice, "expected": message["actions"]}))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=seat, args=(token, i)) for i, token in enumerate(tokens)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert not errors, errors


def test_a_rated_game_between_two_accounts_shows_the_rating_change(contexts: Any, base_url: str) -> None:
    first, second = unique("Rated"), unique("Rival")
    host = contexts().new_page()
    host.goto("/")
    sign_up_in_page(host, first)
    host.goto("/")
    expect(host.locator("#on-name-1")).to_have_value(first)  # the own seat takes the account's name
    urls = create_online_in_page(host, [first, second], rated=True)
    game_id = urls[0].split("/play/")[1].split("?")[0]
    tokens = [url.split("?seat=")[1] for url in urls]
    rival = contexts().new_page()
    rival.goto("/")
    sign_up_in_page(rival, second)
    host.goto(urls[0])
    wait_state(host)
    expect(host.locator("#rated-notice")).to_have_text(
        f"Rated game: it starts when {second} opens their link signed in to an account."
    )
    rival.goto(urls[1])  # opening the invite signed in: the seat is the account's
    wait_state(rival)
    notice = "Rated game: the result changes every player's rating."
    expect(rival.locator("#rated-notice")).to_have_text(notice, timeout=15000)
    expect(host.locator("#rated-notice")).to_have_text(notice, timeout=15000)  # looked at again
    shot(host, "rated-notice-1440x900")
    rating = rival.request.get(f"/api/games/{game_id}/rating").json()
    assert rating["state"] == "pending"
    play_seats_to_the_end(base_url, game_id, tokens)
    host.goto(urls[0])
    box = host.locator("#final-dialog #rating-change")
    expect(box).to_contain_text(first)
    expect(box).to_contain_text(second)
    expect(box.locator("li")).to_have_count(2)
    text = box.inner_text()
    assert re.search(r"1000 → \d+ \(\+\d+\)", text) and re.search(r"1000 → \d+ \(-\d+\)", text), text
    for width, height in SIZES:
        host.set_viewport_size({"width": width, "height": height})
        shot(host, f"rated-final-{width}x{height}")
    host.set_viewport_size({"width": 1440, "height": 900})
    # Each profile: one rated game, its point on the chart, the replay link; seen by anyone.
    visitor = contexts(audit=True).new_page()
    visitor.goto(f"/players/{first}")
    expect(visitor.locator("#profile-name")).to_have_text(first)
    expect(visitor.locator('#profile-stats tr[data-format="2p"] .rated-played')).to_have_text("1")
    expect(visitor.locator("#rating-chart circle")).to_have_count(1)
    entry = visitor.locator(f'#profile-recent li[data-game="{game_id}"]')
    expect(entry).to_contain_text("rated")
    entry.locator("a.seat-account", has_text=second).click()  # the rival's profile, from the game
    visitor.wait_for_url(f"**/players/{second}")
    expect(visitor.locator("#profile-name")).to_have_text(second)
    expect(visitor.locator('#profile-stats tr[data-format="2p"] .rated-played')).to_have_text("1")
    visitor.go_back()
    shown = visitor.locator("#profile-rating").inner_text()
    assert shown.endswith("?") and shown[:-1] in text
    assert serious_violations(visitor, "profile") == []
    for width, height in SIZES:
        visitor.set_viewport_size({"width": width, "height": height})
        shot(visitor, f"profile-{width}x{height}", full_page=True)
    entry.locator("a.replay-link").click()
    visitor.wait_for_url(f"**/replay/{game_id}")
    expect(visitor.locator("#replay-step")).to_have_text(re.compile(r"Step 0 / \d+"))


def test_another_site_cannot_act_for_a_signed_in_player(contexts: Any, base_url: str) -> None:
    context = contexts()
    page = context.new_page()
    page.goto("/")
    name = unique("Csrf")
    sign_up_in_page(page, name)
    # The page's own request without the session's CSRF header is refused.
    answer = page.evaluate(
        """async () => { const r = await fetch('/api/account/sign-out-everywhere', {method: 'POST'});
        return [r.status, (await r.json()).error.code]; }"""
    )
    assert answer == [403, "CSRF"]
    # A page of another site (localhost is another site than 127.0.0.1) posts with the visitor's cookies.
    other = context.new_page()
    other.goto(base_url.replace("127.0.0.1", "localhost") + "/")
    other.evaluate(
        """async (target) => { try { await fetch(target + '/api/account/sign-out-everywhere',
        {method: 'POST', credentials: 'include', mode: 'no-cors', body: '{}'}); } catch (e) { } }""",
        base_url,
    )
    page.reload()
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾")  # still signed in
