"""The start page, the lobby, the account dialogs and a profile in every language: with the
pseudo-language (every catalogue message wrapped in ⟦ ⟧) no visible word is left outside the
catalogues at their key states; in Finnish and German the words, plurals, dates and numbers are
the language's own, and reminders saved in German are kept in German for the e-mails; the
service worker words a push message that comes without words in the page's language.

Screenshots in German at 1440×900, 1366×768 and 390×844 go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import expect

from ttr_nordic.web.i18n import translate

from .conftest import shot
from .i18n_probe import untranslated, use_pseudo_language

PASSWORD = "trains to Murmansk"
SIZES = [(1440, 900), (1366, 768), (390, 844)]
# How long a password check may take on a loaded machine (Argon2 on purpose takes a while).
ANSWER_MS = 20_000
PLAYERS = ("Anna", "Bjørn", "Cecilia", "Astrid", "Sigrid")


def pseudo(key: str) -> str:
    """The message ``key`` as the pseudo-language writes it."""
    return f"⟦{translate('en', key)}⟧"


def unique(prefix: str) -> str:
    """A user name no other test took (the server's database lives for the whole session)."""
    return f"{prefix}{uuid.uuid4().hex[:8]}"


@pytest.fixture
def new_page(browser: Any, browser_context_args: dict[str, Any]) -> Iterator[Any]:
    """Makes pages, each in a browser context of its own (cookies, storage) and `locale`."""
    made: list[Any] = []

    def make(locale: str = "en-US", width: int = 1440, height: int = 900, pseudo: bool = False) -> Any:
        context = browser.new_context(
            **{**browser_context_args, "locale": locale, "viewport": {"width": width, "height": height}}
        )
        made.append(context)
        page = context.new_page()
        if pseudo:
            use_pseudo_language(page)
        return page

    yield make
    for context in made:
        context.close()


def keep_game(page: Any, players: list[str]) -> list[str]:
    """A game against the computer created through the API and kept by this browser (as the
    start page keeps the games it creates); answers its seats' names."""
    seats = [{"kind": "human", "name": players[0]}, *({"kind": "ai", "level": "easy"} for _ in players[1:])]
    data = page.request.post("/api/games", data={"mode": "ai", "seats": seats}).json()
    game_id: str = data["game"]["id"]
    token = data["invites"][0]["token"]
    page.evaluate(
        """([id, token]) => {
          const games = JSON.parse(localStorage.getItem("ttr-my-games") || "{}");
          games[id] = { token, mode: "ai", created: new Date().toISOString(), tokens: [token] };
          localStorage.setItem("ttr-my-games", JSON.stringify(games));
        }""",
        [game_id, token],
    )
    return [seat["name"] for seat in data["game"]["seats"]]


def sign_up(page: Any, name: str) -> None:
    page.click("#sign-up-open")
    expect(page.locator("#account-name")).to_be_focused()
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#account-button")).to_have_text(f"{name} ▾", timeout=ANSWER_MS)


def test_the_start_page_has_no_word_outside_the_catalogues(new_page: Any) -> None:
    page = new_page(pseudo=True)
    page.goto("/")
    expect(page.locator("#form-ai h2")).to_contain_text("⟦")
    seated = keep_game(page, ["Anna", "Computer"])
    page.reload()
    expect(page.locator("#my-active li")).to_have_count(1)
    # Every form's fields shown (the third seats too), and an online game's links.
    page.select_option("#ai-count", "2")
    page.select_option("#hs-count", "3")
    page.select_option("#on-count", "3")
    page.click("#start-online")
    expect(page.locator("#invites .invite")).to_have_count(3)
    assert untranslated(page, names=(*seated, *PLAYERS)) == []
    # The select's options are words too (not visible text nodes until opened).
    options = page.locator("#form-ai option, #form-online option").all_text_contents()
    assert [o for o in options if not o.startswith("⟦")] == [], options


def test_the_lobby_with_a_table_has_no_word_outside_the_catalogues(new_page: Any) -> None:
    other = new_page()
    sigrid = other.request.post("/api/lobby/tables", data={"players": 3, "name": "Sigrid", "rated": False}).json()
    page = new_page(pseudo=True)
    page.goto("/lobby")
    page.fill("#lobby-name", "Astrid")
    page.select_option("#lobby-wait", "0")
    page.click("#lobby-create")
    expect(page.locator("#lobby-mine .lobby-computer")).to_be_visible()
    expect(page.locator("#lobby-tables tr[data-table]").first).to_be_visible()
    # Tables other tests left open carry their players' names: names are not the page's words.
    listed = page.request.get("/api/lobby/tables").json()
    names = {s["name"] for t in listed["tables"] + listed["playing"] for s in t["seats"]}
    assert untranslated(page, names=tuple(sorted(names | set(PLAYERS), key=len, reverse=True))) == []
    page.locator("#lobby-mine .lobby-leave").click()
    expect(page.locator("#lobby-mine")).to_be_hidden()
    # Sigrid's table goes too: a quick match of another test would sit at it.
    left = other.request.post(
        f"/api/lobby/tables/{sigrid['table']['id']}/leave", headers={"X-Table-Ticket": sigrid["ticket"]}
    )
    assert left.status == 200, left.text()


def test_the_account_dialogs_and_settings_have_no_word_outside_the_catalogues(new_page: Any) -> None:
    page = new_page(pseudo=True)
    page.goto("/")
    page.click("#sign-in-open")
    expect(page.locator("#account-dialog")).to_be_visible()
    assert untranslated(page, root="#account-dialog") == []
    page.fill("#account-name", unique("nobody"))
    page.fill("#account-password", "not the password")
    page.click("#account-submit")
    expect(page.locator("#account-error")).to_have_text(pseudo("errors.BAD_CREDENTIALS"), timeout=ANSWER_MS)
    page.click("#account-switch")
    expect(page.locator("#account-submit")).to_have_text(pseudo("account.createAccount"))
    assert untranslated(page, root="#account-dialog") == []
    name = unique("Kari")
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#account-submit")
    expect(page.locator("#offer-passkey")).to_be_visible()
    assert untranslated(page, names=(name,), root="#account-dialog") == []
    page.click("#passkey-later")
    assert untranslated(page, names=(name,), root="header") == []
    page.click("#account-button")
    expect(page.locator("#account-menu")).to_be_visible()
    assert untranslated(page, names=(name,), root="#account-menu") == []
    page.click("#menu-settings")
    expect(page.locator("#reminder-interval")).to_have_value("86400")
    assert untranslated(page, names=(name,), root="#settings-dialog") == []
    # The answers: a refused password change, a saved reminder, each in the catalogue's words.
    page.fill("#current-password", "not the password")
    page.fill("#new-password", "a new password for trains")
    page.click("#change-password")
    expect(page.locator("#password-status")).to_have_text(pseudo("errors.WRONG_PASSWORD"), timeout=ANSWER_MS)
    page.click("#save-reminders")
    expect(page.locator("#reminder-status")).to_have_text(pseudo("notify.saved"), timeout=ANSWER_MS)
    options = page.locator("#reminder-interval option").all_text_contents()
    assert [o for o in options if not o.startswith("⟦")] == [], options
    assert untranslated(page, names=(name,), root="#settings-dialog") == []


def test_a_profile_has_no_word_outside_the_catalogues(new_page: Any) -> None:
    page = new_page(pseudo=True)
    page.goto("/")
    name = unique("Liv")
    sign_up(page, name)
    page.click("#passkey-later")
    page.goto(f"/players/{name}")
    expect(page.locator("#profile-name")).to_have_text(name)
    expect(page.locator("#account-active")).to_be_visible()
    assert untranslated(page, names=(name,), root="#app") == []
    page.goto("/players/nobody-of-that-name")
    expect(page.locator(".fatal h1")).to_contain_text("⟦")
    assert untranslated(page, names=("nobody-of-that-name",), root="#app") == []


def test_finnish_plurals_on_the_start_page(new_page: Any) -> None:
    page = new_page(locale="fi-FI")
    page.goto("/")
    expect(page.locator("#form-ai h2")).to_have_text("Pelaa tietokonetta vastaan")
    assert page.locator("#ai-count option").all_text_contents() == ["1 vastustaja", "2 vastustajaa"]
    assert page.locator("#hs-count option").all_text_contents() == ["2 pelaajaa", "3 pelaajaa"]


def test_german_pages_dates_plurals_and_reminders(new_page: Any, base_url: str) -> None:
    page = new_page(locale="de-DE")
    page.goto("/")
    keep_game(page, ["Anna", "Computer"])
    page.reload()
    expect(page.locator("#form-ai h2")).to_have_text("Gegen den Computer spielen")
    expect(page.locator("#my-games-title")).to_have_text("Deine Spiele")
    entry = page.locator("#my-active li").first
    expect(entry.locator(".resume-link")).to_have_text("Fortsetzen")
    # The date the German way (day.month.year), the mode in German.
    today = datetime.now(UTC)
    expect(entry).to_contain_text("gegen Computer")
    assert re.search(r"\d{2}\.\d{2}\.\d{4}", entry.inner_text()), entry.inner_text()
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"i18n-start-de-{width}x{height}", full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})
    # Signing up carries the browser's one game into the account: a plural's "one" form.
    name = unique("Jens")
    sign_up(page, name)
    expect(page.locator("[data-testid=toast-info]").first).to_have_text(
        "1 Spiel dieses Browsers wurde deinem Konto hinzugefügt"
    )
    expect(page.locator("#account-dialog h2")).to_have_text(f"Willkommen, {name}!")
    page.click("#passkey-later")
    page.click("#account-button")
    page.click("#menu-settings")
    expect(page.locator("#settings-dialog h2")).to_have_text(f"Einstellungen — {name}")
    assert page.locator("#reminder-interval option").all_text_contents() == [
        "jede Stunde",
        "alle 4 Stunden",
        "alle 12 Stunden",
        "einmal am Tag",
        "alle 3 Tage",
    ]
    page.fill("#reminder-email", "jens@example.org")
    page.check("#reminder-email-on")
    page.click("#save-reminders")
    expect(page.locator("#reminder-status")).to_have_text("Erinnerungen gespeichert.")
    saved = page.request.get(f"{base_url}/api/account/reminders").json()["reminders"]
    assert saved["language"] == "de" and saved["email"] == "jens@example.org"
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "i18n-settings-de-390x844")
    # The profile: "0 gewertete Spiele" (the plural's "other" form) and the date of joining.
    page.goto(f"/players/{name}")
    expect(page.locator(".rating-card .muted").first).to_contain_text("0 gewertete Spiele")
    expect(page.locator(".profile-head .muted")).to_have_text(f"Mitglied seit {today:%d.%m.%Y}")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"i18n-profile-de-{width}x{height}", full_page=True)
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0, width
    # The lobby, with a waiting table of one's own: "1 von 2 sitzt" and the pace's plural.
    page.goto("/lobby")
    page.select_option("#lobby-pace", "turn")
    page.click("#lobby-create")
    expect(page.locator("#lobby-mine")).to_contain_text("1 von 2 sitzt · Rundenbasiert · 1 Tag pro Zug")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"i18n-lobby-de-{width}x{height}", full_page=True)
        # German words are long: nothing may stick out of the phone's width.
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (width, overflow)
    page.locator("#lobby-mine .lobby-leave").click()
    expect(page.locator("#lobby-mine")).to_be_hidden()


def test_the_at_the_table_panel_has_no_word_outside_the_catalogues(new_page: Any) -> None:
    page = new_page(pseudo=True)
    seats = [{"kind": "human", "name": "Anna"}, {"kind": "human", "name": "Bjørn"}]
    data = page.request.post("/api/games", data={"mode": "online", "seats": seats}).json()
    page.goto("/")
    # The creator's browser keeps every seat's link (as the start page does on creating it).
    page.evaluate(
        """([id, invites]) => {
          const token = invites[0].token;
          const games = { [id]: { token, mode: "online", invites, creator: true, created: new Date().toISOString(),
            tokens: [token] } };
          localStorage.setItem("ttr-my-games", JSON.stringify(games));
        }""",
        [data["game"]["id"], data["invites"]],
    )
    page.goto(data["invites"][0]["path"])
    away = page.locator('#presence-list li[data-seat="1"] .presence-state')
    expect(away).to_have_text(pseudo("online.notConnected"))
    expect(page.locator("#invite-panel")).to_be_visible()
    assert untranslated(page, names=("Anna", "Bjørn"), root="#online-panel") == []
    page.locator("#handover-1").click()
    expect(page.locator("#handover-1")).to_contain_text("⟦")
    assert untranslated(page, names=("Anna", "Bjørn"), root="#online-panel") == []


def test_the_service_worker_words_a_push_without_them_in_the_page_language(new_page: Any, base_url: str) -> None:
    page = new_page(locale="de-DE")
    page.context.grant_permissions(["notifications"], origin=base_url)
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    cdp = page.context.new_cdp_session(page)
    registrations: dict[str, str] = {}
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.update({r["scopeURL"]: r["registrationId"] for r in event["registrations"]}),
    )
    cdp.send("ServiceWorker.enable")
    script = page.evaluate(
        """async () => {
          const registration = await (await import("/static/js/push.js")).registerWorker();
          await navigator.serviceWorker.ready;
          return (registration.active || registration.waiting || registration.installing).scriptURL;
        }"""
    )
    assert script.endswith("/sw.js?lang=de")
    scope = f"{base_url}/"
    for _ in range(300):  # (at most 30 s) CDP tells the registration's id once it is made
        if scope in registrations:
            break
        page.wait_for_timeout(100)
    shown = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
      .map((n) => [n.title, n.body])"""
    # A message without JSON: the worker's own words, in the language it was registered with.
    cdp.send(
        "ServiceWorker.deliverPushMessage", {"origin": base_url, "registrationId": registrations[scope], "data": "?"}
    )
    notes: list[list[str]] = []
    for _ in range(300):  # at most 30 s: the worker fetches the German catalogue first
        notes = page.evaluate(shown)
        if notes:
            break
        page.wait_for_timeout(100)
    assert notes == [["Du bist am Zug", "Du bist am Zug."]]
