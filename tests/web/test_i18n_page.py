"""The page's languages in Chromium: the browser's language by default, the picker (remembered),
the fixed text of the header in each language, and no header word outside the catalogues."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ttr_nordic.web.i18n import LANGUAGES, translate

from .conftest import shot
from .i18n_probe import untranslated, use_pseudo_language


@pytest.mark.parametrize(
    ("locale", "code"), [("de-DE", "de"), ("nb-NO", "nb"), ("no", "nb"), ("fi", "fi"), ("fr-FR", "en")]
)
def test_the_browser_language_is_the_default(
    browser: Any, browser_context_args: dict[str, Any], locale: str, code: str
) -> None:
    context = browser.new_context(**{**browser_context_args, "locale": locale})
    try:
        page = context.new_page()
        page.goto("/")
        expect(page.locator("html")).to_have_attribute("lang", code)
        expect(page.locator("#rules-open")).to_have_text(translate(code, "top.rules"))
        expect(page.locator("#lang-picker")).to_have_value(code)
    finally:
        context.close()


def test_the_picker_switches_and_remembers_the_language(page: Any) -> None:
    page.goto("/")
    picker = page.locator("#lang-picker")
    expect(picker.locator("option")).to_have_text(list(LANGUAGES.values()))
    picker.select_option("sv")
    expect(page.locator("html")).to_have_attribute("lang", "sv")
    expect(page.locator("#rules-open")).to_have_text("Regler")
    page.goto("/lobby")
    expect(page.locator("html")).to_have_attribute("lang", "sv")
    expect(page.locator(".skip-link")).to_have_text(translate("sv", "top.skip"))
    shot(page, "i18n-start-sv")


def test_an_unknown_language_is_a_one_line_error(page: Any, base_url: str) -> None:
    response = page.request.get(f"{base_url}/i18n/xx.json")
    assert response.status == 404
    message = response.json()["error"]["message"]
    assert re.fullmatch(r"no language 'xx' \(one of en, nb, sv, da, fi, de\)", message)


def test_the_header_has_no_word_outside_the_catalogues(page: Any) -> None:
    use_pseudo_language(page)
    page.goto("/")
    expect(page.locator("#rules-open")).to_contain_text("⟦")
    assert untranslated(page, root="header") == []
    assert untranslated(page, root=".skip-link") == []
