"""Render bugs of the trial, each measured in real Chromium: a modal dialog's "?" sits inside the
dialog (it floated in the window's corner), the "★ winner" badge stays on the first line beside a
long name in a 3-player score card, and the rules panel's pictures pass under its sticky title."""

from __future__ import annotations

from typing import Any

from .conftest import RequestLog, shot

# The page's own modules build a modal dialog with a corner "?" and a 3-player scoring table.
FINAL_JS = """async () => {
  await (await import('/static/js/i18n.js')).loadLanguage('en'); // (the page may still be loading it)
  const ui = await import('/static/js/ui.js');
  const ticket = {from: 'Oslo', to: 'Bergen', completed: true, value: 7};
  const player = (p, total) => ({player: p, route_points: 20, tickets: [ticket], tickets_completed: 1, globetrotter: 0,
    longest_path: 9, total});
  const result = {winners: [1], decided_by: 'score', players: [player(0, 40), player(1, 55), player(2, 31)]};
  const seats = [{name: 'Ola'}, {name: 'Bartholomew Fitzwilliam-Strandqvist'}, {name: 'Kari'}];
  const d = ui.dialog('Final scores', ui.scoringTable(result, seats), [], {className: 'final', modal: true});
  const help = ui.el('button', {type: 'button', class: 'help-button corner', text: '?', 'aria-label': 'Help'});
  d.node.append(help);
  const box = (n) => { const b = n.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; };
  const won = d.node.querySelector('.score-card.won h3');
  return {dialog: box(d.node), help: box(help), h3: box(won), badge: box(won.querySelector('.badge')),
          line: parseFloat(getComputedStyle(won).lineHeight) || 1.2 * parseFloat(getComputedStyle(won).fontSize)};
}"""


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"]
        and inner["y"] >= outer["y"]
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"]
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"]
    )


def test_the_final_dialogs_help_and_the_winner_badge(page: Any, requests_seen: RequestLog) -> None:
    for width, height in ((1440, 900), (1366, 768), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/")
        boxes = page.evaluate(FINAL_JS)
        assert inside(boxes["help"], boxes["dialog"]), (width, boxes)
        # The badge is on the name's first line, in one piece.
        assert boxes["badge"]["y"] - boxes["h3"]["y"] < 0.5 * boxes["line"], (width, boxes)
        assert boxes["badge"]["h"] < 1.5 * boxes["line"], (width, boxes)
        shot(page, f"final-dialog-{width}x{height}")
    assert requests_seen.errors == []


def test_the_rules_pictures_pass_under_the_sticky_title(page: Any, requests_seen: RequestLog) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/")
    page.locator("#rules-open").click()
    panel = page.locator(".rules-panel")
    panel.wait_for()
    head = page.locator(".rules-head").bounding_box()
    assert head is not None
    # The card chips are positioned boxes: those are what painted over an unstacked sticky title.
    pictures = page.locator(".rules-panel .card")
    assert pictures.count() > 0
    # Scroll a picture to just under the title's top edge: what shows there is the title.
    picture_top = pictures.first.evaluate("(p) => p.getBoundingClientRect().top")
    panel.evaluate("(p, dy) => { p.scrollTop += dy; }", picture_top - head["y"] - 4)
    seen = page.evaluate(
        """() => { const h = document.querySelector('.rules-head').getBoundingClientRect();
             const p = document.querySelector('.rules-panel .card').getBoundingClientRect();
             const x = p.left + p.width / 2, y = Math.max(h.top, p.top) + 2;
             const under = p.top < h.bottom && p.bottom > h.top;
             return {under, inHead: Boolean(document.elementFromPoint(x, y)?.closest('.rules-head'))}; }"""
    )
    assert seen["under"], seen
    assert seen["inHead"], seen
    assert requests_seen.errors == []
