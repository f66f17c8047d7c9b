// The game page: map, panels, dialogs, live WebSocket with automatic reconnection.
import { installShortcuts, showShortcuts } from "./keys.js";
import { chatPanel } from "./chat.js";
import { rematchOffer } from "./rematch.js";
import { buildMap, loadMapData } from "./map.js";
import { closeRules, helpButton, openRules, rulesOpen } from "./rules.js";
import { makeZoomable } from "./zoom.js";
import { cardsOf, paymentWords, splitPayments } from "./payments.js";
import { ticketPath } from "./progress.js";
import { makeFlier } from "./fly.js";
import { makeGuide } from "./guide.js";
import { makePhoneDock } from "./dock.js";
import { onlineFeatures } from "./online.js";
import { hintText } from "./hint-text.js";
import { ratedNotice, showRatingChange } from "./account.js";
import { cardBack } from "./art.js";
import { soundCues, volumeControl } from "./sound.js";
import { ceremonySeen, rematchButton, runCeremony } from "./ceremony.js";
import { makeClockPanel } from "./clock.js";
import { variantNote } from "./variant.js";
import {
  swatch, CARD_LETTERS, CARD_ORDER, PLAYER_COLORS, PLAYER_MARKS, api, cardChip, dialog, el, errorMessage, keyActivate, levelName, playerName,
  scoringTable, toast,
} from "./ui.js";
import { t } from "./i18n.js";
import { colourName, logLine, phaseText, routeSize } from "./words.js";

const LETTER_COLOR = Object.fromEntries(Object.entries(CARD_LETTERS).map(([c, l]) => [l, c]));

/** Card chips for a notation payment such as "OOL". */
export function paymentChips(letters) {
  const counts = new Map();
  for (const ch of letters) counts.set(LETTER_COLOR[ch], (counts.get(LETTER_COLOR[ch]) || 0) + 1);
  return el("span", { class: "chips" }, [...counts].map(([c, n]) => cardChip(c, n)));
}

export async function gamePage(app, gameId, token) {
  app.replaceChildren(el("p", { class: "loading", text: t("game.loadingBoard") }));
  app.className = "game-page";
  let summary;
  let data;
  try {
    [data, summary] = await Promise.all([loadMapData(`/api/games/${encodeURIComponent(gameId)}/board`), api(`/api/games/${encodeURIComponent(gameId)}`)]);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: t("game.notFound") }),
      el("p", { text: errorMessage(err) }), el("a", { href: "/", text: t("game.backToStart") })));
    return;
  }
  const board = data.board;
  const routeByCode = new Map(board.routes.map((r) => [r.code, r]));
  const hotseat = summary.mode === "hotseat";

  let msg = null; // last "state" message (its view.log: the whole log, see logEntries)
  let logEntries = []; // the log of the seat shown, put together from the state messages
  let result = null; // game_over message
  let revealed = null; // hotseat: the seat whose hand may be shown
  let openDialog = null; // {key, close}
  let ws = null;
  let retry = 0;
  let fatal = false;
  let scoringShown = false;
  let sawPlay = false; // a state of the game in play was shown: its end happens in front of the player
  let ceremony = null; // the final-scoring ceremony while it runs
  let hoverTicket = null;

  const map = buildMap(data, { onRoute: (id) => clickRoute(id), onCity: (id) => clickCity(id),
    onHover: (id, x, y) => routeTip(id, x, y) });
  const tip = el("div", { class: "route-tip", id: "route-tip", role: "tooltip", hidden: true });
  document.body.append(tip);

  /** Hovering or focusing a route: its length, colour, kind, points, owner, and the payments you can make now. */
  function routeTip(id, x, y) {
    if (id === null || id === undefined || !msg) { tip.hidden = true; return; }
    const r = board.routes[id];
    const owner = msg.view.route_owner[id];
    const kind = r.kind === "tunnel" ? t("map.tunnel") : r.ferry_locomotives
      ? t("map.ferryTip", { count: r.ferry_locomotives }) : r.kind === "special" ? t("map.special", { count: r.group }) : "";
    const pays = claimsFor(r.code);
    tip.replaceChildren(...[
      el("strong", { text: r.name }),
      el("div", { text: `${routeSize(r)}${kind ? ` · ${kind}` : ""} · ${t("map.points", { count: r.points })}` }),
      el("div", { class: "muted", text: owner !== null && owner !== undefined
        ? t("map.claimedBy", { player: playerName(seats(), owner) }) : pays.length ? t("map.canClaim") : t("map.free") }),
      pays.length ? el("div", { class: "tip-pays" }, pays.slice(0, 6).map((a) =>
        el("div", {}, paymentChips(a.action.split(" ")[2] || "")))) : null].filter(Boolean));
    tip.hidden = false;
    const left = Math.min(window.innerWidth - tip.offsetWidth - 8, Math.max(8, x + 12));
    const top = Math.min(window.innerHeight - tip.offsetHeight - 8, Math.max(8, y + 12));
    tip.style.left = `${left}px`;
    tip.style.top = `${top}px`;
  }
  const status = el("div", { class: "status", id: "status", "aria-live": "polite", tabindex: -1 });
  const conn = el("span", { class: "conn", id: "conn", text: t("game.connecting") });
  const mapWrap = el("div", { class: "map-wrap" }, map.root);
  const zoom = makeZoomable(map.root, mapWrap);
  // A tooltip points at a route: once the view moves it points at nothing.
  map.root.addEventListener("viewchange", () => { tip.hidden = true; });
  mapWrap.append(zoom.controls);
  const players = el("section", { class: "panel players", id: "players", "aria-label": t("game.players") });
  const clocks = makeClockPanel();
  const market = el("section", { class: "panel market", id: "market", "aria-label": t("game.cardsToDraw") });
  const hand = el("section", { class: "panel hand", id: "hand", "aria-label": t("game.yourHand") });
  const tickets = el("section", { class: "panel tickets", id: "tickets", "aria-label": t("game.yourTickets") });
  const routeList = el("section", { class: "panel route-list", id: "route-list", "aria-label": t("game.routesToClaim") });
  const log = el("section", { class: "panel log", id: "log", "aria-label": t("game.moves") });
  // Always in view at the top of the side panel: what the others did since your last move.
  const recent = el("section", { class: "panel recent", id: "recent", "aria-label": t("game.latest"), "aria-live": "polite" });
  const animSetting = el("select", { id: "anim-speed", "aria-label": t("game.animSpeed") },
    ["normal", "fast", "off"].map((v) => el("option", { value: v, text: t(`game.anim_${v}`) })));
  animSetting.value = localStorage.getItem("ttr-anim") || "normal";
  const applyAnim = () => {
    document.body.dataset.anim = animSetting.value;
    document.body.style.setProperty("--anim-car", animSetting.value === "fast" ? "0.08s" : "0.25s");
  };
  animSetting.addEventListener("change", () => { localStorage.setItem("ttr-anim", animSetting.value); applyAnim(); });
  applyAnim();
  // Confirm before claiming: on, a click on a route always opens the claim dialog; off, a route
  // with one way to pay is claimed at once (the dialog still opens to choose between payments).
  const confirmSetting = el("input", { type: "checkbox", id: "confirm-claims",
    checked: localStorage.getItem("ttr-confirm-claims") !== "0" });
  confirmSetting.addEventListener("change", () => localStorage.setItem("ttr-confirm-claims", confirmSetting.checked ? "1" : "0"));
  // Hints (games against the computer): a button that asks what the expert would do; can be switched off.
  const aiGame = summary.mode === "ai";
  const hintSetting = el("input", { type: "checkbox", id: "hints-setting", checked: localStorage.getItem("ttr-hints") !== "0" });
  const hintButton = el("button", { type: "button", class: "small", id: "hint-button", hidden: true,
    title: t("game.hintTitle"), onclick: () => askHint() }, t("game.hint"));
  const hintBox = el("div", { class: "hint-box", id: "hint", hidden: true, "aria-live": "polite" });
  // The hint button floats on the map's bottom left (open sea): no extra height in the panels,
  // where a phone has no pixel to spare.
  mapWrap.append(hintButton);
  let hint = null; // {actions, action} of the hint shown, or {actions, waiting: true}
  hintSetting.addEventListener("change", () => {
    localStorage.setItem("ttr-hints", hintSetting.checked ? "1" : "0");
    if (!hintSetting.checked) hint = null;
    renderHint();
  });
  const settings = el("div", { class: "settings", id: "settings" },
    el("label", { class: "anim-setting" }, `${t("game.animations")} `, animSetting),
    el("label", { class: "anim-setting", title: t("game.confirmTitle") },
      confirmSetting, ` ${t("game.confirmClaims")}`),
    aiGame ? el("label", { class: "anim-setting", title: t("game.hintsTitle") },
      hintSetting, ` ${t("game.hints")}`) : null, volumeControl());
  // An online game plays the your-turn sound through its own "Sound on my turn" switch (notify.js).
  const sounds = soundCues({ turn: summary.mode !== "online" });
  const flier = makeFlier();
  let flownUpTo = null; // log entries up to here were shown (or were there when the page opened)
  const cityIdByName = new Map(board.cities.map((c) => [c.name, c.id]));
  let shownOwners = null; // the route owners drawn last, to animate what changed
  const online = onlineFeatures({ gameId, token, summary,
    send: (message) => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message)); } });
  // Online: who is at the table goes with the players; elsewhere the signal switches go last.
  const atTable = summary.mode === "online" ? online.panel : null;
  const guide = makeGuide(gameId);
  const side = el("aside", { class: "side" }, el("div", { class: "status-row" }, status, conn), variantNote(summary.variant), hintBox,
    guide.node, recent,
    // The cards to draw, your hand and your tickets dock at the bottom of the window on a laptop:
    // in view however tall the hint, the guide and the news above them grow (style.css).
    players, clocks.panel, atTable, el("div", { class: "dock", id: "dock" }, market, hand, tickets), routeList, log,
    atTable ? null : online.panel, summary.mode === "online" ? chatPanel(gameId, token).node : null);
  const phoneDock = makePhoneDock(tickets); // a phone: the hand and a tickets button docked at the bottom
  // The page's one level-one heading, for screen readers' heading navigation (the map says the rest).
  app.replaceChildren(el("h1", { class: "sr-only", text: t("game.heading") }),
    // The panel comes first in the Tab order (the cards a few stops away, not after 100 routes);
    // the map is still drawn first on the screen (style.css).
    el("div", { class: "game" }, side, mapWrap));
  if (summary.mode === "online") ratedNotice(gameId, side, summary.seats); // rated: who must still sign in
  const passScreen = el("div", { class: "pass-screen", id: "pass-screen", hidden: true });
  document.body.append(passScreen);

  // ---- connection -------------------------------------------------------------------------
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}?token=${encodeURIComponent(token)}${summary.mode === "online" ? "&presence=1" : ""}`);
    ws.onopen = () => { retry = 0; conn.textContent = t("game.live"); conn.className = "conn ok"; };
    ws.onmessage = (event) => {
      const m = JSON.parse(event.data);
      if (m.type === "state") {
        // A state carries the log only from entry log_start on: the entries before it are the
        // ones this connection was sent already (all of them after connecting).
        const start = m.log_start || 0;
        if (start > logEntries.length) { ws.send(JSON.stringify({ type: "view", seat: m.seat })); return; }
        if (start < logEntries.length) logEntries = logEntries.slice(0, start);
        for (const entry of m.view.log) logEntries.push(entry);
        m.view.log = logEntries;
        msg = m;
        sentAt = null;
        render();
        if (queued) { const next = queued; queued = null; if (has(next)) send(next); }
      }
      else if (m.type === "game_over") { result = m; render(); }
      else if (m.type === "presence") online.presence(m.present);
      else if (m.type === "hint") { if (msg && m.actions === msg.actions) { hint = m; renderHint(); } }
      else if (m.type === "error") {
        sentAt = null;
        queued = null;
        if (m.code && m.code.startsWith("HINT") && hint && hint.waiting) { hint = null; renderHint(); }
        toast(errorText(m));
        if (["BAD_TOKEN", "GAME_NOT_FOUND", "NOT_YOUR_SEAT"].includes(m.code)) fatal = true;
      }
    };
    ws.onclose = (event) => {
      sentAt = null;
      queued = null;
      conn.className = "conn down";
      if (fatal || [4401, 4403, 4404].includes(event.code)) {
        conn.textContent = t("game.closed");
        status.textContent = t("game.badLink");
        return;
      }
      conn.textContent = t("game.reconnecting");
      retry += 1;
      setTimeout(connect, Math.min(5000, 300 * retry));
    };
  }
  // A second click before the answer to the first (a quick double tap on the deck to draw two
  // cards) waits for that answer, then goes if it is still possible: never a STALE error.
  let sentAt = null; // msg.actions when an action was sent and not yet answered
  let queued = null;
  function send(action) {
    if (!ws || ws.readyState !== WebSocket.OPEN) { toast(t("game.notConnected")); return; }
    if (sentAt !== null && sentAt === msg.actions) { queued = action; return; }
    sentAt = msg.actions;
    // "expected": the number of actions this page saw, so a stale click (another tab of this
    // seat acted meanwhile) is refused instead of acting twice.
    ws.send(JSON.stringify({ type: "act", action, seat: msg.seat, expected: msg.actions }));
  }
  // for tests and the curious: the live socket, and sending a raw action
  window.ttrDebug = { socket: () => ws, send };
  setInterval(() => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" })); }, 25000);
  connect();

  // ---- helpers -----------------------------------------------------------------------------
  const legal = () => (msg ? msg.legal : []);
  const has = (action) => legal().some((a) => a.action === action);
  const claimsFor = (code) => legal().filter((a) => a.action.startsWith(`C ${code} `));
  const privateHidden = () => hotseat && !result && revealed !== msg.seat;
  const seats = () => (msg ? msg.seats : summary.seats);

  const named = (entry) => logLine(entry, board, seats());
  // The server's error in the page's language when its code is known (the code stays for reports).
  const errorText = (m) => `${errorMessage(m)}${m.code ? ` (${m.code})` : ""}`;

  function closeDialog() { if (openDialog) { openDialog.close(); openDialog = null; } }
  function showDialog(key, make) {
    if (openDialog && openDialog.key === key) return;
    closeDialog();
    const d = make();
    openDialog = { key, close: d.close };
  }

  // ---- rendering ---------------------------------------------------------------------------
  function render() {
    if (!msg) return;
    const focusBefore = document.activeElement;
    const view = msg.view;
    document.body.dataset.actions = String(msg.actions);
    document.body.dataset.myTurn = view.is_my_turn && legal().length ? "1" : "0";
    document.body.dataset.seat = String(msg.seat);
    map.setOwners(view.route_owner);
    const claimable = new Set(legal().filter((a) => a.action.startsWith("C ")).map((a) => a.action.split(" ")[1]));
    map.setClass("claimable", [...claimable].map((c) => routeByCode.get(c).id));
    map.root.classList.toggle("choosing", claimable.size > 0 && !privateHidden());
    const since = sinceLastMove(view);
    map.setClass("last-move", since.claims);
    if (shownOwners && animSetting.value !== "off") {
      const placed = view.route_owner.map((o, i) => (o !== null && o !== undefined && shownOwners[i] === null
        && (o !== msg.seat || hotseat) ? i : -1)).filter((i) => i >= 0);
      map.animatePlaced(placed);
    }
    shownOwners = view.route_owner.map((o) => (o === undefined ? null : o));
    renderRecent(view, since);
    renderStatus(view);
    renderPlayers(view);
    clocks.update(result ? null : msg.clock, seats());
    renderMarket(view);
    renderPrivate(view);
    phoneDock.update(view, { board, seat: msg.seat, hidden: privateHidden() });
    renderRouteList(claimable);
    markTicketCities(view);
    renderLog(view);
    flyDraws(view);
    sounds.update({ log: view.log, mine: Boolean(view.is_my_turn && legal().length), seat: msg.seat,
      tunnel: view.tunnel, finalTurnsLeft: view.final_turns_left, over: Boolean(result) });
    renderPass();
    renderDialogs(view);
    // A phone shows a dialog over the side panel: the guide then floats at the top (style.css).
    document.body.classList.toggle("dialog-open", Boolean(document.querySelector(".dialog")));
    renderHint();
    if (!result && view.phase !== "GAME_OVER") sawPlay = true;
    if (result && !scoringShown) finalScoring();
    online.update(msg, result);
    guide.update({ view, legal: legal(), claimable, since, result, hidden: privateHidden(), routeByCode });
    keepFocus(focusBefore);
  }

  /** Ask the server what the expert would do now (searched on this seat's view only). */
  function askHint() {
    if (!aiGame || !hintSetting.checked || !msg || !view().is_my_turn || !legal().length || result) return;
    if (hint && hint.actions === msg.actions) return; // asked already for this decision
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    hint = { actions: msg.actions, waiting: true };
    ws.send(JSON.stringify({ type: "hint", seat: msg.seat }));
    renderHint();
  }
  const view = () => msg.view;

  /** The hint for the current decision: its words, and its place marked on the page. */
  function renderHint() {
    const mine = aiGame && hintSetting.checked && msg && msg.view.is_my_turn && legal().length > 0 && !result;
    hintButton.hidden = !mine;
    if (hint && (!msg || hint.actions !== msg.actions || !mine)) hint = null;
    document.querySelectorAll(".hinted").forEach((n) => n.classList.remove("hinted"));
    map.setClass("hint");
    hintBox.hidden = !hint;
    hintButton.disabled = Boolean(hint);
    if (!hint) return;
    if (hint.waiting) { hintBox.replaceChildren(el("span", { class: "muted", text: t("game.thinking") })); return; }
    const entry = legal().find((a) => a.action === hint.action);
    // The words come from the hint's data (move and reasons); an older server sends the move only.
    const words = hint.why ? hintText(hint.why, (seat) => playerName(seats(), seat)) : entry ? entry.label : hint.action;
    hintBox.replaceChildren(el("strong", { text: `${t("game.expertWould")} ` }), words);
    const action = hint.action;
    if (action.startsWith("C ")) map.setClass("hint", [routeByCode.get(action.split(" ")[1]).id]);
    const target = /^F[1-9]$/.test(action) ? document.querySelector(`button.faceup[data-slot="${action.slice(1)}"]`)
      : action === "B" ? document.getElementById("deck") : action === "T" ? document.getElementById("draw-tickets") : null;
    if (target) target.classList.add("hinted");
  }

  /** The other players' draws since the last render fly from the deck, the display or the ticket pile to them. */
  function flyDraws(view) {
    const entries = view.log;
    if (flownUpTo === null || flownUpTo > entries.length) { flownUpTo = entries.length; return; }
    const speed = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "off" : animSetting.value;
    for (let i = flownUpTo; i < entries.length; i++) {
      const e = entries[i];
      if (!hotseat && e.player !== null && e.player !== undefined && e.player >= 0 && e.player !== msg.seat) {
        flier.fly(e, e.player, speed);
      }
    }
    flownUpTo = entries.length;
  }

  /** Your tickets' cities ringed on the map; those of completed tickets filled green. */
  function markTicketCities(view) {
    if (privateHidden()) { map.setClass("ticket-city"); map.setClass("ticket-done"); return; }
    const open = new Set();
    const done = new Set();
    for (const t of view.tickets) {
      for (const name of [t.from, t.to]) (t.completed ? done : open).add(cityIdByName.get(name));
    }
    for (const id of open) done.delete(id);
    map.setClass("ticket-city", [], [...open]);
    map.setClass("ticket-done", [], [...done]);
  }

  /** After a re-render removed the focused control, put focus where the next action is. While
   * nothing can be done (the others' turn) focus waits on the status line, and comes back to the
   * controls when it is this player's turn again. */
  let focusParked = false;
  function nextControl() {
    const dialogNode = document.querySelector(".dialog");
    if (dialogNode) return dialogNode.querySelector("input:not([disabled]), button:not([disabled])");
    return [document.getElementById("deck"), ...document.querySelectorAll("button.faceup"),
      document.getElementById("draw-tickets")].find((b) => b && !b.disabled) || null;
  }
  function keepFocus(before) {
    const active = document.activeElement;
    if (focusParked && active === status) {
      const next = nextControl();
      if (next) { next.focus({ preventScroll: true }); focusParked = false; }
      return;
    }
    focusParked = false;
    // Only when the re-render removed the control that had focus (never on load or after a blur).
    if (!before || before === document.body || document.contains(before)) return;
    if (active && active !== document.body && document.contains(active)) return;
    const next = nextControl();
    if (next) next.focus({ preventScroll: true });
    else { status.focus({ preventScroll: true }); focusParked = true; }
  }

  function renderStatus(view) {
    const names = seats();
    let text;
    const phase = phaseText(view);
    if (result) text = t("game.over");
    else if (view.is_my_turn && legal().length) {
      text = hotseat ? t("game.namedTurn", { player: playerName(names, msg.seat), phase }) : t("game.yourTurn", { phase });
    } else if (view.current !== null && view.current !== undefined) {
      text = t("game.waitingFor", { player: playerName(names, view.current), phase });
    } else text = phase;
    if (view.final_turns_left !== null && view.final_turns_left >= 0 && !result) {
      text += ` · ${t("game.finalRound", { count: view.final_turns_left })}`;
    }
    status.replaceChildren(el("strong", { text }));
    status.classList.toggle("mine", !!(view.is_my_turn && legal().length));
    if (result) status.append(" ", el("button", { type: "button", id: "show-scores", text: t("game.showScores"), onclick: showScoring }));
  }

  function renderPlayers(view) {
    const names = seats();
    // After the end the table shows the final totals (routes, tickets and Globetrotter), and nobody is to play.
    const final = result ? new Map(result.result.players.map((r) => [r.player, r.total])) : null;
    const rows = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: t("game.player") }),
      el("th", { text: final ? t("game.total") : t("game.score") }),
      el("th", { text: t("game.trains") }), el("th", { text: t("game.cards") }), el("th", { text: t("game.tickets") }))));
    const body = el("tbody");
    for (let p = 0; p < view.num_players; p++) {
      const s = names[p] || {};
      const base = playerName(names, p);
      const who = s.kind === "ai" && s.name && !s.name.includes(s.level)
        ? t("game.aiSeat", { player: base, level: levelName(s.level) }) : base;
      const current = view.current === p && !final;
      body.append(el("tr", { class: `${current ? "current" : ""}${p === msg.seat ? " me" : ""}`, "data-player": p },
        el("td", {}, swatch(p), " ", who,
          current ? el("span", { class: "turn-mark", title: t("game.toPlay"), text: " ◀" }) : null),
        el("td", { class: "score", text: final ? final.get(p) : view.scores[p] }), el("td", { text: view.trains[p] }),
        el("td", { text: view.hand_sizes[p] }), el("td", { text: view.ticket_counts[p] })));
    }
    rows.append(body);
    players.replaceChildren(el("h2", { text: t("game.players") }), rows);
  }

  function renderMarket(view) {
    const faceup = el("div", { class: "faceup-row" });
    view.display.forEach((card, slot) => {
      const action = `F${slot + 1}`;
      const enabled = has(action);
      const btn = el("button", { type: "button", class: "faceup", "data-slot": slot + 1, disabled: !enabled || !card,
        "aria-label": card ? t("game.takeFaceUp", { card: colourName(card) }) : t("game.emptySlot"), onclick: () => send(action) },
      card ? cardChip(card) : el("span", { class: "card empty", text: "–" }));
      faceup.append(btn);
    });
    const discard = Object.values(view.discard).reduce((a, b) => a + b, 0);
    const deck = el("button", { type: "button", id: "deck", class: "deck", disabled: !has("B"), onclick: () => send("B"),
      "aria-label": t("game.deckLabel", { count: view.deck_count }) },
    el("span", { class: "deck-back", "aria-hidden": "true" }, cardBack()), ` ${t("game.deck", { count: view.deck_count })}`);
    const ticketsBtn = el("button", { type: "button", id: "draw-tickets", disabled: !has("T"), onclick: () => send("T") },
      t("game.ticketPile", { count: view.ticket_deck_count }));
    const extra = [];
    if (has("pass")) extra.push(el("button", { type: "button", id: "pass", onclick: () => send("pass"), text: t("game.pass") }));
    market.replaceChildren(el("h2", { text: t("game.draw") }), faceup,
      el("div", { class: "deck-row" }, deck, ticketsBtn,
        el("span", { class: "muted", id: "discard", text: t("game.discard", { count: discard }) }), extra));
  }

  function renderPrivate(view) {
    if (privateHidden()) {
      hand.replaceChildren(el("h2", { text: t("game.hand") }), el("p", { class: "muted", text: t("game.handHidden") }));
      tickets.replaceChildren(el("h2", { text: t("game.tickets") }), el("p", { class: "muted", text: t("game.hidden") }));
      return;
    }
    const who = hotseat ? t("game.namedHand", { player: playerName(seats(), msg.seat) }) : t("game.yourHand");
    const cards = el("div", { class: "hand-cards" });
    let total = 0;
    for (const c of CARD_ORDER) {
      const n = view.hand[c] || 0;
      total += n;
      if (n) cards.append(cardChip(c, n, { "data-color": c }));
    }
    if (!total) cards.append(el("span", { class: "muted", text: t("game.noCards") }));
    hand.replaceChildren(el("h2", { text: `${who} (${total})` }), cards);
    const list = el("ul", { class: "ticket-list" });
    for (const tk of view.tickets) {
      const li = el("li", { class: tk.completed ? "done" : "open", tabindex: 0, "data-ticket": tk.id },
        el("span", { class: "tick", "aria-hidden": "true", text: tk.completed ? "✓" : "○" }),
        ` ${tk.from} – ${tk.to} `, el("span", { class: "pts", text: tk.points }),
        el("span", { class: "sr-only", text: ` (${tk.completed ? t("game.completed") : t("game.notYet")})` }));
      const on = () => highlightTicket(tk);
      const off = () => highlightTicket(null);
      li.addEventListener("mouseenter", on); li.addEventListener("focus", on);
      li.addEventListener("mouseleave", off); li.addEventListener("blur", off);
      list.append(li);
    }
    if (!view.tickets.length) list.append(el("li", { class: "muted", text: t("game.noTickets") }));
    const done = view.tickets.filter((t) => t.completed).length;
    const key = view.tickets.length ? el("p", { class: "ticket-key muted" },
      el("span", { class: "key-ring", "aria-hidden": "true" }), ` ${t("game.ticketCity")} `,
      el("span", { class: "key-ring done", "aria-hidden": "true" }), ` ${t("game.ticketDone")}`) : null;
    tickets.replaceChildren(...[el("h2", { text: t("game.ticketsDone", { done, count: view.tickets.length }) }), list, key]
      .filter(Boolean));
  }

  function highlightTicket(t) {
    hoverTicket = t;
    if (!t) { map.setClass("hl"); map.setClass("ticket-missing"); return; }
    const byName = new Map(board.cities.map((c) => [c.name, c.id]));
    const own = msg.view.route_owner.map((o, i) => (o === msg.seat ? i : -1)).filter((i) => i >= 0);
    map.setClass("hl", own, [byName.get(t.from), byName.get(t.to)]);
    // The ticket's progress: the cheapest routes still missing between its cities (none once done).
    const path = t.completed ? null : ticketPath(board, msg.view.route_owner, msg.seat, byName.get(t.from), byName.get(t.to));
    map.setClass("ticket-missing", path ? path.missing : []);
  }

  function renderRouteList(claimable) {
    const items = el("div", { class: "route-buttons" });
    for (const code of claimable) {
      const r = routeByCode.get(code);
      items.append(el("button", { type: "button", class: "route-btn", "data-route": r.id, onclick: () => clickRoute(r.id) },
        `${r.name} (${[`${r.length} ${colourName(r.color)}`, r.kind === "tunnel" ? t("map.tunnel") : null,
          r.ferry_locomotives ? t("map.ferry") : null].filter(Boolean).join(", ")})`));
    }
    routeList.hidden = claimable.size === 0;
    routeList.replaceChildren(el("details", {}, el("summary", { text: t("game.routesToClaimN", { count: claimable.size }) }), items));
  }

  /** The others' log entries since this seat's last one, and the routes they claimed there. */
  function sinceLastMove(view) {
    const entries = view.log;
    let i = entries.length - 1;
    while (i >= 0 && entries[i].player !== msg.seat) i--;
    const others = entries.slice(i + 1).filter((e) => e.player !== null && e.player !== undefined && e.player >= 0
      && e.player !== msg.seat);
    const claims = [];
    for (const e of others) {
      const code = e.notation && e.notation.startsWith("C ") ? e.notation.split(" ")[1] : null;
      const route = code ? routeByCode.get(code) : null;
      if (route && view.route_owner[route.id] === e.player) claims.push(route.id);
    }
    return { entries: others, claims, first: i < 0 };
  }

  function renderRecent(view, since) {
    const mine = view.is_my_turn && legal().length > 0 && !result;
    let title;
    let entries;
    if (mine && since.entries.length) {
      title = since.first ? t("game.beforeFirst") : t("game.sinceLast");
      entries = since.entries;
    } else { title = t("game.latest"); entries = view.log.slice(-3); }
    const list = el("ol", {}, entries.slice(-6).map((e) => el("li", {},
      e.player !== null && e.player !== undefined && e.player >= 0 ? swatch(e.player, true) : null, ` ${named(e)}`)));
    if (!entries.length) list.append(el("li", { class: "muted", text: t("game.noMoves") }));
    recent.classList.toggle("idle", !(mine && since.entries.length));
    recent.replaceChildren(el("div", { class: "recent-head" }, el("h2", { text: title }), settings), list);
  }

  let logCount = -1;
  function renderLog(view) {
    // Focusable: it scrolls, and keyboard users must be able to scroll it too.
    const list = el("ol", { class: "log-list", tabindex: 0, "aria-label": t("game.moveLog") });
    const entries = view.log.slice(-80);
    for (const e of entries) {
      list.append(el("li", {}, e.player !== null && e.player !== undefined && e.player >= 0
        ? swatch(e.player, true) : null,
      ` ${named(e)}`));
    }
    log.replaceChildren(el("h2", { text: t("game.moves") }), list);
    if (view.log.length !== logCount) { list.scrollTop = list.scrollHeight; logCount = view.log.length; }
  }

  function renderPass() {
    const show = privateHidden() && !openDialogIsScoring();
    passScreen.hidden = !show;
    if (!show) return;
    const name = playerName(seats(), msg.seat);
    const btn = el("button", { type: "button", class: "primary", id: "pass-ready", text: t("game.passReady", { player: name }),
      onclick: () => { revealed = msg.seat; render(); } });
    passScreen.replaceChildren(el("div", { class: "pass-inner" }, el("h1", { text: t("game.passTo", { player: name }) }),
      el("p", { text: t("game.passHidden") }), btn));
    setTimeout(() => btn.focus(), 0);
  }
  const openDialogIsScoring = () => false;

  function renderDialogs(view) {
    if (result || privateHidden()) { if (openDialog && openDialog.key !== "claim") closeDialog(); if (result) closeDialog(); return; }
    const keeps = legal().filter((a) => a.action.startsWith("K"));
    const tunnelActs = legal().filter((a) => a.action.startsWith("X ") || a.action === "decline");
    if (keeps.length) {
      // Keyed by the offer, not the action count: another player's move while this one chooses
      // (both choose their first tickets at once) must not rebuild the dialog and lose the ticks.
      showDialog(`keep:${view.offered_tickets.map((tk) => tk.id).join(",")}`, () => keepDialog(view, keeps));
    } else if (tunnelActs.length && view.tunnel) {
      showDialog(`tunnel:${msg.actions}`, () => tunnelDialog(view, tunnelActs));
    } else if (openDialog && openDialog.key.startsWith("claim:")) {
      const code = openDialog.key.split(":")[1];
      if (!claimsFor(code).length) closeDialog();
    } else if (openDialog && !openDialog.key.startsWith("info")) closeDialog();
    if (!keeps.length) map.setClass("offer");
  }

  function keepDialog(view, keeps) {
    const min = Math.min(...keeps.map((a) => a.action.split(" ").length - 1));
    const allowed = new Set(keeps.map((a) => a.action));
    const byName = new Map(board.cities.map((c) => [c.name, c.id]));
    map.setClass("offer", [], view.offered_tickets.flatMap((tk) => [byName.get(tk.from), byName.get(tk.to)]));
    const boxes = [];
    const confirm = el("button", { type: "button", class: "primary", id: "keep-confirm", text: t("game.keep") });
    const hint = el("p", { class: "hint", id: "keep-hint" });
    const list = el("div", { class: "keep-list" });
    for (const tk of view.offered_tickets) {
      // None ticked: a player chooses, one click on Keep never takes every ticket by accident.
      const box = el("input", { type: "checkbox", value: tk.id, id: `keep-${tk.id}`, checked: false });
      boxes.push(box);
      const row = el("label", { class: "keep-row", for: `keep-${tk.id}` }, box, ` ${tk.from} – ${tk.to} `,
        el("span", { class: "pts", text: t("map.points", { count: tk.points }) }));
      const on = () => map.setClass("hl", [], [byName.get(tk.from), byName.get(tk.to)]);
      row.addEventListener("mouseenter", on); box.addEventListener("focus", on);
      row.addEventListener("mouseleave", () => map.setClass("hl"));
      list.append(row);
    }
    const chosen = () => "K " + boxes.filter((b) => b.checked).map((b) => Number(b.value)).sort((a, b) => a - b).join(" ");
    const sync = () => {
      const n = boxes.filter((b) => b.checked).length;
      const ok = allowed.has(chosen());
      confirm.disabled = !ok;
      hint.textContent = ok ? t("game.keeping", { count: n }) : t("game.tickToKeep", { count: min });
    };
    boxes.forEach((b) => b.addEventListener("change", sync));
    confirm.addEventListener("click", () => { if (allowed.has(chosen())) send(chosen()); });
    sync();
    const d = dialog(t("game.chooseTickets", { count: min }), el("div", {}, list, hint), [confirm],
      { className: "keep-dialog" });
    d.node.id = "keep-dialog";
    d.node.append(corner(helpButton(min >= 2 ? "setup" : "turn", t("game.topicTickets"))));
    return { node: d.node, close: () => { d.close(); map.setClass("hl"); map.setClass("offer"); } };
  }

  function tunnelDialog(view, acts) {
    const tunnel = view.tunnel;
    const pays = acts.filter((a) => a.action.startsWith("X "));
    const body = el("div", {},
      el("p", {}, t("game.tunnelRevealed", { route: tunnel.route.name, count: tunnel.revealed.length })),
      el("div", { class: "chips revealed", id: "tunnel-revealed" }, tunnel.revealed.map((c) => cardChip(c))),
      el("p", { id: "tunnel-needed", text: tunnel.needed
        ? t(tunnel.locomotive_only ? "game.tunnelNeedLocos" : "game.tunnelNeed",
          { count: tunnel.needed, colour: colourName(tunnel.color) })
        : t("game.tunnelNoExtra") }));
    const options = el("div", { class: "options" });
    pays.forEach((a, i) => {
      options.append(el("label", { class: "option" }, el("input", { type: "radio", name: "tunnel-pay", value: a.action, checked: i === 0 }),
        " ", paymentChips(a.action.split(" ")[1] || ""), el("span", { class: "sr-only", text: paymentWords(a.action.split(" ")[1] || "") })));
    });
    if (!pays.length) body.append(el("p", { class: "warn", text: t("game.tunnelCannotPay") }));
    body.append(options);
    const pay = el("button", { type: "button", class: "primary", id: "tunnel-pay", disabled: !pays.length, text: t("game.pay"),
      onclick: () => { const c = options.querySelector("input:checked"); if (c) send(c.value); } });
    const decline = el("button", { type: "button", id: "tunnel-decline", text: t("game.decline"), onclick: () => send("decline") });
    const d = dialog(t("game.tunnelTitle"), body, [pay, decline], { className: "tunnel-dialog" });
    d.node.id = "tunnel-dialog";
    d.node.append(corner(helpButton("tunnels", t("game.topicTunnels"))));
    return d;
  }

  function clickRoute(id) {
    if (!msg) return;
    const r = board.routes[id];
    const owner = msg.view.route_owner[id];
    const offers = claimsFor(r.code);
    if (result) return;
    if (privateHidden()) return;
    if (offers.length === 1 && !confirmSetting.checked) {
      closeDialog();
      send(offers[0].action);
      return;
    }
    if (!offers.length) {
      let why;
      if (owner !== null && owner !== undefined) why = t("game.alreadyClaimed", { route: r.name, player: playerName(seats(), owner) });
      else if (!msg.view.is_my_turn) why = t("game.notYourTurn");
      else if (legal().some((a) => a.action.startsWith("K") || a.action.startsWith("X ") || a.action === "decline")) why = t("game.finishChoice");
      else if (legal().length && !legal().some((a) => a.action.startsWith("C "))) why = t("game.midDraw");
      else {
        why = t("game.cannotClaim", { route: r.name, size: [`${r.length} ${colourName(r.color)}`,
          r.ferry_locomotives ? t("cards.n_locomotive", { count: r.ferry_locomotives }) : null].filter(Boolean).join(", ") });
      }
      toast(why, "info");
      return;
    }
    showDialog(`claim:${r.code}`, () => {
      // The sensible payments first; those that spend more than another offer are folded away.
      const { main, other } = splitPayments(offers);
      const option = (a, checked) => el("label", { class: "option" },
        el("input", { type: "radio", name: "claim-pay", value: a.action, checked }), " ",
        paymentChips(cardsOf(a.action)), el("span", { class: "sr-only", text: paymentWords(cardsOf(a.action)) }));
      const options = el("div", { class: "options" }, main.map((a, i) => option(a, i === 0)));
      if (other.length) {
        options.append(el("details", { class: "other-payments", id: "other-payments" },
          el("summary", { text: t("game.otherWays", { count: other.length }) }), other.map((a) => option(a, false))));
      }
      // Back on the route after the dialog: the keyboard goes on from where it was, not from the page's top.
      const backToRoute = () => map.routeNodes.get(id)?.g.focus({ preventScroll: true });
      const confirm = el("button", { type: "button", class: "primary", id: "claim-confirm", text: t("game.claim"),
        onclick: () => { const c = options.querySelector("input:checked"); if (c) { closeDialog(); send(c.value); backToRoute(); } } });
      const cancel = el("button", { type: "button", id: "claim-cancel", text: t("game.cancel"),
        onclick: () => { closeDialog(); backToRoute(); } });
      // The numbers of the rules in force (a variant may change the reveal and the ferry's groups).
      const reveal = msg.view.variant.claims.tunnel_reveal;
      const kind = r.kind === "tunnel" ? ` — ${t("game.claimTunnel", { count: reveal })}` :
        r.ferry_locomotives ? ` — ${t("game.claimFerry", { count: r.ferry_locomotives, group: r.group })}` : "";
      const d = dialog(t("game.claimTitle", { route: r.name }), el("div", {},
        el("p", {}, `${routeSize(r)}, ${t("map.points", { count: r.points })}${kind}`),
        el("p", { class: "hint", text: t("game.choosePay") }), options), [confirm, cancel], { className: "claim-dialog" });
      d.node.id = "claim-dialog";
      const topic = r.kind === "tunnel" ? ["tunnels", t("game.topicTunnels")] : r.ferry_locomotives ? ["ferries", t("game.topicFerries")]
        : r.length === 9 ? ["murmansk", "Murmansk–Lieksa"] : ["turn", t("game.topicClaim")];
      d.node.append(corner(helpButton(...topic)));
      map.setClass("selected", [id]);
      const close = d.close;
      return { node: d.node, close: () => { close(); map.setClass("selected"); } };
    });
  }

  function clickCity(id) {
    const c = board.cities[id];
    const routes = board.routes.filter((r) => r.a === id || r.b === id);
    map.setClass("hl", routes.map((r) => r.id), [id]);
    toast(`${c.name}: ${routes.map((r) => `${board.cities[r.a === id ? r.b : r.a].name} (${r.length} ${colourName(r.color)})`)
      .join(", ")}`, "info");
  }

  /** At the end: the ceremony first (a game that ended in front of the player, once, with animations on), then the scores. */
  function finalScoring() {
    scoringShown = true;
    const speed = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "off" : animSetting.value;
    if (!sawPlay || speed === "off" || ceremonySeen(gameId)) { showScoring(); return; }
    closeDialog();
    ceremony = runCeremony({ gameId, result: result.result, board, routeOwner: msg.view.route_owner, seats: seats(),
      map, speed, onDone: () => { ceremony = null; showScoring(); } });
  }

  function showScoring() {
    scoringShown = true;
    if (ceremony) { ceremony.skip(); return; } // "Show scores" during the ceremony ends it (it then calls back)
    if (document.getElementById("final-dialog")) return;
    closeDialog();
    const body = scoringTable(result.result, seats());
    const close = el("button", { type: "button", id: "close-scores", text: t("score.viewBoard") });
    const d = dialog(t("score.title"), body, [
      el("a", { class: "button primary", href: `/replay/${encodeURIComponent(gameId)}`, id: "replay-link", text: t("score.watchReplay") }),
      el("a", { class: "button", href: "/", text: t("score.newGame") }), aiGame ? rematchButton(summary) : null, close],
    { className: "final", modal: true });
    d.node.id = "final-dialog";
    showRatingChange(gameId, d.node); // a rated game: each player's rating change
    if (summary.mode === "online" && seats().every((s) => s.kind === "human")) rematchOffer(gameId, token, d.node);
    d.node.append(corner(helpButton("scoring", t("score.topic"))));
    close.addEventListener("click", d.close);
  }

  window.addEventListener("keydown", (e) => { if (e.key === "Escape" && openDialog && openDialog.key.startsWith("claim:")) closeDialog(); });

  // ---- keyboard --------------------------------------------------------------------------------
  const act = (action) => { if (has(action)) send(action); };
  const keys = { d: () => act("B"), t: () => act("T"), p: () => act("pass"), c: () => routeSearch(), h: () => askHint(),
    "+": () => zoom.zoomIn(), "=": () => zoom.zoomIn(), "-": () => zoom.zoomOut(), 0: () => zoom.reset(),
    r: () => (rulesOpen() ? closeRules() : openRules()), "?": showShortcuts, Escape: () => closeRules() };
  // One key per face-up slot (five in the official rules, up to nine in a variant).
  for (let slot = 1; slot <= 9; slot++) keys[String(slot)] = () => act(`F${slot}`);
  installShortcuts(keys);
  const skip = document.getElementById("skip-link");
  if (skip) { skip.href = "#market"; skip.textContent = t("game.skipToCards"); }
  market.setAttribute("tabindex", "-1");

  /** Claim by typing: the claimable routes whose name holds what is typed (accents ignored). */
  function routeSearch() {
    if (!msg || !legal().some((a) => a.action.startsWith("C "))) { toast(t("game.noClaimNow"), "info"); return; }
    const fold = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    const input = el("input", { type: "text", id: "route-search-input", autocomplete: "off",
      "aria-label": t("game.cityName"), placeholder: t("game.cityExample") });
    const results = el("div", { class: "route-buttons", id: "route-search-results", role: "list" });
    const claimable = () => [...new Set(legal().filter((a) => a.action.startsWith("C ")).map((a) => a.action.split(" ")[1]))]
      .map((code) => routeByCode.get(code));
    const fill = () => {
      const wanted = fold(input.value.trim());
      const found = claimable().filter((r) => !wanted || fold(r.name).includes(wanted));
      results.replaceChildren(...found.map((r) => el("button", { type: "button", class: "route-btn", role: "listitem",
        "data-route": r.id, onclick: () => clickRoute(r.id) }, `${r.name} (${r.length} ${colourName(r.color)})`)));
      if (!found.length) results.append(el("p", { class: "muted", text: t("game.noRouteThere") }));
    };
    input.addEventListener("input", fill);
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { const first = results.querySelector("button"); if (first) first.click(); }
    });
    const cancel = el("button", { type: "button", text: t("game.cancel"), onclick: closeDialog });
    showDialog("info:route-search", () => {
      const d = dialog(t("game.claimRoute"), el("div", {}, input, results), [cancel], { className: "route-search" });
      d.node.id = "route-search";
      d.node.append(corner(helpButton("turn", t("game.topicClaim"))));
      return d;
    });
    fill();
    setTimeout(() => input.focus(), 0);
  }
  function corner(button) { button.classList.add("corner"); return button; }
  void hoverTicket;
  void keyActivate;
}
