"""Accessibility: axe-core (vendored from npm: tests/web/vendor/axe.min.js, 4.14.1, MPL-2.0) finds no
violation at any impact (minor, moderate, serious or critical) on the start page, a game, each dialog and the replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from .driver import keep_all, wait_state
from .test_online_play import play_hotseat_to_the_end
from .test_page_findings import tunnel_pending

AXE = Path(__file__).parent / "vendor" / "axe.min.js"


@pytest.fixture
def axe_page(browser: Any, browser_context_args: dict[str, Any]) -> Any:
    # The pages' CSP allows no injected script: only this audit's context bypasses it.
    context = browser.new_context(**browser_context_args, bypass_csp=True)
    try:
        yield context.new_page()
    finally:
        context.close()


def serious_violations(page: Any, where: str) -> list[str]:
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate(
        """async () => {
            const r = await axe.run(document, { resultTypes: ['violations'] });
            return r.violations.map(v => `${v.id} (${v.impact}): ${v.help} — `
                + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
        }"""
    )
    return [f"{where}: {line}" for line in results]


def test_start_page_and_replay(axe_page: Any, base_url: str) -> None:
    page = axe_page
    page.goto("/")
    found = serious_violations(page, "start page")
    game_id, token = play_hotseat_to_the_end(base_url, page)
    page.goto(f"/play/{game_id}?seat={token}")
    page.locator("#final-dialog").wait_for()
    expect(page.locator("#final-dialog .help-button")).to_have_attribute("data-rules", "scoring")
    found += serious_violations(page, "final scores")
    page.goto(f"/replay/{game_id}?token={token}")
    expect(page.locator("#replay-step")).to_be_visible()
    found += serious_violations(page, "replay")
    assert found == []


def test_a_game_and_its_dialogs(axe_page: Any) -> None:
    page = axe_page
    # A guided game: the guide's panel is audited with the rest.
    page.goto("/")
    page.click("#start-guided")
    page.wait_for_url("**/play/**")
    page.locator("#keep-dialog").wait_for()
    expect(page.locator("#guide")).to_be_visible()
    found = serious_violations(page, "ticket dialog")
    keep_all(page)
    page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    found += serious_violations(page, "game")
    for _ in range(10):
        if page.locator("#route-list .route-btn").count():
            break
        page.click("#deck")
        page.wait_for_timeout(100)
        page.wait_for_function("() => document.body.dataset.myTurn === '1'", timeout=30000)
    buttons = page.locator("#route-list .route-btn")
    if buttons.count():
        page.locator("#route-list summary").click()
        buttons.first.click()
        page.locator("#claim-dialog").wait_for()
        found += serious_violations(page, "claim dialog")
    assert found == []


def test_the_tunnel_dialog(axe_page: Any, base_url: str) -> None:
    page = axe_page
    page.goto("/")
    game_id, token, _ = tunnel_pending(base_url, page)
    page.goto(f"/play/{game_id}?seat={token}")
    wait_state(page)
    page.locator("#pass-ready").click()
    page.locator("#tunnel-dialog").wait_for()
    found = serious_violations(page, "tunnel dialog")
    assert found == []
