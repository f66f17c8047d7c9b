"""The replay's win chances: a line per player, step by step, from the value model; the key
moments (largest swings) take you to their step; a click on the chart goes to that step."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import RequestLog, shot
from .test_online_play import play_hotseat_to_the_end


def test_the_replay_draws_win_chances_and_key_moments(page: Any, base_url: str, requests_seen: RequestLog) -> None:
    game_id, token = play_hotseat_to_the_end(base_url, page)
    page.goto(f"/replay/{game_id}?seat={token}")
    expect(page.locator("#replay-step")).to_have_text(re.compile(r"Step 0 / \d+"))
    total = int(page.locator("#replay-step").inner_text().split("/")[1])
    chart = page.locator("#chances-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("polyline.chance-line")).to_have_count(2)
    # Each line has a point per step, from 50% each before the first move.
    points = chart.locator("polyline.chance-line").first.get_attribute("points").split()
    assert len(points) == total + 1
    expect(page.locator("#chances-now")).to_contain_text("Step 0:")
    expect(page.locator("#chances-now")).to_contain_text("Ola 50%")
    moments = page.locator("#key-moments li")
    assert 1 <= moments.count() <= 5
    first = moments.first.locator("button.moment")
    step = int(first.get_attribute("data-step"))
    first.click()
    expect(page.locator("#replay-step")).to_have_text(f"Step {step} / {total}")
    expect(page.locator("#chances-now")).to_contain_text(f"Step {step}:")
    expect(first).to_have_class(re.compile("here"))
    # The step marker follows; a click on the chart's right end goes to the last step.
    box = chart.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] - 0.25, box["y"] + box["height"] / 2)
    expect(page.locator("#replay-step")).to_have_text(f"Step {total} / {total}")
    assert float(page.locator("#chances-step").get_attribute("x1")) > 390
    expect(page.locator("#chances-now")).to_contain_text("100%")  # the end: the winner's
    shot(page, "replay-chances")
    assert requests_seen.errors == []
