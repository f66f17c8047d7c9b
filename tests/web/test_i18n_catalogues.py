"""The message catalogues: every part and key in every language, the same placeholders, the
plural forms each language needs, and every key the page's code and HTML name exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ttr_nordic.web import STATIC
from ttr_nordic.web.i18n import (
    CATALOGUES,
    LANGUAGES,
    PLACEHOLDER,
    CatalogueError,
    Message,
    catalogue,
    parts,
    pick_language,
    translate,
)

OTHERS = [code for code in LANGUAGES if code != "en"]
# t("part.key" ...) with a literal key, in the page's modules.
KEY_IN_JS = re.compile(r"""\bt\(\s*["']([A-Za-z0-9_]+\.[A-Za-z0-9_.]+)["']""")
KEY_IN_HTML = re.compile(r"""data-i18n="([^"]+)\"""")


def placeholders(message: Message) -> set[str]:
    texts = message.values() if isinstance(message, dict) else [message]
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


def test_every_language_has_a_folder_and_the_same_parts() -> None:
    assert sorted(p.name for p in CATALOGUES.iterdir() if p.is_dir()) == sorted(LANGUAGES)
    english = set(parts("en"))
    for code in OTHERS:
        assert set(parts(code)) == english, code


@pytest.mark.parametrize("code", OTHERS)
def test_every_key_is_in_every_language(code: str) -> None:
    english, other = catalogue("en"), catalogue(code)
    assert sorted(set(english) - set(other)) == [], f"missing in {code}"
    assert sorted(set(other) - set(english)) == [], f"only in {code}"


@pytest.mark.parametrize("code", OTHERS)
def test_placeholders_match_english(code: str) -> None:
    english, other = catalogue("en"), catalogue(code)
    wrong = {
        key: (placeholders(english[key]), placeholders(other[key]))
        for key in english
        if key in other and placeholders(english[key]) != placeholders(other[key])
    }
    assert wrong == {}


@pytest.mark.parametrize("code", LANGUAGES)
def test_plurals_have_the_forms_of_the_language_and_no_empty_message(code: str) -> None:
    english = catalogue("en")
    for key, message in catalogue(code).items():
        if isinstance(message, dict):
            # The six languages' cardinal plurals: "one" and "other" (CLDR).
            assert set(message) == {"one", "other"}, (code, key)
            assert isinstance(english[key], dict), (code, key, "a plural only in this language")
            assert all(text.strip() for text in message.values()), (code, key)
        else:
            assert not isinstance(english[key], dict), (code, key, "a plural in English only")
            assert message.strip(), (code, key)


def test_every_key_the_page_names_exists() -> None:
    english = catalogue("en")
    named: set[str] = set()
    for path in (STATIC / "js").glob("*.js"):
        named |= set(KEY_IN_JS.findall(path.read_text(encoding="utf-8")))
    named |= set(KEY_IN_HTML.findall((STATIC / "index.html").read_text(encoding="utf-8")))
    assert named, "the page names no message"
    assert sorted(named - set(english)) == []


def test_translate_fills_placeholders_plurals_and_numbers(tmp_path: Path) -> None:
    assert translate("de", "top.rules") == "Regeln"
    assert translate("xx", "top.rules") == "Rules"  # an unknown language reads English
    with pytest.raises(KeyError):
        translate("en", "top.no_such_message")


def test_the_browser_language_is_picked_from_accept_language() -> None:
    assert pick_language("nn-NO,en;q=0.5") == "nb"
    assert pick_language("de-AT") == "de"
    assert pick_language("fr-FR,fi;q=0.7") == "fi"
    assert pick_language("") == "en"
    assert pick_language(None) == "en"


def test_a_broken_catalogue_is_named_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ttr_nordic.web import i18n

    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "top.json").write_text('{"rules": ', encoding="utf-8")
    monkeypatch.setattr(i18n, "CATALOGUES", tmp_path)
    with pytest.raises(CatalogueError, match=r"^top\.json: ") as err:
        i18n.parts("en")
    assert "\n" not in str(err.value)
    (tmp_path / "en" / "top.json").write_text(json.dumps({"rules": 3}), encoding="utf-8")
    with pytest.raises(CatalogueError, match="rules: a message is a string"):
        i18n.parts("en")


def test_the_chat_page_knows_every_quick_phrase_the_server_writes() -> None:
    from ttr_nordic.server.chat import PHRASES

    chat_js = (STATIC / "js" / "chat.js").read_text(encoding="utf-8")
    english = catalogue("en")
    for key, text in PHRASES.items():
        assert english[f"chat.phrase_{key}"] == text
        assert re.search(rf'"?{re.escape(text)}"?: "{key}"', chat_js), (key, text)


def test_the_shipped_variants_descriptions_are_worded_in_every_language() -> None:
    # English says what each shipped variant's file says; every other language has its own words.
    from ttr_nordic.server.variants import shipped

    english = catalogue("en")
    keys = {"short-game": "variant.shortGameAbout", "small-board": "variant.smallBoardAbout"}
    assert set(keys) == {name for name in shipped() if name != "official"}
    for name, key in keys.items():
        assert english[key] == shipped()[name].description
        for code in OTHERS:
            assert catalogue(code)[key] != english[key], (code, key)


def test_the_page_words_every_reason_a_rated_game_was_left_unrated() -> None:
    # The server sends a code beside its sentence; account.js maps each code to a message whose
    # English is the server's sentence.
    from ttr_nordic.server.ratings import UNRATED_REASONS

    account_js = (STATIC / "js" / "account.js").read_text(encoding="utf-8")
    table = re.search(r"const UNRATED = \{(.*?)\};", account_js, re.S)
    assert table is not None
    mapped = dict(re.findall(r'(\w+): "([\w.]+)"', table.group(1)))
    assert set(mapped) == set(UNRATED_REASONS)
    english = catalogue("en")
    for code, key in mapped.items():
        assert english[key] == UNRATED_REASONS[code]


def test_every_coded_refusal_of_a_field_is_worded_in_every_language() -> None:
    # player_text.py refuses a name or a chat line with a code (PydanticCustomError's type) and
    # numbers (its context): errors.<CODE> exists in every language with those placeholders.
    source = (Path(__file__).resolve().parents[2] / "src/ttr_nordic/server/player_text.py").read_text()
    coded = re.findall(r'PydanticCustomError\("(\w+)", "([^"]*)"', source)
    assert len(coded) == 5
    for code, sentence in coded:
        assert catalogue("en")[f"errors.{code}"] == sentence
        for language in LANGUAGES:
            assert placeholders(catalogue(language)[f"errors.{code}"]) == set(PLACEHOLDER.findall(sentence))
