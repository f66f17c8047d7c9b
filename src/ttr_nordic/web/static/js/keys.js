// Keyboard shortcuts of the game page, and the dialog that lists them ("?").
import { dialog, el } from "./ui.js";
import { t } from "./i18n.js";

/** The shortcuts: [key, what it does] in the page's language. Shown by "?". */
export function shortcuts() {
  return [
    ["1 – 5", t("game.key_faceUp")],
    ["D", t("game.key_deck")],
    ["T", t("game.key_tickets")],
    ["C", t("game.key_claim")],
    ["P", t("game.key_pass")],
    ["H", t("game.key_hint")],
    ["+ / −", t("game.key_zoom")],
    ["R", t("game.key_rules")],
    ["?", t("game.key_help")],
    [t("game.key_escName"), t("game.key_esc")],
  ];
}

let open = null;

export function showShortcuts() {
  if (open) return;
  const list = el("dl", { class: "shortcut-list", id: "shortcut-list" },
    shortcuts().flatMap(([key, what]) => [el("dt", { text: key }), el("dd", { text: what })]));
  const close = el("button", { type: "button", class: "primary", id: "shortcuts-close", text: t("game.close") });
  const d = dialog(t("game.shortcuts"), list, [close], { className: "shortcuts-dialog" });
  d.node.id = "shortcuts-dialog";
  open = d;
  close.addEventListener("click", closeShortcuts);
}

export function closeShortcuts() {
  if (open) { open.close(); open = null; }
}

/**
 * Listen for shortcut keys on the page. ``actions`` maps a key ("1"…"5", "d", "t", "c", "p", "r",
 * "?", "Escape") to a function; keys typed into a field, or with Ctrl, Alt or Meta, are left alone.
 */
export function installShortcuts(actions) {
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented) return;
    const target = e.target;
    // A text field or a list takes the keys; a checkbox or a radio button (a setting just
    // switched) does not, so D still draws right after.
    const typing = target instanceof HTMLElement && (target.isContentEditable
      || ["TEXTAREA", "SELECT"].includes(target.tagName)
      || (target instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(target.type)));
    if (e.key === "Escape") {
      if (open) { closeShortcuts(); e.preventDefault(); return; }
      if (actions.Escape) actions.Escape(e);
      return;
    }
    if (typing) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const handler = actions[key];
    if (handler) { e.preventDefault(); handler(e); }
  });
}
