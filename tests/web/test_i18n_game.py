"""The game page in the chosen language, in Chromium. Served the pseudo-language (every message
wrapped in ⟦ ⟧), no word of the page's own text is left outside the catalogues at a game's start
(the ticket choice), on a normal turn (panels, log, map, tooltip, shortcuts), in the claim dialog
with its other ways to pay, in a tunnel's dialog, in the final-scoring ceremony and the scores,
on the replay page with its win chances and on a spectator's page. In German the same screens
read German, with plurals and numbers the German way."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from playwright.sync_api import expect
from websockets.sync.client import connect

from ttr_nordic.engine import GameState, load_board
from ttr_nordic.server.serialize import board_json, serialize_log_entry
from ttr_nordic.web.i18n import translate

from .conftest import RequestLog, shot
from .driver import click_route, wait_state
from .i18n_probe import untranslated, use_pseudo_language
from .test_ceremony import create, play_to_the_end
from .test_chat import _seat
from .test_page_findings import tunnel_pending

# The board's English city names: the English page says them beside the local ones.
ENGLISH_CITIES = tuple(sorted({c.english_name for c in load_board().cities}, key=len, reverse=True))
NAMES = ("Ola", "Kari", "Tester", "Astrid", "Leif", *ENGLISH_CITIES)
# The rules' help button (rules.js) words its label in the rules' own part: not this page's text.
RULES_BUTTON = re.compile(r"^Rules: ⟦[^⟧]*⟧$")


def left_out(page: Any, *roots: str) -> list[str]:
    """The untranslated texts under each of ``roots`` (those that exist)."""
    found: list[str] = []
    for root in roots:
        if page.locator(root).count():
            found += [text for text in untranslated(page, NAMES, root) if not RULES_BUTTON.match(text)]
    return found


TURN_ROOTS = (
    "#status",
    "#conn",
    "#players",
    "#market",
    "#hand",
    "#tickets",
    "#route-list",
    "#log",
    "#recent",
    "#settings",
    ".zoom-controls",
    "#hint-button",
    "svg.board",
)


def ai_game(page: Any) -> None:
    """A game against the computer, opened at its start (the ticket choice)."""
    game_id, token = create(page, "ai", [{"kind": "human", "name": "Tester"}, {"kind": "ai", "level": "easy"}])
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.locator("#keep-dialog").wait_for()


def keep_two(page: Any) -> None:
    boxes = page.locator("#keep-dialog input[type=checkbox]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    expect(page.locator("#keep-confirm")).to_be_enabled()


def test_the_start_and_a_normal_turn_have_no_untranslated_text(page: Any, requests_seen: RequestLog) -> None:
    use_pseudo_language(page)
    ai_game(page)
    expect(page.locator("#keep-dialog h2")).to_contain_text("⟦")
    assert left_out(page, "#keep-dialog") == []
    keep_two(page)
    assert left_out(page, "#keep-dialog") == []
    page.locator("#keep-confirm").click()
    page.wait_for_function(
        "() => document.body.dataset.myTurn === '1' && !document.querySelector('#keep-dialog')", timeout=30000
    )
    expect(page.locator("#log li")).not_to_have_count(0)
    assert left_out(page, *TURN_ROOTS) == []
    page.locator(".route").first.hover()
    expect(page.locator("#route-tip")).to_be_visible()
    assert left_out(page, "#route-tip") == []
    page.keyboard.press("?")
    assert left_out(page, "#shortcuts-dialog") == []
    assert requests_seen.errors == []


def folded(ways: list[str]) -> list[str]:
    """The payments the claim dialog folds away (as js/payments.js splitPayments): those of which
    another offer pays a part, or which spend more locomotives for no more cards."""

    def within(q: Counter[str], p: Counter[str]) -> bool:
        return all(p[card] >= k for card, k in q.items())

    return [
        p
        for p in ways
        if any(
            q != p
            and (
                (len(q) < len(p) and within(Counter(q), Counter(p)))
                or (len(q) <= len(p) and q.count("L") < p.count("L"))
            )
            for q in ways
        )
    ]


def claim_with_other_payments(base_url: str, page: Any) -> tuple[str, str, str]:
    """A pass-and-play game where both seats draw cards until the seat to move may claim a route
    in ways of which the claim dialog folds some away;
    returns the game, its token and that route's code."""
    created = page.request.post("/api/games", data={"mode": "hotseat", "seats": [{"name": "Ola"}, {"name": "Kari"}]})
    data = created.json()
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    rng = random.Random(4)
    with connect(base_url.replace("http://", "ws://") + f"/ws/games/{game_id}?token={token}") as ws:
        for _ in range(300):
            message = json.loads(ws.recv(timeout=10))
            if message["type"] != "state" or not message["legal"]:
                continue
            legal = [a["action"] for a in message["legal"]]
            payments: dict[str, list[str]] = {}
            for action in legal:
                if action.startswith("C "):
                    payments.setdefault(action.split()[1], []).append(action.split()[2])
            for code, ways in payments.items():
                if folded(ways):
                    return game_id, token, code
            keeps = [a for a in legal if a.startswith("K")]
            draws = [a for a in legal if a == "B" or a.startswith("F")]
            action = max(keeps, key=len) if keeps else rng.choice(draws or legal)
            ws.send(json.dumps({"type": "act", "action": action, "seat": message["seat"]}))
    raise AssertionError("no route with payments to fold came up")


def test_the_claim_dialog_and_its_other_ways_to_pay_are_translated(
    page: Any, base_url: str, requests_seen: RequestLog
) -> None:
    game_id, token, code = claim_with_other_payments(base_url, page)
    use_pseudo_language(page)
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    assert left_out(page, "#pass-screen") == []
    page.locator("#pass-ready").click()
    click_route(page, page.locator(f'.route[data-code="{code}"]'))
    dialog = page.locator("#claim-dialog")
    dialog.wait_for()
    dialog.locator("#other-payments summary").click()
    expect(dialog.locator("#other-payments .option").first).to_be_visible()
    assert left_out(page, "#claim-dialog", *TURN_ROOTS) == []
    assert requests_seen.errors == []


def test_the_tunnel_dialog_is_translated(page: Any, base_url: str, requests_seen: RequestLog) -> None:
    game_id, token, _ = tunnel_pending(base_url, page)
    use_pseudo_language(page)
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.locator("#pass-ready").click()
    page.locator("#tunnel-dialog").wait_for()
    expect(page.locator("#tunnel-needed")).to_contain_text("⟦")
    assert left_out(page, "#tunnel-dialog", "#log", "#status") == []
    assert requests_seen.errors == []


def test_the_ceremony_the_scores_and_the_replay_are_translated(
    page: Any, base_url: str, requests_seen: RequestLog
) -> None:
    use_pseudo_language(page)
    game_id, token = create(page, "hotseat", [{"name": "Ola"}, {"name": "Kari"}])
    play_to_the_end(base_url, game_id, token, 3, page)
    ceremony = page.locator("#ceremony")
    expect(ceremony).to_be_visible(timeout=20000)
    page.wait_for_function(
        "() => document.querySelector('#ceremony .ceremony-ticket[data-state=done],"
        " #ceremony .ceremony-ticket[data-state=fail]')"
    )
    assert left_out(page, "#ceremony") == []
    page.locator("#ceremony-skip").click()
    final = page.locator("#final-dialog")
    expect(final).to_be_visible()
    assert left_out(page, "#final-dialog", "#status", "#players", "#log") == []

    page.goto(f"/replay/{game_id}?seat={token}")
    expect(page.locator("#chances-chart")).to_be_visible()
    page.locator("#key-moments button.moment").first.click()
    expect(page.locator("#replay-move")).not_to_be_empty()
    assert left_out(page, "#app") == []
    assert requests_seen.errors == []


def test_the_spectators_page_is_translated(browser: Any, browser_context_args: dict[str, Any]) -> None:
    contexts = [browser.new_context(**browser_context_args) for _ in range(3)]
    try:
        astrid = _seat(contexts[0], "Astrid", create=True)
        leif = _seat(contexts[1], "Leif", create=False)
        leif.wait_for_url("**/play/**")
        astrid.wait_for_url("**/play/**", timeout=15000)
        game_id = leif.url.split("/play/")[1].split("?")[0]
        leif.locator(".chat-phrase[data-phrase=gg]").dispatch_event("click")
        watcher = contexts[2].new_page()
        use_pseudo_language(watcher)
        watcher.goto(f"/watch/{game_id}")
        expect(watcher.locator("#players")).to_contain_text("Leif")
        expect(watcher.locator("#chat-list")).to_contain_text("Good game")  # the players' words stay theirs
        assert left_out(watcher, "#app") == []
    finally:
        for context in contexts:
            context.close()


def test_a_players_clocks_and_chat_are_translated(page: Any, requests_seen: RequestLog) -> None:
    seats = [{"kind": "human", "name": "Ola"}, {"kind": "human", "name": "Kari"}]
    created = page.request.post(
        "/api/games",
        data={
            "mode": "online",
            "seats": seats,
            "time_control": {"kind": "realtime", "per_move_s": 90, "reserve_s": 300},
        },
    )
    data = created.json()
    game_id, token = data["game"]["id"], data["invites"][0]["token"]
    use_pseudo_language(page)
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    expect(page.locator("#clocks")).to_be_visible()
    expect(page.locator("#clocks .clock-rule")).to_contain_text("⟦")
    page.locator(".chat-phrase[data-phrase=gg]").dispatch_event("click")
    expect(page.locator("#chat-list")).to_contain_text("Good game")  # the message as written: the player's words
    assert left_out(page, "#clocks", "#chat") == []
    assert requests_seen.errors == []


# Each entry worded by the page (js/words.js) next to the engine's own English line.
WORDED = """async (entries) => {
  await (await import("/static/js/i18n.js")).loadLanguage("en"); // (the page may still be loading it)
  const { logLine } = await import("/static/js/words.js");
  const board = await (await fetch("/api/board")).json();
  return entries.map((e) => [logLine(e, board, []), e.text]);
}"""


def test_the_english_page_words_every_log_line_as_the_engine_does(page: Any) -> None:
    entries = []
    for seed in range(6):
        state = GameState.new(players=2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        for _ in range(120 if seed % 2 else 10_000):  # the odd seeds stop part-way: others' moves hidden
            if state.is_over:
                break
            legal = state.legal_action_list()
            claims = [a for a in legal if a.notation().startswith(("C ", "X "))]
            state.apply(rng.choice(claims if claims and rng.random() < 0.7 else legal))
        for seat in range(state.num_players):
            entries += [serialize_log_entry(e) for e in state.view(seat).log]
    assert board_json(load_board())["tickets"][3]["id"] == 3  # the page finds a ticket by its id
    page.goto("/")
    worded = page.evaluate(WORDED, entries)
    assert {kind for kind in (e["kind"] for e in entries)} >= {"keep", "claim", "tunnel", "draw_blind"}
    # The one change: the page says "2 locomotives" where the engine's record line says "2 locomotive".
    plural = re.compile(r"\b([2-9]|\d\d+) locomotive\b")
    assert [mine for mine, engine in worded if mine != plural.sub(r"\1 locomotives", engine)] == []
    assert any("2 locomotives" in mine for mine, _ in worded)


def test_a_german_game_reads_german(browser: Any, browser_context_args: dict[str, Any]) -> None:
    context = browser.new_context(**{**browser_context_args, "locale": "de-DE"})
    try:
        page = context.new_page()
        ai_game(page)
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator("#keep-dialog h2")).to_have_text("Wähle Zielkarten (behalte mindestens 2)")
        expect(page.locator("#keep-dialog .pts").first).to_have_text(re.compile(r"^\d+ Punkte?$"))
        expect(page.locator("#status")).to_contain_text("Du bist dran – wähle deine ersten Zielkarten")
        for width, height in ((1440, 900), (1366, 768), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            shot(page, f"i18n-de-tickets-{width}x{height}")
        keep_two(page)
        expect(page.locator("#keep-hint")).to_have_text("Du behältst 2 Zielkarten.")
        page.locator("#keep-dialog input[type=checkbox]").nth(2).check()
        expect(page.locator("#keep-hint")).to_have_text("Du behältst 3 Zielkarten.")
        page.locator("#keep-confirm").click()
        page.wait_for_function(
            "() => document.body.dataset.myTurn === '1' && !document.querySelector('#keep-dialog')", timeout=30000
        )
        expect(page.locator("#log")).to_contain_text("Tester behielt 3 Zielkarten:")
        expect(page.locator("#log")).to_contain_text(re.compile(r"Computer 2 \(leicht\) behielt [23] Zielkarten"))
        expect(page.locator("#status")).to_contain_text("Du bist dran – wähle einen Spielzug")
        expect(page.locator("#market h2")).to_have_text("Ziehen")
        expect(page.locator("#tickets h2")).to_have_text("Zielkarten (0/3 erfüllt)")
        deck = re.compile(r"^Stapel \d+: eine Karte vom Stapel ziehen$")
        expect(page.locator("#deck")).to_have_attribute("aria-label", deck)
        # The German plural: one route is worth "1 Punkt", another "2 Punkte".
        assert page.locator('.route[aria-label$="— 1 Punkt"]').count() > 0
        assert page.locator('.route[aria-label$="— 2 Punkte"]').count() > 0
        expect(page.locator("#tickets .ticket-key")).to_contain_text(translate("de", "game.ticketCity"))
        route = page.locator('.route[aria-label*="Tunnel"]').first
        expect(route).to_have_attribute("aria-label", re.compile(r": \d [^ ]+ Tunnel — \d+ Punkte?$"))
        for width, height in ((1440, 900), (1366, 768), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            shot(page, f"i18n-de-turn-{width}x{height}")
    finally:
        context.close()


def test_a_refusal_is_worded_in_the_pages_language(browser: Any, browser_context_args: dict[str, Any]) -> None:
    for locale, code in (("de-DE", "de"), ("en-US", "en")):
        context = browser.new_context(**{**browser_context_args, "locale": locale})
        try:
            page = context.new_page()
            game_id, _ = create(page, "hotseat", [{"name": "Ola"}, {"name": "Kari"}])
            page.goto(f"/watch/{game_id}")  # not a lobby game: nobody may watch it
            expect(page.locator(".fatal h1")).to_have_text(translate(code, "game.cannotWatch"))
            server_words = "only games started from the lobby can be watched"
            expected = server_words if code == "en" else translate(code, "game.error_NOT_PUBLIC")
            expect(page.locator(".fatal p")).to_have_text(expected)
        finally:
            context.close()


def test_a_refused_name_and_chat_line_are_worded_in_the_pages_language(german_page: Any) -> None:
    # The server refuses a blank name and a chat line with an invisible character with codes; the
    # German page says so in German (it wrote the server's English sentences before).
    page = german_page
    page.goto("/")
    page.fill("#ai-name", "   ")
    page.click("#start-ai")
    expect(page.get_by_test_id("toast-error")).to_have_text(translate("de", "errors.NAME_BLANK"))
    assert "/play/" not in page.url
    game_id, token = create(page, "online", [{"name": "Ola"}, {"name": "Kari"}])
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.fill("#chat-input", "hei\u200b")
    page.locator("#chat-form button[type=submit]").dispatch_event("click")
    expect(page.get_by_test_id("toast-error").last).to_have_text(translate("de", "errors.CHAT_INVISIBLE"))
    for width, height in ((1440, 900), (1366, 768), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shot(page, f"refusal-de-{width}x{height}")
    expect(page.locator("#chat-list")).not_to_contain_text("hei")
