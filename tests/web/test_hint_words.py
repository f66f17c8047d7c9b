"""The page words a hint's data exactly as the Python side does (``hint-text.js`` against
``ai/hints.hint_text``), for every reason code met in played games; and a live hint says why."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from ttr_nordic.ai.hints import REASONS, explain, hint_text
from ttr_nordic.ai.registry import make_agent
from ttr_nordic.engine import GameState

from .conftest import RequestLog, shot
from .driver import keep_all, wait_my_turn
from .test_pages import start_ai_game

NAMES = ["Ola", "Kari", "Nils"]


def explanations() -> list[dict[str, object]]:
    """Explanations of Route Focus moves in a two- and a three-player game: one per reason code,
    move kind and route type met."""
    seen: dict[tuple[str, str, str], dict[str, object]] = {}
    for players, seed in ((2, 1), (3, 2)):
        game = GameState.new(players=players, seed=seed)
        agents = [make_agent("route_focus", seed + p) for p in range(players)]
        while not game.is_over:
            p = game.decision.player
            view = game.view(p)
            action = agents[p].choose(view, game.legal_action_list())
            why = explain(view, action)
            for reason in why.reasons:
                key = (reason.code, str(why.move["kind"]), str(why.move.get("type", "")))
                if key not in seen:
                    seen[key] = {"why": why.as_json(), "text": hint_text(why, NAMES)}
            game.apply(action, p)
    return list(seen.values())


def test_the_page_words_hints_as_the_python_side_does(page: Any, requests_seen: RequestLog) -> None:
    cases = explanations()
    assert len({c["why"]["reasons"][0]["code"] for c in cases}) >= 8  # type: ignore[index]
    page.goto("/")
    words = page.evaluate(
        """async ([cases, names]) => {
            await (await import("/static/js/i18n.js")).loadLanguage("en"); // (the page may still be loading it)
            const { hintText } = await import("/static/js/hint-text.js");
            return cases.map((c) => hintText(c.why, (seat) => names[seat]));
        }""",
        [cases, NAMES],
    )
    assert words == [c["text"] for c in cases]
    assert requests_seen.errors == []


def test_a_live_hint_says_why(page: Any, requests_seen: RequestLog) -> None:
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    page.locator("#hint-button").click()
    box = page.locator("#hint")
    expect(box).to_contain_text("The expert would:", timeout=20000)
    text = box.inner_text()
    # "<move>: <reason>." -- a move and at least one reason in words, no card letters.
    move, _, reasons = text.removeprefix("The expert would:").strip().partition(": ")
    assert move and reasons.endswith("."), text
    assert not any(code in text for code in REASONS if "_" in code), text
    shot(page, "hint-why")
    assert requests_seen.errors == []
