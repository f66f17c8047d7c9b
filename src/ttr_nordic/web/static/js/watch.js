// Watching a public game (/watch/{id}): the board, the players' public counts, the log, and the
// players' chat, from the spectator's socket (the engine's public view: no hand, no ticket).
import { api, el, errorMessage, playerName, swatch } from "./ui.js";
import { buildMap, loadMapData } from "./map.js";
import { chatPanel } from "./chat.js";
import { variantNote } from "./variant.js";
import { t } from "./i18n.js";
import { logLine } from "./words.js";

export async function watchPage(app, gameId) {
  app.replaceChildren(el("p", { class: "loading", text: t("game.loadingBoard") }));
  app.className = "game-page watch-page";
  let data;
  let summary;
  try {
    [data, summary] = await Promise.all([loadMapData(`/api/games/${encodeURIComponent(gameId)}/board`), api(`/api/games/${encodeURIComponent(gameId)}/watch`)]);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: t("game.cannotWatch") }),
      el("p", { text: errorMessage(err) }), el("a", { href: "/lobby", text: t("game.backToLobby") })));
    return;
  }
  const seats = summary.game.seats;
  document.title = t("game.watchingTitle", { players: seats.map((s, p) => playerName(seats, p)).join(" – ") });
  const map = buildMap(data);
  const status = el("div", { class: "status", id: "status", "aria-live": "polite" });
  const players = el("section", { class: "panel players", id: "players", "aria-label": t("game.players") });
  const log = el("ol", { class: "watch-log", id: "log" });
  const side = el("aside", { class: "side" }, el("div", { class: "status-row" }, status,
    el("span", { class: "badge spectator", text: t("game.spectator") })), variantNote(summary.game.variant), players,
  el("section", { class: "panel log", "aria-label": t("game.moves") }, el("h2", { text: t("game.moves") }), log),
  chatPanel(gameId).node);
  // The page's one level-one heading, for screen readers' heading navigation.
  app.replaceChildren(el("h1", { class: "sr-only", text: t("game.watchHeading") }),
    el("div", { class: "game" }, el("div", { class: "map-wrap" }, map.root), side));

  function render(view) {
    map.setOwners(view.route_owner);
    status.textContent = view.phase === "GAME_OVER" ? t("game.gameIsOver")
      : t("game.watchStatus", { player: playerName(seats, view.current), turn: view.turn + 1 });
    const rows = seats.map((s, p) => el("tr", { class: view.current === p ? "current" : null },
      el("td", {}, swatch(p, true), " ", playerName(seats, p)),
      el("td", { class: "score", text: view.scores[p] }), el("td", { text: view.trains[p] }),
      el("td", { text: view.hand_sizes[p] }), el("td", { text: view.ticket_counts[p] })));
    players.replaceChildren(el("h2", { text: t("game.players") }), el("table", {},
      el("thead", {}, el("tr", {}, ...["player", "score", "trains", "cards", "tickets"].map((k) => el("th", { text: t(`game.${k}`) })))),
      el("tbody", {}, ...rows)));
    log.replaceChildren(...(view.log.length ? view.log.slice(-30).map((e) => el("li", { text: logLine(e, data.board, seats) }))
      : [el("li", { class: "muted", text: t("game.noMoves") })]));
    document.body.dataset.actions = String(view.actions ?? "");
  }

  let retry = 0;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/watch/${encodeURIComponent(gameId)}`);
    ws.onmessage = (event) => {
      const m = JSON.parse(event.data);
      if (m.type === "public") { retry = 0; m.view.actions = m.actions; render(m.view); }
      else if (m.type === "error") status.textContent = errorMessage(m);
    };
    ws.onclose = () => { if (document.body.contains(status) && retry < 10) setTimeout(connect, 1000 * ++retry); };
  }
  render(summary.view);
  connect();
}
