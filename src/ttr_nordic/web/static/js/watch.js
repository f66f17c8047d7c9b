// Watching a public game (/watch/{id}): the board, the players' public counts, the log, and the
// players' chat, from the spectator's socket (the engine's public view: no hand, no ticket).
import { api, el, playerName, swatch } from "./ui.js";
import { buildMap, loadMapData } from "./map.js";
import { chatPanel } from "./chat.js";
import { variantNote } from "./variant.js";

export async function watchPage(app, gameId) {
  app.replaceChildren(el("p", { class: "loading", text: "Loading the board…" }));
  app.className = "game-page watch-page";
  let data;
  let summary;
  try {
    [data, summary] = await Promise.all([loadMapData(`/api/games/${encodeURIComponent(gameId)}/board`), api(`/api/games/${encodeURIComponent(gameId)}/watch`)]);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: "This game cannot be watched" }),
      el("p", { text: err.message }), el("a", { href: "/lobby", text: "Back to the lobby" })));
    return;
  }
  document.title = `Watching · ${summary.game.seats.map((s) => s.name).join(" vs ")}`;
  const seats = summary.game.seats;
  const map = buildMap(data);
  const status = el("div", { class: "status", id: "status", "aria-live": "polite" });
  const players = el("section", { class: "panel players", id: "players", "aria-label": "Players" });
  const log = el("ol", { class: "watch-log", id: "log" });
  const side = el("aside", { class: "side" }, el("div", { class: "status-row" }, status,
    el("span", { class: "badge spectator", text: "Spectator" })), variantNote(summary.game.variant), players,
  el("section", { class: "panel log", "aria-label": "Moves" }, el("h2", { text: "Moves" }), log),
  chatPanel(gameId).node);
  // The page's one level-one heading, for screen readers' heading navigation.
  app.replaceChildren(el("h1", { class: "sr-only", text: "Ticket to Ride: Nordic Countries — watching a game" }),
    el("div", { class: "game" }, el("div", { class: "map-wrap" }, map.root), side));

  function render(view) {
    map.setOwners(view.route_owner);
    status.textContent = view.phase === "GAME_OVER" ? "The game is over"
      : `${playerName(seats, view.current)} to play · turn ${view.turn + 1}`;
    const rows = seats.map((s, p) => el("tr", { class: view.current === p ? "current" : null },
      el("td", {}, swatch(p, true), " ", playerName(seats, p)),
      el("td", { class: "score", text: view.scores[p] }), el("td", { text: view.trains[p] }),
      el("td", { text: view.hand_sizes[p] }), el("td", { text: view.ticket_counts[p] })));
    players.replaceChildren(el("h2", { text: "Players" }), el("table", {},
      el("thead", {}, el("tr", {}, ...["Player", "Score", "Trains", "Cards", "Tickets"].map((t) => el("th", { text: t })))),
      el("tbody", {}, ...rows)));
    log.replaceChildren(...(view.log.length ? view.log.slice(-30).map((e) => el("li", { text: e.text }))
      : [el("li", { class: "muted", text: "No moves yet." })]));
    document.body.dataset.actions = String(view.actions ?? "");
  }

  let retry = 0;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/watch/${encodeURIComponent(gameId)}`);
    ws.onmessage = (event) => {
      const m = JSON.parse(event.data);
      if (m.type === "public") { retry = 0; m.view.actions = m.actions; render(m.view); }
      else if (m.type === "error") status.textContent = m.message;
    };
    ws.onclose = () => { if (document.body.contains(status) && retry < 10) setTimeout(connect, 1000 * ++retry); };
  }
  render(summary.view);
  connect();
}
