// The final-scoring ceremony: when a game ends in front of the player, each player's tickets are
// turned over one by one; a completed ticket's path lights up on the map and adds its points, a
// failed one takes them away; then the Globetrotter (and a variant's longest-path bonus), and the
// totals counting up. Skippable (Skip, Escape), shown once per game. Completion and points come
// from the server's result; the path drawn is only a picture of it (a search over the player's
// claimed routes).
import { api, el, errorMessage, playerName, PLAYER_COLORS, swatch, toast } from "./ui.js";
import { rememberGame } from "./mygames.js";
import { play } from "./sound.js";
import { t } from "./i18n.js";

const SEEN_KEY = "ttr-ceremony-seen";
const STEP_MS = { normal: 650, fast: 260 };
const LONGEST_MS = 7000; // the whole ceremony at normal speed stays about this short

function seenGames() {
  try { return JSON.parse(localStorage.getItem(SEEN_KEY) || "[]"); } catch { return []; }
}

/** Whether this browser has shown the ceremony of `gameId` already. */
export function ceremonySeen(gameId) {
  return seenGames().includes(gameId);
}

function markSeen(gameId) {
  const seen = seenGames().filter((id) => id !== gameId);
  seen.push(gameId);
  localStorage.setItem(SEEN_KEY, JSON.stringify(seen.slice(-200)));
}

/**
 * The routes of a shortest path from city `fromName` to city `toName` over `player`'s claimed
 * routes (breadth-first search), as route ids; [] when there is none.
 *
 *   ticketPath(board, owners, 0, "Oslo", "Bergen") → [12, 40]
 */
export function ticketPath(board, routeOwner, player, fromName, toName) {
  const byName = new Map(board.cities.map((c) => [c.name, c.id]));
  const start = byName.get(fromName);
  const goal = byName.get(toName);
  if (start === undefined || goal === undefined) return [];
  const next = new Map();
  for (const r of board.routes) {
    if (routeOwner[r.id] !== player) continue;
    for (const [a, b] of [[r.a, r.b], [r.b, r.a]]) {
      if (!next.has(a)) next.set(a, []);
      next.get(a).push([b, r.id]);
    }
  }
  const via = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const city = queue.shift();
    if (city === goal) break;
    for (const [other, route] of next.get(city) || []) {
      if (via.has(other)) continue;
      via.set(other, [city, route]);
      queue.push(other);
    }
  }
  if (!via.has(goal)) return [];
  const path = [];
  for (let city = goal; via.get(city); city = via.get(city)[0]) path.push(via.get(city)[1]);
  return path.reverse();
}

/** The steps of the ceremony, player by player: routes, each ticket, the bonuses. */
function steps(result) {
  const list = [];
  for (const p of result.players) {
    list.push({ player: p.player, kind: "routes", points: p.route_points });
    p.tickets.forEach((t, index) => list.push({ player: p.player, kind: "ticket", index, ticket: t, points: t.value }));
    if (p.globetrotter) list.push({ player: p.player, kind: "globetrotter", points: p.globetrotter });
    if (p.longest_path_bonus) list.push({ player: p.player, kind: "longest", points: p.longest_path_bonus });
  }
  return list;
}

/**
 * Runs the ceremony over the page; calls `onDone()` once, at its end or when skipped.
 * `speed`: "normal" or "fast". `map`: the board's setClass (paths are marked "ceremony-path").
 */
export function runCeremony({ gameId, result, board, routeOwner, seats, map, speed = "normal", onDone }) {
  markSeen(gameId);
  const plan = steps(result);
  const stepMs = Math.max(180, Math.min(STEP_MS[speed] || STEP_MS.normal, LONGEST_MS / Math.max(1, plan.length)));
  const scores = new Map();
  const columns = el("div", { class: "ceremony-players" });
  for (const p of result.players) {
    scores.set(p.player, { shown: 0, node: el("span", { class: "ceremony-score", "data-player": p.player, text: "0" }) });
    const list = el("ol", { class: "ceremony-tickets" }, p.tickets.map((tk, index) =>
      el("li", { class: "ceremony-ticket", "data-player": p.player, "data-index": index, "data-state": "hidden" },
        el("span", { class: "ct-cities", text: `${tk.from} – ${tk.to}` }), el("span", { class: "ct-points", text: "?" }))));
    columns.append(el("section", { class: "ceremony-player", "data-player": p.player,
      style: { borderColor: PLAYER_COLORS[p.player] } },
    el("h3", {}, swatch(p.player), ` ${playerName(seats, p.player)} `, scores.get(p.player).node),
    el("p", { class: "ceremony-line", "data-kind": "routes" }, `${t("ceremony.routes")} `, el("span", { text: "…" })),
    list,
    el("p", { class: "ceremony-line", "data-kind": "bonus", hidden: true })));
  }
  const skip = el("button", { type: "button", id: "ceremony-skip", text: t("ceremony.skip") });
  const panel = el("div", { class: "ceremony", id: "ceremony", role: "dialog", "aria-label": t("ceremony.title"),
    "data-step": 0, "data-steps": plan.length },
  el("div", { class: "ceremony-head" }, el("h2", { text: t("ceremony.title") }), skip), columns);
  document.body.append(panel);
  document.body.dataset.ceremony = "running";
  setTimeout(() => skip.focus({ preventScroll: true }), 0);

  const lit = [];
  let timer = null;
  let finished = false;
  const column = (player) => panel.querySelector(`.ceremony-player[data-player="${player}"]`);

  function countTo(player, target) {
    const score = scores.get(player);
    const from = score.shown;
    const began = performance.now();
    const tick = (now) => {
      if (finished) return;
      const share = Math.min(1, (now - began) / (stepMs * 0.8));
      score.node.textContent = String(Math.round(from + (target - from) * share));
      if (share < 1) requestAnimationFrame(tick);
    };
    score.shown = target;
    requestAnimationFrame(tick);
  }

  function show(step) {
    const box = column(step.player);
    panel.querySelectorAll(".ceremony-player.active").forEach((n) => n.classList.remove("active"));
    box.classList.add("active");
    if (step.kind === "routes") {
      box.querySelector('[data-kind="routes"] span').textContent = `+${step.points}`;
      lit.length = 0;
      map.setClass("ceremony-path");
    } else if (step.kind === "ticket") {
      const item = box.querySelector(`.ceremony-ticket[data-index="${step.index}"]`);
      item.dataset.state = step.ticket.completed ? "done" : "fail";
      item.querySelector(".ct-points").textContent = step.points > 0 ? `+${step.points}` : String(step.points);
      item.scrollIntoView({ block: "nearest" }); // a long list on a phone scrolls with the reveal
      if (step.ticket.completed) {
        lit.push(...ticketPath(board, routeOwner, step.player, step.ticket.from, step.ticket.to));
        map.setClass("ceremony-path", lit);
        document.body.dataset.ceremonyLit = lit.join(" "); // what is lit, for the tests
      }
      play(step.ticket.completed ? "ticket" : "miss");
    } else {
      const line = box.querySelector('[data-kind="bonus"]');
      line.hidden = false;
      line.append(el("span", { class: "ceremony-bonus", "data-bonus": step.kind,
        text: `${step.kind === "globetrotter" ? t("ceremony.globetrotter") : t("ceremony.longest")} +${step.points} ` }));
      play("ticket");
    }
    countTo(step.player, scores.get(step.player).shown + step.points);
  }

  function finish() {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    window.removeEventListener("keydown", onKey, true);
    map.setClass("ceremony-path");
    panel.remove();
    document.body.dataset.ceremony = "done";
    onDone();
  }
  function onKey(event) {
    if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); finish(); }
  }
  window.addEventListener("keydown", onKey, true);
  skip.addEventListener("click", finish);

  let index = 0;
  function next() {
    if (finished) return;
    if (index < plan.length) {
      show(plan[index]);
      index += 1;
      panel.dataset.step = String(index);
      timer = setTimeout(next, stepMs);
      return;
    }
    for (const p of result.players) {
      const score = scores.get(p.player);
      score.node.textContent = String(p.total);
      column(p.player).classList.toggle("won", result.winners.includes(p.player));
    }
    panel.dataset.step = "end";
    play("fanfare");
    timer = setTimeout(finish, stepMs * 2.5);
  }
  timer = setTimeout(next, stepMs / 2);
  return { skip: finish };
}

/**
 * The Rematch button of a game against the computer: a new game with the same seats (names,
 * levels), a new deal, made with the create-game API the start page uses; opens the new game.
 */
export function rematchButton(summary) {
  const button = el("button", { type: "button", id: "rematch", class: "button", title: t("ceremony.rematchTitle"),
    text: t("ceremony.rematch") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    const seats = summary.seats.map((s) => (s.kind === "ai" ? { kind: "ai", level: s.level } : { kind: "human", name: s.name }));
    try {
      const data = await api("/api/games", { method: "POST", body: JSON.stringify({ mode: "ai", seats }) });
      rememberGame(data.game.id, data.invites[0].token, { mode: data.game.mode });
      location.href = data.invites[0].path;
    } catch (err) {
      button.disabled = false;
      toast(`${t("ceremony.rematchFailed")}: ${errorMessage(err)}`);
    }
  });
  return button;
}
