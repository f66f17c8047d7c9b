// Rule variants: the start page's "Rules" choice (the official rules, a variant the server ships,
// or a variant file the player uploads) and the game page's note of the rules in force. The
// server checks an upload with the engine's parser and answers a bad file with its one-line error.
import { api, el } from "./ui.js";
import { t } from "./i18n.js";

// The shipped variants' names in the page's language (a file's own name is shown as it is).
const LABELS = { official: "variant.official", "short-game": "variant.shortGame", "small-board": "variant.smallBoard" };
const UPLOAD = "upload";
/** The most an upload may weigh (the server's variants.MAX_UPLOAD_BYTES). */
const MAX_BYTES = 256 * 1024;

/** A variant's name as the pages show it: "short-game" → "Short game". */
// The shipped variants' descriptions in the page's language (a variant with another
// description under the same name, e.g. an upload, keeps its own words).
const ABOUT = { "short-game": "variant.shortGameAbout", "small-board": "variant.smallBoardAbout" };

/** A variant's description ({name, description, shipped}) in the page's language where it is shipped. */
export function variantAbout(variant) {
  return variant.shipped && ABOUT[variant.name] ? t(ABOUT[variant.name]) : variant.description || "";
}

export function variantLabel(name) {
  return LABELS[name] ? t(LABELS[name]) : name.replace(/[-_]+/g, " ").replace(/^./, (c) => c.toUpperCase());
}

let shippedList = null;
/** The variants the server ships (GET /api/variants), asked once per page. */
function shipped() {
  shippedList ??= api("/api/variants").then((data) => data.variants).catch(() => []);
  return shippedList;
}

/** A "Rules" field for a form, its ids starting with `prefix` (with `upload` false: the shipped variants
 * only). `value()` resolves to what POST /api/games takes as `variant` (null: the official rules), or
 * rejects saying what is missing. */
export function rulesChoice(prefix, { upload = true } = {}) {
  const select = el("select", { id: `${prefix}-variant`, name: `${prefix}-variant` },
    el("option", { value: "official", text: t("variant.official") }));
  const file = el("input", { type: "file", id: `${prefix}-variant-file`, accept: ".toml,.json", multiple: true,
    hidden: true, "aria-label": t("variant.fileLabel") });
  const about = el("p", { class: "hint variant-about", id: `${prefix}-variant-about`, "aria-live": "polite" });
  const descriptions = new Map();
  shipped().then((list) => {
    for (const v of list) {
      if (v.official) continue;
      descriptions.set(v.name, variantAbout(v));
      select.append(el("option", { value: v.name, text: variantLabel(v.name) }));
    }
    if (upload) select.append(el("option", { value: UPLOAD, text: t("variant.upload") }));
  });
  const sync = () => {
    file.hidden = select.value !== UPLOAD;
    about.textContent = select.value === UPLOAD
      ? (file.files.length ? [...file.files].map((f) => f.name).join(", ")
        : t("variant.fileHint"))
      : descriptions.get(select.value) || "";
  };
  select.addEventListener("change", sync);
  file.addEventListener("change", sync);
  sync();
  const node = el("div", { class: "variant-field" },
    el("label", { class: "field", for: select.id }, t("variant.rules"), select), file, about);

  async function value() {
    if (select.value === "official") return null;
    if (select.value !== UPLOAD) return select.value;
    const chosen = [...file.files];
    if (!chosen.length) throw new Error(t("variant.chooseFile"));
    const size = chosen.reduce((sum, f) => sum + f.size, 0);
    if (size > MAX_BYTES) throw new Error(t("variant.tooLarge", { kib: Math.ceil(size / 1024) }));
    const texts = await Promise.all(chosen.map(async (f) => ({ name: f.name, text: await f.text() })));
    // The variant is the TOML file, else the JSON one that is not a board (a board has "cities").
    const isBoard = (t) => { try { return "cities" in JSON.parse(t.text); } catch { return false; } };
    const main = texts.find((t) => /\.toml$/i.test(t.name)) || texts.find((t) => !isBoard(t)) || texts[0];
    const files = Object.fromEntries(texts.filter((t) => t !== main).map((t) => [t.name, t.text]));
    return { source: main.name, text: main.text, files };
  }
  return { node, value };
}

/** What variantNote needs, from a view's rules (`view.variant`) and the board drawn. */
export function rulesOf(rules, board) {
  if (!rules) return null;
  return { name: rules.name, description: variantAbout(rules), custom_board: Boolean(board.custom),
    official: rules.name === "official" && !board.custom };
}

/** The rules in force on the game and replay pages, when they are not the official ones (else null). */
export function variantNote(variant) {
  if (!variant || variant.official) return null;
  return el("p", { class: "variant-note", id: "variant-note", title: variantAbout(variant) || null },
    `${t("variant.note")} `, el("strong", { text: variantLabel(variant.name) }),
    ` · ${variant.custom_board ? t("variant.customBoard") : t("variant.nordicBoard")}`);
}
