// Shared helpers: element building, card colours and letters, toasts, dialogs, scoring table.
// The cards' pictures (CSS images drawn by art.js, shown by art.css) are installed on import.
import "./art.js";
import { validationText } from "./errors.js";
import { language, list, t } from "./i18n.js";

export const CARD_COLORS = {
  purple: "#8e44ad", white: "#f5f5f0", blue: "#2a6fdb", yellow: "#f2c500", orange: "#f28c28",
  black: "#222222", red: "#d62828", green: "#2f9e44", locomotive: "url(#loco-fill)", gray: "#a3a8ad",
};
// The engine's card letters (notation), also used as the colour-blind aid.
export const CARD_LETTERS = {
  purple: "P", white: "W", blue: "U", yellow: "Y", orange: "O", black: "K", red: "R", green: "G",
  locomotive: "L", gray: "·",
};
export const CARD_ORDER = ["purple", "white", "blue", "yellow", "orange", "black", "red", "green", "locomotive"];
export const DARK_CARDS = new Set(["purple", "blue", "black", "red", "green"]);
export const PLAYER_COLORS = ["#15b8cf", "#ff69b4", "#6b4423"];
export const PLAYER_INK = ["#06242a", "#3a0020", "#ffffff"];
export const PLAYER_MARKS = ["1", "2", "3"];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(node.style, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const SVG_NS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child) node.append(child);
  return node;
}

/** A card: its colour (its picture comes with it: art.css), its letter (the colour-blind aid) and an optional count. */
export function cardChip(color, count = null, extra = {}) {
  const classes = ["card", `card-${color}`, DARK_CARDS.has(color) ? "dark" : ""].join(" ");
  const name = t(`cards.${color}`);
  return el("span", { class: classes, title: name, ...extra },
    el("span", { class: "card-letter", "aria-hidden": "true", text: CARD_LETTERS[color] || "?" }),
    el("span", { class: "sr-only", text: name }),
    count === null ? null : el("span", { class: "card-count", text: `×${count}` }));
}

export function toast(message, kind = "error") {
  const box = document.getElementById("toasts");
  const item = el("div", { class: `toast toast-${kind}`, "data-testid": `toast-${kind}` }, message);
  box.append(item);
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 4000);
}

export async function api(path, options = {}) {
  const response = await fetch(path, {
    headers: { "Content-Type": "application/json" }, ...options,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const err = data.error || {};
    // The error's code lets a page put the server's message in plainer words.
    throw Object.assign(new Error(err.message || t("game.requestFailed", { status: response.status })),
      { code: err.code, details: err.details });
  }
  return data;
}

// The server's error codes the game's pages word in the page's language (game.error_<CODE>).
const ERROR_CODES = new Set(["BAD_ACTION", "STALE", "NOT_YOUR_SEAT", "BAD_TOKEN", "GAME_NOT_FOUND", "RATE_LIMITED",
  "HINTS_OFF", "HINT_BUSY", "HINT_FAILED", "NO_DECISION", "SEAT_HANDED_OVER", "WAITING_FOR_ACCOUNTS", "NOT_CREATOR",
  "STORAGE_ERROR", "NOT_PUBLIC", "CHAT_TOO_FAST", "CHAT_FULL", "PLAYERS_ONLY"]);

/**
 * An error from the server ({code, message}: an API error or a WebSocket "error") in the page's
 * language: a known code's message from the catalogue, else the server's own words. English keeps
 * the server's words (a refused move's message names the engine's reason).
 *
 *   errorMessage({ code: "CHAT_FULL", message: "this game's chat holds at most 500 messages" })
 *   -> "der Chat dieser Partie ist voll" (German)
 */
export function errorMessage(err) {
  const invalid = validationText(err);
  if (invalid) return invalid;
  return err && ERROR_CODES.has(err.code) && language() !== "en" ? t(`game.error_${err.code}`) : (err && err.message) || "";
}

/** Activate on Enter/Space for a non-button focusable element. */
export function keyActivate(node, handler) {
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      handler(event);
    }
  });
}

/** A modal-ish panel; returns {node, close}. Focus moves to its first control. */
export function dialog(title, body, actions, { className = "", modal = false } = {}) {
  const node = el("div", { class: `dialog ${className}`, role: "dialog", "aria-label": title, "aria-modal": modal },
    el("h2", { text: title }), body, el("div", { class: "dialog-actions" }, actions));
  const host = modal ? el("div", { class: "overlay" }, node) : node;
  document.body.append(host);
  const first = node.querySelector("input, button, a, [tabindex]");
  if (first) setTimeout(() => first.focus(), 0);
  return { node, close: () => host.remove() };
}

const COMPUTER_NAME = /^Computer (\d+) \((easy|medium|hard|expert)\)$/;

/** A computer level's name in the page's language: levelName("hard") -> "hard" / "schwer". */
export function levelName(level) {
  return ["easy", "medium", "hard", "expert"].includes(level) ? t(`game.level_${level}`) : level;
}

/** A seat's name: the player's own, else "Player 2" in the page's language; the name the server
 * gives a computer seat ("Computer 2 (hard)") is written in the page's language too. */
export function playerName(seats, index) {
  const name = seats && seats[index] && seats[index].name;
  if (!name) return t("game.playerN", { n: index + 1 });
  const computer = seats[index].kind === "ai" ? COMPUTER_NAME.exec(name) : null;
  return computer ? t("game.computerN", { n: Number(computer[1]), level: levelName(computer[2]) }) : name;
}

/** The end-of-game scoring table. */
export function scoringTable(result, seats) {
  const winners = new Set(result.winners);
  const table = el("div", { class: "scoring", "data-testid": "scoring" });
  const names = list(result.winners.map((w) => playerName(seats, w)));
  const how = { score: t("score.byPoints"), tickets: t("score.byTickets"), "longest path": t("score.byLongest"),
    shared: t("score.shared") }[result.decided_by] || result.decided_by;
  table.append(el("p", { class: "winner", "data-testid": "winner" },
    t("score.winners", { count: result.winners.length, names, how })));
  const grid = el("div", { class: "score-grid" });
  for (const p of result.players) {
    const card = el("section", { class: `score-card${winners.has(p.player) ? " won" : ""}`,
      style: { borderColor: PLAYER_COLORS[p.player] } });
    // The name may wrap on its own lines; the badge keeps its place at the top right.
    card.append(el("h3", {}, swatch(p.player), el("span", { class: "score-name", text: playerName(seats, p.player) }),
      winners.has(p.player) ? el("span", { class: "badge", text: `★ ${t("score.winner")}` }) : null));
    const rows = el("table", {},
      el("tr", {}, el("th", { text: t("score.routes") }), el("td", { text: p.route_points })));
    for (const tk of p.tickets) {
      rows.append(el("tr", { class: tk.completed ? "ok" : "fail" },
        el("th", {}, `${tk.completed ? "✓" : "✗"} ${tk.from} – ${tk.to}`),
        el("td", { text: tk.value > 0 ? `+${tk.value}` : String(tk.value) })));
    }
    rows.append(el("tr", {}, el("th", { text: t("score.globetrotter", { count: p.tickets_completed }) }),
      el("td", { text: p.globetrotter ? `+${p.globetrotter}` : "0" })));
    rows.append(el("tr", { class: "muted" }, el("th", { text: t("score.longest") }),
      el("td", { text: p.longest_path })));
    rows.append(el("tr", { class: "total" }, el("th", { text: t("score.total") }), el("td", { text: p.total })));
    card.append(rows);
    grid.append(card);
  }
  table.append(grid);
  return table;
}

/** A player's colour swatch with their number (the colour-blind aid). */
export function swatch(p, small = false) {
  return el("span", { class: `swatch${small ? " small" : ""}`, "data-p": p, style: { background: PLAYER_COLORS[p] } },
    PLAYER_MARKS[p]);
}
