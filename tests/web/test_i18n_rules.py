"""The rules panel and the guided first game in every language, in Chromium: no word outside the
catalogues (the pseudo-language) in the whole panel, its pictures' captions and the "?" buttons,
and at every step of the guide; the panel's headings in each real language; screenshots in
Norwegian and Finnish."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ttr_nordic.web.i18n import translate

from .conftest import RequestLog, shot
from .driver import keep_all, wait_my_turn, wait_state
from .i18n_probe import untranslated, use_pseudo_language
from .test_page_axe import serious_violations

SECTIONS = ["setup", "turn", "locomotives", "ferries", "tunnels", "murmansk", "double", "end", "scoring", "ties"]
# The "?" buttons' topics, as the game's dialogs name them.
HELP_TOPICS = ["destination tickets", "tunnels", "ferries", "Murmansk–Lieksa", "claiming a route", "scoring"]


def use_language(page: Any, code: str) -> None:
    """Open the start page in language ``code`` (chosen as with the picker: remembered, then reloaded)."""
    page.goto("/")
    page.evaluate("code => localStorage.setItem('lang', code)", code)
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", code)


def test_every_word_of_the_rules_panel_is_in_the_catalogues(page: Any, requests_seen: RequestLog) -> None:
    use_pseudo_language(page)
    page.goto("/")
    page.click("#rules-open")
    panel = page.locator("#rules-panel")
    expect(panel).to_be_visible()
    expect(panel.locator("h2")).to_contain_text("⟦")
    # Every section, reached from the contents as a reader would (each scrolled into view).
    for section in SECTIONS:
        panel.locator(f'.rules-toc a[data-section="{section}"]').click()
        expect(page.locator(f"#rules-h-{section}")).to_be_focused()
        expect(page.locator(f"#rules-h-{section}")).to_contain_text("⟦")
        assert untranslated(page, root=f"#rules-{section}") == [], section
    assert untranslated(page, root="#rules-panel") == []
    # The pictures' names and the payment captions too.
    labels = panel.locator("svg.rules-picture").evaluate_all("nodes => nodes.map(n => n.getAttribute('aria-label'))")
    assert len(labels) == 3 and all(label.startswith("⟦") for label in labels), labels
    expect(panel.locator(".rules-caption")).to_have_count(2)
    # The "?" buttons of the dialogs: each topic in the catalogue.
    words = page.evaluate(
        """async (topics) => {
            const { helpButton } = await import("/static/js/rules.js");
            return topics.map((topic) => [helpButton("turn", topic).getAttribute("aria-label"),
                                          helpButton("turn", topic).title]);
        }""",
        HELP_TOPICS,
    )
    for label, title in words:
        assert label == title and label.startswith("⟦") and label.count("⟦") == 2, label
    assert requests_seen.errors == []


# A guide in the page, and the state each step needs (see STEPS' `when` in guide.js).
GUIDE_SETUP = """async () => {
  const { STEPS, makeGuide, wantGuide } = await import("/static/js/guide.js");
  wantGuide("probe");
  localStorage.removeItem("ttr-guide-seen:probe");
  const guide = makeGuide("probe");
  document.getElementById("app").prepend(guide.node);
  window.guideProbe = { guide, stateOf };
  return STEPS.map((s) => s.id);
  function stateOf(step) {
    const base = { view: { is_my_turn: true, player: 0, log: [], display: ["red", "blue", "green", "white", "black"],
                           tickets: [], final_turns_left: null },
                   legal: [{ action: "B" }, { action: "T" }], claimable: new Set(), since: { claims: [], first: false },
                   result: null, hidden: false, routeByCode: new Map([["R1", { ferry_locomotives: 0 }],
                                                                     ["R2", { ferry_locomotives: 1 }]]) };
    const view = (more) => ({ ...base.view, ...more });
    return {
      tickets: { ...base, legal: [{ action: "K 1 2" }], since: { claims: [], first: true } },
      turn: base,
      "second-card": { ...base, legal: [{ action: "B" }, { action: "F1" }] },
      claim: { ...base, claimable: new Set(["R1"]) },
      opponent: { ...base, since: { claims: [{}], first: false } },
      locomotives: { ...base, view: view({ display: ["locomotive", "red", "blue", "green", "white"] }) },
      ferry: { ...base, claimable: new Set(["R2"]) },
      tunnel: { ...base, legal: [{ action: "X L" }, { action: "decline" }] },
      "ticket-done": { ...base, view: view({ tickets: [{ completed: true }] }) },
      final: { ...base, view: view({ final_turns_left: 1 }) },
      over: { ...base, result: { winners: [] } },
    }[step];
  }
}"""


def test_every_step_of_the_guide_is_in_the_catalogues(page: Any, requests_seen: RequestLog) -> None:
    use_pseudo_language(page)
    page.goto("/")
    # The start page first: drawn after the guide, it would replace it.
    page.locator("#start-ai").wait_for()
    steps = page.evaluate(GUIDE_SETUP)
    assert len(steps) == 11
    guide = page.locator("#guide")
    for step in steps:
        page.evaluate("step => window.guideProbe.guide.update(window.guideProbe.stateOf(step))", step)
        expect(guide).to_have_attribute("data-step", step)
        expect(guide.locator("#guide-title")).to_contain_text("⟦")
        assert untranslated(page, root="#guide") == [], step
        page.click("#guide-next")  # read: the next step may show
    assert requests_seen.errors == []


def test_a_guided_game_starts_with_the_guide_in_the_language(page: Any, requests_seen: RequestLog) -> None:
    use_language(page, "de")
    page.fill("#ai-name", "Neuling")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    wait_state(page)
    guide = page.locator("#guide")
    expect(guide).to_have_attribute("data-step", "tickets")
    expect(guide.locator("#guide-title")).to_have_text("Wähle deine Zielkarten")
    expect(guide).to_contain_text("Behalte mindestens 2 der 5")
    expect(page.locator("#guide-next")).to_have_text("Verstanden")
    page.click("#guide-rules")
    expect(page.locator("#rules-h-setup")).to_be_focused()
    expect(page.locator("#rules-h-setup")).to_have_text("Spielvorbereitung")
    assert requests_seen.errors == []


# Each language's own word for the tunnels' section, and words of its rules that English lacks.
TUNNELS = {"nb": "Tunneler", "sv": "Tunnlar", "da": "Tunneller", "fi": "Tunnelit", "de": "Tunnel"}
WORDS = {
    "nb": ["billetter", "lokomotiv", "ferge", "Globetrotter"],
    "sv": ["destinationskort", "lok", "färja", "Globetrotter"],
    "da": ["rutekort", "lokomotiv", "færge", "Globetrotter"],
    "fi": ["menolippua", "veturi", "lautassa", "Globetrotter"],
    "de": ["Zielkarten", "Lokomotive", "Fähre", "Globetrotter"],
}


@pytest.mark.parametrize("code", sorted(TUNNELS))
def test_the_rules_panel_reads_in_each_language(page: Any, requests_seen: RequestLog, code: str) -> None:
    use_language(page, code)
    page.click("#rules-open")
    panel = page.locator("#rules-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#rules-h-tunnels")).to_have_text(TUNNELS[code])
    headings = panel.locator("h3").all_inner_texts()
    assert headings == [translate(code, f"rules.h{section[0].upper()}{section[1:]}") for section in SECTIONS]
    assert not {"Setup", "Your turn: one of three things", "Tie-breaks"} & set(headings)
    text = panel.inner_text()
    for word in WORDS[code]:
        assert word.lower() in text.lower(), (code, word)
    expect(panel).to_have_attribute("aria-label", translate(code, "rules.dialog"))
    # The numbers of the points table, written the language's way, and the city names as on the board.
    expect(panel.locator(".rules-points td").last).to_have_text("27")
    assert "Kristiansand–Stavanger" in text and "Murmansk–Lieksa" in text
    assert requests_seen.errors == []


@pytest.mark.parametrize("code", ["nb", "fi"])
def test_screenshots_of_the_rules_panel(page: Any, code: str) -> None:
    for width, height in [(1440, 900), (1366, 768), (390, 844)]:
        page.set_viewport_size({"width": width, "height": height})
        use_language(page, code)
        page.click("#rules-open")
        panel = page.locator("#rules-panel")
        expect(panel).to_be_visible()
        # Nothing wider than the panel (long words wrap), at every size.
        wide = panel.evaluate(
            """p => [...p.querySelectorAll('*')].filter(n => n.getBoundingClientRect().right
                       > p.getBoundingClientRect().right + 1).map(n => n.tagName + ' ' + n.textContent.slice(0, 30))"""
        )
        assert wide == [], wide
        shot(page, f"rules-{code}-{width}x{height}")
        panel.locator('.rules-toc a[data-section="ferries"]').click()
        shot(page, f"rules-{code}-ferries-{width}x{height}")


def test_screenshots_of_a_finnish_guided_game_and_hint_on_a_phone(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    use_language(page, "fi")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    wait_state(page)
    guide = page.locator("#guide")
    expect(guide).to_have_attribute("data-step", "tickets")
    expect(guide.locator("#guide-title")).to_have_text("Valitse menolippusi")
    # Long Finnish words wrap inside the tip: nothing sticks out of it.
    wide = guide.evaluate(
        """g => [...g.querySelectorAll('*')].filter(n => n.getBoundingClientRect().right
                   > g.getBoundingClientRect().right + 1).map(n => n.tagName)"""
    )
    assert wide == [], wide
    shot(page, "guide-fi-390x844")
    keep_all(page)
    wait_my_turn(page)
    expect(guide).to_have_attribute("data-step", "turn")
    page.locator("#hint-button").click()
    hint = page.locator("#hint")
    hint.locator("strong").wait_for(timeout=20000)
    expect(hint).to_contain_text(re.compile(r"[äö]|Nosta|Rakenna|Ota"))
    hint.scroll_into_view_if_needed()
    shot(page, "hint-fi-390x844")
    assert requests_seen.errors == []


@pytest.fixture
def audited_page(browser: Any, browser_context_args: dict[str, Any]) -> Any:
    # As in test_page_axe: only an audit's context bypasses the pages' CSP to inject axe-core.
    context = browser.new_context(**browser_context_args, bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_the_finnish_rules_panel_has_no_accessibility_violation(audited_page: Any) -> None:
    page = audited_page
    use_language(page, "fi")
    page.click("#rules-open")
    expect(page.locator("#rules-panel")).to_have_attribute("aria-label", "Säännöt")
    page.locator('.rules-toc a[data-section="ferries"]').click()
    assert serious_violations(page, "rules panel (fi)") == []
