// Chat at a game's table: players write (up to 300 characters, or a quick phrase), players and
// spectators read. Every message is put in the page as text, never as markup. A reader may
// mute a seat; the choice is kept in this browser (per game and seat).
import { api, el, errorMessage, toast } from "./ui.js";
import { t } from "./i18n.js";

const MUTED_KEY = "ttr-chat-muted"; // {gameId: [seat, ...]}
const POLL_MS = 2500;
// The quick phrases' keys (the server writes the message; the button is in the reader's language).
const PHRASES = ["hello", "gg", "wp", "thinking"];
// The server stores a quick phrase in English (server/chat.py PHRASES): each reader sees it in their language.
const PHRASE_OF_TEXT = { Hello: "hello", "Good game": "gg", "Well played": "wp", "Thinking…": "thinking" };
const shownText = (text) => (PHRASE_OF_TEXT[text] ? t(`chat.phrase_${PHRASE_OF_TEXT[text]}`) : text);

function mutedSeats(gameId) {
  try { return new Set((JSON.parse(localStorage.getItem(MUTED_KEY) || "{}") || {})[gameId] || []); } catch { return new Set(); }
}
function setMuted(gameId, seats) {
  let all = {};
  try { all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}") || {}; } catch { all = {}; }
  all[gameId] = [...seats];
  try { localStorage.setItem(MUTED_KEY, JSON.stringify(all)); } catch { /* storage off: for this page only */ }
}

/** The chat panel of a game: `token` (a seat's) lets the reader write; without it, read only. */
export function chatPanel(gameId, token = "") {
  const headers = token ? { "X-Game-Token": token } : {};
  const list = el("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
  const muted = mutedSeats(gameId);
  let messages = [];
  let last = 0;
  let timer = null;

  const input = el("input", { id: "chat-input", maxlength: "300", autocomplete: "off", placeholder: t("chat.placeholder"),
    "aria-label": t("chat.message") });
  const form = token ? el("form", { class: "chat-form", id: "chat-form" }, input,
    el("button", { type: "submit", text: t("chat.send") })) : null;
  const phrases = token ? el("div", { class: "chat-phrases" }, ...PHRASES.map((key) =>
    el("button", { type: "button", class: "chat-phrase", "data-phrase": key, text: t(`chat.phrase_${key}`),
      onclick: () => say({ phrase: key }) }))) : null;
  if (form) form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim()) say({ text: input.value }).then((ok) => { if (ok) input.value = ""; });
  });
  const node = el("section", { class: "panel chat", id: "chat", "aria-label": t("chat.title") },
    el("h2", { text: t("chat.title") }), list,
    token ? null : el("p", { class: "hint", text: t("chat.spectators") }), phrases, form);

  async function say(body) {
    try {
      await api(`/api/games/${encodeURIComponent(gameId)}/chat`, { method: "POST", body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", ...headers } });
      await poll();
      return true;
    } catch (err) { toast(errorMessage(err)); return false; }
  }

  function draw() {
    const shown = messages.filter((m) => !muted.has(m.seat));
    // The players' own words (names and messages) are not the page's text: the language check skips them.
    list.replaceChildren(...shown.map((m) => el("li", { class: "chat-message", "data-seat": m.seat },
      el("span", { class: "chat-author", "data-i18n-skip": "", text: m.author }), " ",
      el("span", { class: "chat-text", "data-i18n-skip": "", text: shownText(m.text) }), " ",
      el("button", { type: "button", class: "chat-mute link", text: t("chat.mute"), title: t("chat.muteTitle", { player: m.author }),
        onclick: () => { muted.add(m.seat); setMuted(gameId, muted); draw(); } }))));
    if (muted.size) {
      list.append(el("li", { class: "chat-muted hint" }, `${t("chat.muted", { count: muted.size })} `, el("button", { type: "button",
        class: "chat-unmute link", text: t("chat.unmute"), onclick: () => { muted.clear(); setMuted(gameId, muted); draw(); } })));
    }
    list.scrollTop = list.scrollHeight;
  }

  async function poll() {
    clearTimeout(timer);
    try {
      const data = await api(`/api/games/${encodeURIComponent(gameId)}/chat?after=${last}`, { headers });
      if (data.messages.length) {
        messages = messages.concat(data.messages).slice(-200);
        last = messages[messages.length - 1].id;
        draw();
      }
    } catch { /* the next poll tries again */ }
    if (document.body.contains(node)) timer = setTimeout(poll, POLL_MS);
  }
  setTimeout(poll, 0);
  return { node };
}
