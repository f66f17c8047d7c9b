// The games this browser took part in. There are no accounts: the browser keeps each game's
// seat token (and, for a game it created online, every seat's invite link) in localStorage,
// and the server answers summaries only to a holder of a token of that game.
import { api, el, playerName, toast } from "./ui.js";
import { errorText } from "./errors.js";
import { language, list as listOf, t } from "./i18n.js";

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
    const names = listOf(inv.names);
    const input = el("input", { type: "text", readonly: true, value: url, class: "invite-link",
      "aria-label": t("mygames.inviteLinkFor", { names }), "data-seat": inv.seats[0], onfocus: (e) => e.target.select() });
    const copy = el("button", { type: "button", class: "copy-link", text: t("mygames.copy"), "aria-label": t("mygames.copyFor", { names }),
      onclick: async () => {
        input.select();
        try { await navigator.clipboard.writeText(url); }
        catch { document.execCommand("copy"); }
        toast(t("mygames.copied", { names }), "info");
      } });
    list.append(el("div", { class: "invite" }, el("strong", { text: names }), input, copy,
      open ? el("a", { href: inv.path, class: "open-link", text: t("mygames.open"), title: t("mygames.openTitle") }) : null));
  }
  return list;
}

/** A date and time written by Intl in the language in use, as a <time> element (its words,
 *  such as a month's name, come from the browser, not from the catalogues). */
export function timeNode(iso, options = { dateStyle: "medium", timeStyle: "short" }) {
  const date = new Date(iso || "");
  if (Number.isNaN(date.getTime())) return null;
  return el("time", { datetime: date.toISOString(), "data-i18n-skip": "", text: date.toLocaleString(language(), options) });
}

function describe(game) {
  const seats = game.seats;
  const names = seats.map((s) => s.name).join(" · ");
  if (game.status === "finished") {
    const winners = listOf((game.winners || []).map((w) => playerName(seats, w)));
    return { names, state: winners ? t("mygames.wonBy", { winners }) : t("mygames.finishedState") };
  }
  const mine = new Set(game.mine);
  let state;
  let turn = false;
  if (game.current === null || game.current === undefined) state = t("mygames.starting");
  else if (mine.has(game.current) && seats[game.current].kind === "human") {
    turn = game.mode !== "hotseat";
    state = turn ? t("mygames.yourTurn") : t("mygames.toPlay", { player: playerName(seats, game.current) });
  } else state = t("mygames.waitingFor", { player: playerName(seats, game.current) });
  return { names, state, turn };
}

// A game's mode in words: t("mygames.mode.<mode>").
const MODES = ["ai", "hotseat", "online"];

/** The "Your games" section of the start page: games in progress (resume) and finished
 *  (replay) that this browser took part in, newest first. */
export function myGamesSection() {
  const section = el("section", { class: "my-games", id: "my-games", "aria-labelledby": "my-games-title" },
    el("h2", { id: "my-games-title", text: t("mygames.title") }));
  const active = el("ul", { id: "my-active", class: "game-list" });
  const finished = el("ul", { id: "my-finished", class: "game-list" });
  const note = el("p", { class: "muted", id: "my-games-note", text: t("top.loading") });
  section.append(note, el("h3", { text: t("mygames.inProgress") }), active, el("h3", { text: t("mygames.finished") }), finished);
  fill(note, active, finished);
  return section;
}

async function fill(note, active, finished) {
  const stored = load();
  const asked = Object.entries(stored).filter(([, e]) => e && e.token).map(([id, e]) => ({ id, token: e.token }));
  if (!asked.length) {
    note.textContent = t("mygames.none");
    active.previousElementSibling.hidden = active.hidden = true;
    finished.previousElementSibling.hidden = finished.hidden = true;
    return;
  }
  let data;
  try {
    data = await api("/api/games/mine", { method: "POST", body: JSON.stringify({ games: asked.slice(-200) }) });
  } catch (err) {
    note.textContent = t("mygames.loadFailed", { reason: errorText(err) });
    return;
  }
  // Games the server no longer knows (or whose token it refuses) are dropped from this browser.
  for (const id of data.unknown) forgetGame(id);
  note.textContent = t("mygames.kept");
  const games = data.games.slice().sort((a, b) => (b.updated_at || "").localeCompare(a.updated_at || ""));
  for (const game of games) {
    const token = stored[game.id].token;
    const { names, state, turn } = describe(game);
    const mode = MODES.includes(game.mode) ? t(`mygames.mode.${game.mode}`) : game.mode;
    const detail = el("span", { class: "muted" }, ` · ${mode} · `, timeNode(game.updated_at));
    if (game.status === "finished") {
      if (!stored[game.id].finished) rememberGame(game.id, token, { finished: true }); // its links are spent
      const li = el("li", { "data-game": game.id },
        el("a", { href: `/replay/${encodeURIComponent(game.id)}`, class: "replay-link", text: t("start.replay") }),
        ` ${names} — ${state}`, detail);
      // Only this browser forgets it: the game stays on the server, and its link still opens it.
      li.append(" ", el("button", { type: "button", class: "small forget", text: t("mygames.remove"),
        "aria-label": t("mygames.removeLabel", { names }), onclick: () => { forgetGame(game.id); li.remove(); } }));
      finished.append(li);
    } else {
      const li = el("li", { "data-game": game.id, class: turn ? "turn" : "" },
        el("a", { href: `/play/${encodeURIComponent(game.id)}?seat=${encodeURIComponent(token)}`, class: "resume-link button",
          text: t("mygames.resume") }),
        ` ${names} — `, el("span", { class: turn ? "your-turn" : "", text: state }), detail);
      const invites = stored[game.id].invites;
      if (game.mode === "online" && invites && invites.length) {
        li.append(el("details", { class: "invite-details" }, el("summary", { text: t("mygames.inviteLinks") }),
          inviteList(invites)));
      }
      active.append(li);
    }
  }
  if (!active.children.length) active.append(el("li", { class: "muted", text: t("mygames.noneActive") }));
  if (!finished.children.length) finished.append(el("li", { class: "muted", text: t("mygames.noneFinished") }));
}
