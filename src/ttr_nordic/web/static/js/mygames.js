// The games this browser took part in. There are no accounts: the browser keeps each game's
// seat token (and, for a game it created online, every seat's invite link) in localStorage,
// and the server answers summaries only to a holder of a token of that game.
import { api, el, playerName, toast } from "./ui.js";

const KEY = "ttr-my-games";

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) || "{}");
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch {
    return {};
  }
}

function save(games) {
  try { localStorage.setItem(KEY, JSON.stringify(games)); } catch { /* storage full or off: nothing to keep */ }
}

/** This browser's entry for a game: {token, mode, invites?, created, tokens}, or null. */
export function gameEntry(gameId) {
  return load()[gameId] || null;
}

/** Remember a game this browser plays: the first token it used stays its own seat's token
 *  (a creator who opens a friend's link to try it keeps their own seat). */
export function rememberGame(gameId, token, extra = {}) {
  const games = load();
  const entry = games[gameId] || { token, created: new Date().toISOString(), tokens: [] };
  if (!entry.tokens.includes(token)) entry.tokens.push(token);
  Object.assign(entry, extra);
  games[gameId] = entry;
  save(games);
  return entry;
}

export function forgetGame(gameId) {
  const games = load();
  delete games[gameId];
  save(games);
}

/** Every game and token this browser keeps: [{id, token}] (to move them to an account). */
export function heldTokens() {
  return Object.entries(load()).filter(([, e]) => e && e.token).map(([id, e]) => ({ id, token: e.token }));
}

/** Whether this browser keeps any game. */
export function hasGames() {
  return Object.keys(load()).length > 0;
}

/** The unfinished online game this browser created last ({id, invites, ...}), or null. */
export function latestCreated() {
  let best = null;
  for (const [id, entry] of Object.entries(load())) {
    if (entry && entry.creator && entry.invites && !entry.finished && (!best || entry.created > best.created)) {
      best = { id, ...entry };
    }
  }
  return best;
}

/** A token this browser holds for the game ("" when none). */
export function tokenFor(gameId) {
  const entry = gameEntry(gameId);
  return entry ? entry.token : "";
}

/** Request options carrying this browser's token of the game (records and replays are shown
 *  to a game's players only); a `?seat=TOKEN` in the page's address counts too. */
export function withToken(gameId) {
  const token = new URLSearchParams(location.search).get("seat") || tokenFor(gameId);
  return token ? { headers: { "X-Game-Token": token } } : {};
}

/** The full address of an invite: the one the server gave (the browser's own address, or the
 *  server's public URL), else this page's origin. */
export function inviteUrl(invite) {
  return invite.url || new URL(invite.path, location.origin).href;
}

/** The invite links of a game, one row per seat: name, the link (read-only), Copy, Open. */
export function inviteList(invites, { open = true } = {}) {
  const list = el("div", { class: "invites" });
  for (const inv of invites) {
    const url = inviteUrl(inv);
    const names = inv.names.join(", ");
    const input = el("input", { type: "text", readonly: true, value: url, class: "invite-link",
      "aria-label": `Invite link for ${names}`, "data-seat": inv.seats[0], onfocus: (e) => e.target.select() });
    const copy = el("button", { type: "button", class: "copy-link", text: "Copy", "aria-label": `Copy the link for ${names}`,
      onclick: async () => {
        input.select();
        try { await navigator.clipboard.writeText(url); }
        catch { document.execCommand("copy"); }
        toast(`Link for ${names} copied`, "info");
      } });
    list.append(el("div", { class: "invite" }, el("strong", { text: names }), input, copy,
      open ? el("a", { href: inv.path, class: "open-link", text: "Open", title: "Play this seat in this tab" }) : null));
  }
  return list;
}

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function describe(game) {
  const seats = game.seats;
  const names = seats.map((s) => s.name).join(" · ");
  if (game.status === "finished") {
    const winners = (game.winners || []).map((w) => playerName(seats, w)).join(" & ");
    return { names, state: winners ? `won by ${winners}` : "finished" };
  }
  const mine = new Set(game.mine);
  let state;
  if (game.current === null || game.current === undefined) state = "starting";
  else if (mine.has(game.current) && seats[game.current].kind === "human") {
    state = game.mode === "hotseat" ? `${playerName(seats, game.current)} to play` : "your turn";
  } else state = `waiting for ${playerName(seats, game.current)}`;
  return { names, state };
}

const MODES = { ai: "vs computer", hotseat: "pass and play", online: "online" };

/** The "Your games" section of the start page: games in progress (resume) and finished
 *  (replay) that this browser took part in, newest first. */
export function myGamesSection() {
  const section = el("section", { class: "my-games", id: "my-games", "aria-labelledby": "my-games-title" },
    el("h2", { id: "my-games-title", text: "Your games" }));
  const active = el("ul", { id: "my-active", class: "game-list" });
  const finished = el("ul", { id: "my-finished", class: "game-list" });
  const note = el("p", { class: "muted", id: "my-games-note", text: "Loading…" });
  section.append(note, el("h3", { text: "In progress" }), active, el("h3", { text: "Finished" }), finished);
  fill(note, active, finished);
  return section;
}

async function fill(note, active, finished) {
  const stored = load();
  const asked = Object.entries(stored).filter(([, e]) => e && e.token).map(([id, e]) => ({ id, token: e.token }));
  if (!asked.length) {
    note.textContent = "No games yet on this browser. Start one above: it will be listed here, to resume any time.";
    active.previousElementSibling.hidden = active.hidden = true;
    finished.previousElementSibling.hidden = finished.hidden = true;
    return;
  }
  let data;
  try {
    data = await api("/api/games/mine", { method: "POST", body: JSON.stringify({ games: asked.slice(-200) }) });
  } catch (err) {
    note.textContent = `Could not load your games: ${err.message}`;
    return;
  }
  // Games the server no longer knows (or whose token it refuses) are dropped from this browser.
  for (const id of data.unknown) forgetGame(id);
  note.textContent = "Kept by this browser only: open them here (or from the links you were sent).";
  const games = data.games.slice().sort((a, b) => (b.updated_at || "").localeCompare(a.updated_at || ""));
  for (const game of games) {
    const token = stored[game.id].token;
    const { names, state } = describe(game);
    const detail = el("span", { class: "muted", text: ` · ${MODES[game.mode] || game.mode} · ${when(game.updated_at)}` });
    if (game.status === "finished") {
      if (!stored[game.id].finished) rememberGame(game.id, token, { finished: true }); // its links are spent
      const li = el("li", { "data-game": game.id },
        el("a", { href: `/replay/${encodeURIComponent(game.id)}`, class: "replay-link", text: "Replay" }),
        ` ${names} — ${state}`, detail);
      // Only this browser forgets it: the game stays on the server, and its link still opens it.
      li.append(" ", el("button", { type: "button", class: "small forget", text: "Remove",
        "aria-label": `Remove ${names} from this list`, onclick: () => { forgetGame(game.id); li.remove(); } }));
      finished.append(li);
    } else {
      const turn = state === "your turn";
      const li = el("li", { "data-game": game.id, class: turn ? "turn" : "" },
        el("a", { href: `/play/${encodeURIComponent(game.id)}?seat=${encodeURIComponent(token)}`, class: "resume-link button",
          text: "Resume" }),
        ` ${names} — `, el("span", { class: turn ? "your-turn" : "", text: state }), detail);
      const invites = stored[game.id].invites;
      if (game.mode === "online" && invites && invites.length) {
        li.append(el("details", { class: "invite-details" }, el("summary", { text: "Invite links" }),
          inviteList(invites)));
      }
      active.append(li);
    }
  }
  if (!active.children.length) active.append(el("li", { class: "muted", text: "None." }));
  if (!finished.children.length) finished.append(el("li", { class: "muted", text: "None yet." }));
}
