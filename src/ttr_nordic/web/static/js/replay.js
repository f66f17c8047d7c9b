// Replay viewer for finished games: the server computes each step's public state.
import { buildMap, loadMapData } from "./map.js";
import { paymentChips } from "./game.js";
import { withToken } from "./mygames.js";
import { swatch, CARD_ORDER, PLAYER_COLORS, PLAYER_MARKS, api, cardChip, el, playerName, scoringTable, toast } from "./ui.js";

export async function replayPage(app, gameId) {
  app.className = "replay-page";
  app.replaceChildren(el("p", { class: "loading", text: "Loading the replay…" }));
  let data;
  let first;
  try {
    [data, first] = await Promise.all([loadMapData(), api(`/api/games/${encodeURIComponent(gameId)}/replay/0`, withToken(gameId))]);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: "No replay" }), el("p", { text: err.message }),
      el("a", { href: "/", text: "Back to the start page" })));
    return;
  }
  document.title = "Replay — Ticket to Ride: Nordic Countries";
  const total = first.total;
  const seats = first.seats;
  const map = buildMap(data, {});
  const cache = new Map([[0, first]]);
  const named = (text) => text.replace(/\bPlayer (\d)\b/g, (m, d) => playerName(seats, Number(d) - 1));
  let step = 0; // the step shown
  let wanted = 0; // the step asked for last: quick clicks count from it, not from a step still loading

  const counter = el("span", { id: "replay-step", class: "step", "aria-live": "polite" });
  const slider = el("input", { type: "range", min: 0, max: total, value: 0, id: "replay-slider", "aria-label": "Step" });
  const btn = (id, text, label, fn) => el("button", { type: "button", id, "aria-label": label, onclick: fn, text });
  const controls = el("div", { class: "replay-controls" },
    btn("replay-start", "|◀", "First step", () => go(0)),
    btn("replay-back", "◀ Back", "Step back", () => go(wanted - 1)),
    btn("replay-forward", "Forward ▶", "Step forward", () => go(wanted + 1)),
    btn("replay-end", "▶|", "Last step", () => go(total)),
    btn("replay-play", "Play", "Play automatically", togglePlay), slider, counter);
  const info = el("section", { class: "panel", id: "replay-info" });
  const playersBox = el("section", { class: "panel players", id: "replay-players" });
  const logBox = el("section", { class: "panel log", id: "replay-log" });
  const final = el("section", { class: "panel", id: "replay-final" });
  app.replaceChildren(el("div", { class: "replay-head" }, el("h1", { text: "Replay" }), el("a", { href: "/", text: "← Start page" })),
    controls, el("div", { class: "game" }, el("div", { class: "map-wrap" }, map.root),
      el("aside", { class: "side" }, info, playersBox, logBox, final)));
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(wanted + 1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(wanted - 1); }
  });

  let timer = null;
  function togglePlay() {
    if (timer) { clearInterval(timer); timer = null; controls.querySelector("#replay-play").textContent = "Play"; return; }
    controls.querySelector("#replay-play").textContent = "Pause";
    timer = setInterval(() => { if (wanted >= total) togglePlay(); else go(wanted + 1); }, 600);
  }

  let pending = 0;
  async function go(target) {
    target = Math.max(0, Math.min(total, target));
    wanted = target;
    const ticket = ++pending;
    let s = cache.get(target);
    if (!s) {
      try { s = await api(`/api/games/${encodeURIComponent(gameId)}/replay/${target}`, withToken(gameId)); }
      catch (err) { toast(err.message); if (ticket === pending) wanted = step; return; }
      cache.set(target, s);
    }
    if (ticket !== pending) return;
    step = target;
    show(s);
  }

  function show(s) {
    const view = s.view;
    slider.value = String(s.step);
    counter.textContent = `Step ${s.step} / ${s.total}`;
    document.body.dataset.step = String(s.step);
    map.setOwners(view.route_owner);
    const last = view.log[view.log.length - 1];
    const move = s.action ? el("p", { id: "replay-move" },
      last && last.player !== null ? swatch(last.player, true) : null,
      ` ${last ? named(last.text) : s.action}`) : el("p", { id: "replay-move", text: "The game is dealt." });
    if (s.action && s.action.startsWith("C ")) {
      const r = data.board.routes.find((x) => x.code === s.action.split(" ")[1]);
      if (r) map.setClass("selected", [r.id]);
      move.append(" ", paymentChips(s.action.split(" ")[2] || ""));
    } else map.setClass("selected");
    info.replaceChildren(el("h2", { text: "Move" }), move,
      el("div", { class: "faceup-row" }, view.display.map((c) => (c ? cardChip(c) : null))),
      el("p", { class: "muted", text: `Deck ${view.deck_count} · tickets ${view.ticket_deck_count}` }));
    const table = el("div", { class: "replay-players" });
    for (let p = 0; p < view.num_players; p++) {
      const pl = s.players[p];
      const cards = el("div", { class: "hand-cards" }, CARD_ORDER.filter((c) => pl.hand[c]).map((c) => cardChip(c, pl.hand[c])));
      const tks = el("ul", { class: "ticket-list" }, pl.tickets.map((t) =>
        el("li", { class: t.completed ? "done" : "open" }, el("span", { class: "tick", text: t.completed ? "✓" : "○" }),
          ` ${t.from} – ${t.to} `, el("span", { class: "pts", text: t.points }))));
      table.append(el("div", { class: `replay-player${view.current === p ? " current" : ""}` },
        el("h3", {}, swatch(p),
          ` ${playerName(seats, p)} — ${view.scores[p]} pts, ${view.trains[p]} trains`), cards, tks));
    }
    playersBox.replaceChildren(el("h2", { text: "Players (all hands shown)" }), table);
    const list = el("ol", { class: "log-list" }, view.log.slice(-40).map((e) => el("li", {},
      e.player !== null && e.player >= 0 ? swatch(e.player, true) : null,
      ` ${named(e.text)}`)));
    logBox.replaceChildren(el("h2", { text: "Moves" }), list);
    list.scrollTop = list.scrollHeight;
    final.hidden = !s.result;
    if (s.result) final.replaceChildren(el("h2", { text: "Final scores" }), scoringTable(s.result, seats));
  }
  show(first);
}
