"""A hint's words in every language, in Chromium: every move kind, card colour and reason code
worded from the catalogues (the pseudo-language leaves no word outside them, a live hint
included), no message key or placeholder left in any language, and exact sentences in Finnish
and German with their plurals."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ttr_nordic.ai.hints import REASONS
from ttr_nordic.web.i18n import LANGUAGES

from .conftest import RequestLog, shot
from .driver import keep_all, wait_my_turn
from .i18n_probe import board_names, use_pseudo_language
from .test_hint_words import NAMES, explanations
from .test_pages import start_ai_game

COLOURS = ["purple", "white", "blue", "yellow", "orange", "black", "red", "green"]
INNERMOST = re.compile(r"⟦[^⟦⟧]*⟧")
WORD = re.compile(r"[^\W\d_]{2,}")


def outside_catalogues(text: str) -> list[str]:
    """The words of ``text`` outside the pseudo-language's brackets (nested messages allowed), other
    than city and player names."""
    for name in (*NAMES, *board_names()):
        text = text.replace(name, " ")
    while INNERMOST.search(text):
        text = INNERMOST.sub(" ", text)
    return WORD.findall(text)


def every_kind() -> list[dict[str, Any]]:
    """A ``why`` for each move kind, each card colour (in a payment and face up), each route type
    and each reason code, with singular and plural numbers."""
    cards = [[1, colour] for colour in COLOURS] + [[2, "locomotive"]]
    green, red = [[2, "green"]], [[1, "red"]]
    moves: list[dict[str, Any]] = [
        {"kind": "claim", "route": "Oslo–Örebro", "length": 2, "color": "green", "type": "regular", "cards": green},
        {"kind": "claim", "route": "Stockholm–Turku", "length": 3, "color": "blue", "type": "ferry", "cards": cards},
        {"kind": "claim", "route": "Bergen–Oslo", "length": 4, "color": "red", "type": "tunnel", "cards": red},
        {
            "kind": "claim",
            "route": "Murmansk–Lieksa",
            "length": 9,
            "color": "gray",
            "type": "special",
            "cards": [[9, "white"]],
        },
        {"kind": "claim", "route": "Tampere–Turku", "length": 1, "color": "red", "type": "regular", "cards": red},
        *({"kind": "face_up", "card": card} for card in [*COLOURS, "locomotive"]),
        {"kind": "deck"},
        {"kind": "tickets"},
        {"kind": "keep", "tickets": ["Oslo–Helsinki", "Tampere–Tallinn"]},
        {"kind": "tunnel_pay", "cards": [[1, "locomotive"], [2, "red"]]},
        {"kind": "tunnel_decline"},
        {"kind": "pass"},
    ]
    reasons = [
        {"code": "completes_ticket", "ticket": "Oslo–Helsinki", "points": 8},
        {"code": "on_ticket_path", "ticket": "København–Oulu"},
        {"code": "blocks", "player": 1, "ticket": "København–Murmansk"},
        {"code": "scores", "points": 1, "length": 1},
        {"code": "scores", "points": 7, "length": 4},
        {"code": "last_round"},
        {
            "code": "collects_for",
            "card": "blue",
            "route": "Stockholm–Turku",
            "ticket": "Tampere–Kristiansand",
            "have": 1,
            "need": 3,
        },
        {"code": "collects_for", "card": "yellow", "route": "Kajaani–Oulu", "ticket": None, "have": 0, "need": 1},
        {"code": "locomotive"},
        {"code": "nothing_fits"},
        {"code": "cannot_pay_yet"},
        {"code": "cards_short", "short": 1},
        {"code": "cards_short", "short": 10},
        {"code": "cards_short", "short": 0},
        {"code": "tickets_done", "trains": 1},
        {"code": "tickets_done", "trains": 27},
        {"code": "trains_to_spare", "spare": 22},
        {"code": "tickets_fit", "trains": 18, "trains_left": 40},
        {"code": "already_connected", "ticket": "Tampere–Boden"},
        {"code": "tunnel_on_path", "ticket": "København–Oulu"},
        {"code": "tunnel_too_dear"},
        {"code": "nothing_else"},
    ]
    assert {r["code"] for r in reasons} == set(REASONS)
    whys = [{"move": move, "reasons": [reasons[i % len(reasons)]]} for i, move in enumerate(moves)]
    whys += [{"move": {"kind": "deck"}, "reasons": [reason]} for reason in reasons]
    whys.append({"move": {"kind": "pass"}, "reasons": []})
    return whys


WORDS_JS = """async ([code, whys, names]) => {
    const i18n = await import("/static/js/i18n.js");
    await i18n.loadLanguage(code);
    const { hintText } = await import("/static/js/hint-text.js");
    return whys.map((why) => hintText(why, (seat) => names[seat]));
}"""


def test_every_hint_is_worded_from_the_catalogues(page: Any, requests_seen: RequestLog) -> None:
    use_pseudo_language(page)
    page.goto("/")
    whys = every_kind() + [case["why"] for case in explanations()]
    sentences = page.evaluate(WORDS_JS, ["en", whys, NAMES])
    assert len(sentences) == len(whys)
    left = {sentence: outside_catalogues(sentence) for sentence in sentences if outside_catalogues(sentence)}
    assert left == {}
    assert requests_seen.errors == []


@pytest.mark.parametrize("code", [code for code in LANGUAGES if code != "en"])
def test_no_key_or_placeholder_is_left_in_any_language(page: Any, requests_seen: RequestLog, code: str) -> None:
    page.goto("/")
    whys = every_kind()
    words = page.evaluate(WORDS_JS, [code, whys, NAMES])
    english = page.evaluate(WORDS_JS, ["en", whys, NAMES])
    for sentence, in_english in zip(words, english, strict=True):
        assert "hint." not in sentence and "{" not in sentence and "undefined" not in sentence, sentence
        assert sentence != in_english, sentence  # every sentence has words of its own language
    assert len(set(words)) == len(set(english))  # no two kinds, colours or counts worded alike
    assert requests_seen.errors == []


def test_finnish_and_german_hints_with_their_plurals(page: Any, requests_seen: RequestLog) -> None:
    page.goto("/")
    claim = {
        "move": {
            "kind": "claim",
            "route": "Oulu–Vaasa",
            "length": 3,
            "color": "black",
            "type": "regular",
            "cards": [[3, "black"]],
        },
        "reasons": [{"code": "scores", "points": 4, "length": 3}, {"code": "cards_short", "short": 1}],
    }
    ferry = {
        "move": {
            "kind": "claim",
            "route": "Stockholm–Turku",
            "length": 3,
            "color": "blue",
            "type": "ferry",
            "cards": [[2, "blue"], [1, "locomotive"]],
        },
        "reasons": [
            {"code": "completes_ticket", "ticket": "Stockholm–Helsinki", "points": 1},
            {"code": "blocks", "player": 1, "ticket": "Turku–Oslo"},
        ],
    }
    fi = page.evaluate(WORDS_JS, ["fi", [claim, ferry], NAMES])
    assert fi == [
        "Rakenna Oulu–Vaasa (musta, 3 ruutua), maksuna 3 mustaa korttia: tuo 4 pistettä 3 vaunulla; "
        "sinulta puuttuu 1 kortti suunniteltuja reittejäsi varten.",
        "Rakenna Stockholm–Turku (sininen lautta, 3 ruutua), maksuna 2 sinistä korttia ja 1 veturi: "
        "suorittaa menolippusi Stockholm–Helsinki (1 piste); estää pelaajaa Kari, jonka reitit viittaavat "
        "menolippuun Turku–Oslo.",
    ]
    de = page.evaluate(WORDS_JS, ["de", [claim, ferry], NAMES])
    assert de == [
        "Baue Oulu–Vaasa (3 Felder in Schwarz) mit 3 schwarzen Karten: bringt 4 Punkte für 3 Waggons; "
        "dir fehlt 1 Karte für deine geplanten Strecken.",
        "Baue Stockholm–Turku (Fähre, 3 Felder in Blau) mit 2 blauen Karten und 1 Lokomotive: "
        "erfüllt deine Zielkarte Stockholm–Helsinki (1 Punkt); blockiert Kari – die gebauten Strecken deuten "
        "auf eine Zielkarte Turku–Oslo hin.",
    ]
    assert requests_seen.errors == []


def test_a_live_hint_says_why_in_the_pseudo_language(page: Any, requests_seen: RequestLog) -> None:
    use_pseudo_language(page)
    start_ai_game(page)
    keep_all(page)
    wait_my_turn(page)
    page.locator("#hint-button").click()
    box = page.locator("#hint")
    # The sentence follows the box's label: "<move>: <reason>." with every word from the catalogues.
    box.locator("strong").wait_for(timeout=20000)
    sentence = box.evaluate("b => b.lastChild.textContent")
    assert sentence.startswith("⟦") and sentence.endswith(".") and ": " in sentence, sentence
    assert outside_catalogues(sentence) == [], sentence
    expect(box).to_be_visible()
    shot(page, "hint-pseudo")
    assert requests_seen.errors == []
