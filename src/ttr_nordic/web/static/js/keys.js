// Keyboard shortcuts of the game page, and the dialog that lists them ("?").
import { dialog, el } from "./ui.js";

/** The shortcuts: key → [what it does, handler name]. Shown by "?". */
export const SHORTCUTS = [
  ["1 – 5", "take the face-up card in that slot"],
  ["D", "draw a card from the deck"],
  ["T", "draw destination tickets"],
  ["C", "claim a route: type a city name"],
  ["P", "pass (only when nothing else is possible)"],
  ["H", "hint: what the expert would do (games against the computer)"],
  ["+ / −", "zoom the map in or out (0: the whole map; arrows move it while a route has focus)"],
  ["R", "open the rules"],
  ["?", "show these shortcuts"],
  ["Esc", "close a dialog or the rules"],
];

let open = null;

export function showShortcuts() {
  if (open) return;
  const list = el("dl", { class: "shortcut-list", id: "shortcut-list" },
    SHORTCUTS.flatMap(([key, what]) => [el("dt", { text: key }), el("dd", { text: what })]));
  const close = el("button", { type: "button", class: "primary", id: "shortcuts-close", text: "Close" });
  const d = dialog("Keyboard shortcuts", list, [close], { className: "shortcuts-dialog" });
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
