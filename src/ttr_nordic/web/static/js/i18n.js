// The page's languages: message catalogues (static/i18n/<language>/<part>.json, served merged as
// /i18n/<language>.json), the browser's language by default, a picker, plurals and numbers by Intl.
//
// A message is looked up by "<part>.<key>" (the catalogue file's name, then the key in it):
//   t("top.rules")                  -> "Rules" / "Regler" / "Regeln"
//   t(key, { count: 3 })            a plural: the message is {"one": "{count} card", "other": "{count} cards"}
//   t(key, { player: "Ada" })       "{player} claimed ..." with the name put in
// Placeholders are written {name}; a number given as a placeholder is written the language's way.
// A key missing from a language falls back to English, then to the key itself (a test checks that
// every key is in every language, so neither happens in a release).

export const LANGUAGES = [
  ["en", "English"], ["nb", "Norsk bokmål"], ["sv", "Svenska"], ["da", "Dansk"], ["fi", "Suomi"], ["de", "Deutsch"],
];
const CODES = new Set(LANGUAGES.map(([code]) => code));
// Norwegian in any of its tags reads bokmål.
const ALIASES = { no: "nb", nn: "nb" };
export const STORAGE_KEY = "lang";

let current = "en";
let messages = {};
let english = {};
let rules = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

/** The language to use: the one chosen in this browser, else the first of the browser's own that
 * the page speaks, else English. `pickLanguage(null, ["sv-FI", "en"])` -> "sv". */
export function pickLanguage(stored, preferred) {
  if (stored && CODES.has(stored)) return stored;
  for (const tag of preferred || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    const code = ALIASES[base] || base;
    if (CODES.has(code)) return code;
  }
  return "en";
}

async function fetchCatalogue(code) {
  const response = await fetch(`/i18n/${code}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${code} (${response.status})`);
  return response.json();
}

/** Load the language to use (see pickLanguage) and mark the document with it. */
export async function loadLanguage(code = null) {
  let stored = null;
  try { stored = localStorage.getItem(STORAGE_KEY); } catch { /* storage may be off */ }
  const chosen = code || pickLanguage(stored, navigator.languages || [navigator.language]);
  english = await fetchCatalogue("en");
  messages = chosen === "en" ? english : await fetchCatalogue(chosen).catch(() => english);
  current = messages === english ? "en" : chosen;
  rules = new Intl.PluralRules(current);
  numbers = new Intl.NumberFormat(current);
  document.documentElement.lang = current;
  return current;
}

/** The language in use ("en", "nb", "sv", "da", "fi" or "de"). */
export function language() {
  return current;
}

/** A number written the language's way: num(1234.5) -> "1 234,5" in Swedish. */
export function num(value, options = undefined) {
  return options ? new Intl.NumberFormat(current, options).format(value) : numbers.format(value);
}

/** Items joined the language's way: list(["Ada", "Bo"]) -> "Ada and Bo" / "Ada og Bo". */
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(current, { style: "long", type }).format(items.map(String));
}

/** The message `key` in the language in use, its placeholders filled from `params`. */
export function t(key, params = {}) {
  let message = key in messages ? messages[key] : english[key];
  if (message === undefined) return key;
  if (typeof message === "object") {
    const count = Number(params.count ?? 0);
    message = message[rules.select(count)] ?? message.other;
  }
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/** Fill the page's fixed text: data-i18n="key" sets the text, data-i18n-attr="attr:key;attr:key"
 * sets attributes. */
export function applyStatic(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      if (attr && key) node.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}

/** The language picker: a select of the six languages, each in its own name; choosing one
 * remembers it in this browser and reloads the page in it. */
export function languagePicker() {
  const select = document.createElement("select");
  select.id = "lang-picker";
  select.className = "lang-picker";
  select.setAttribute("aria-label", t("top.language"));
  for (const [code, name] of LANGUAGES) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    option.selected = code === current;
    select.append(option);
  }
  select.addEventListener("change", () => {
    try { localStorage.setItem(STORAGE_KEY, select.value); } catch { /* storage may be off */ }
    location.reload();
  });
  return select;
}
