// Replay viewer for finished games: the server computes each step's public state.
import { buildMap, loadMapData } from "./map.js";
import { rulesOf, variantNote } from "./variant.js";
import { paymentChips } from "./game.js";
import { withToken } from "./mygames.js";
import { swatch, CARD_ORDER, PLAYER_COLORS, PLAYER_MARKS, api, cardChip, el, errorMessage, playerName, scoringTable, svg,
  toast } from "./ui.js";
import { num, t } from "./i18n.js";
import { logLine } from "./words.js";

export async function replayPage(app, gameId) {
  app.className = "replay-page";
  app.replaceChildren(el("p", { class: "loading", text: t("replay.loading") }));
  let data;
  let first;
  try {
    [data, first] = await Promise.all([loadMapData(`/api/games/${encodeURIComponent(gameId)}/board`), api(`/api/games/${encodeURIComponent(gameId)}/replay/0`, withToken(gameId))]);
  } catch (err) {
    const why = err.code === "TOKEN_REQUIRED" ? t("replay.playersOnly") : errorMessage(err);
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: t("replay.none") }), el("p", { text: why }),
      el("a", { href: "/", text: t("game.backToStart") })));
    return;
  }
  document.title = t("replay.docTitle");
  const total = first.total;
  const seats = first.seats;
  const map = buildMap(data, {});
  const cache = new Map([[0, first]]);
  const named = (entry) => logLine(entry, data.board, seats);
  const percent = (value) => num(value, { style: "percent", maximumFractionDigits: 0 });
  let step = 0; // the step shown
  let wanted = 0; // the step asked for last: quick clicks count from it, not from a step still loading

  const counter = el("span", { id: "replay-step", class: "step", "aria-live": "polite" });
  const slider = el("input", { type: "range", min: 0, max: total, value: 0, id: "replay-slider", "aria-label": t("replay.step") });
  const btn = (id, text, label, fn) => el("button", { type: "button", id, "aria-label": label, onclick: fn, text });
  const controls = el("div", { class: "replay-controls" },
    btn("replay-start", "|◀", t("replay.first"), () => go(0)),
    btn("replay-back", `◀ ${t("replay.back")}`, t("replay.stepBack"), () => go(wanted - 1)),
    btn("replay-forward", `${t("replay.forward")} ▶`, t("replay.stepForward"), () => go(wanted + 1)),
    btn("replay-end", "▶|", t("replay.last"), () => go(total)),
    btn("replay-play", t("replay.play"), t("replay.playAuto"), togglePlay), slider, counter);
  const info = el("section", { class: "panel", id: "replay-info" });
  const playersBox = el("section", { class: "panel players", id: "replay-players" });
  const logBox = el("section", { class: "panel log", id: "replay-log" });
  const final = el("section", { class: "panel", id: "replay-final" });
  const chancesBox = el("section", { class: "panel chances", id: "chances", "aria-label": t("replay.chances"), hidden: true });
  let chances = null; // {players, chances: [[p0, p1, …] per step], moments}
  app.replaceChildren(el("div", { class: "replay-head" }, el("h1", { text: t("replay.title") }), el("a", { href: "/", text: `← ${t("replay.startPage")}` }),
    variantNote(rulesOf(first.view.variant, data.board))),
    controls, el("div", { class: "game" }, el("div", { class: "map-wrap" }, map.root),
      el("aside", { class: "side" }, info, chancesBox, playersBox, logBox, final)));
  // Win chances, move by move, from the value model (asked for alongside: the replay does not wait).
  api(`/api/games/${encodeURIComponent(gameId)}/chances`, withToken(gameId))
    .then((c) => { chances = c; drawChances(); })
    .catch(() => {});

  /** The chart of each player's chance to win after each step, the step shown, and the key moments. */
  function drawChances() {
    if (!chances) return;
    chancesBox.hidden = false;
    const n = chances.players;
    const last = chances.chances.length - 1;
    const W = 400, H = 100;
    const x = (stepIndex) => (last ? (stepIndex / last) * W : 0);
    const y = (p) => H - p * H;
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "chances-chart",
      id: "chances-chart", role: "img",
      "aria-label": t("replay.chartLabel", { last }) });
    chart.append(svg("line", { x1: 0, x2: W, y1: y(1 / n), y2: y(1 / n), class: "fair" }));
    for (let p = 0; p < n; p++) {
      const points = chances.chances.map((c, i) => `${x(i).toFixed(1)},${y(c[p]).toFixed(1)}`).join(" ");
      chart.append(svg("polyline", { points, class: "chance-line", "data-player": p, stroke: PLAYER_COLORS[p] }));
    }
    for (const m of chances.moments) {
      chart.append(svg("line", { x1: x(m.step), x2: x(m.step), y1: 0, y2: H, class: "moment-mark" }));
    }
    const marker = svg("line", { x1: x(step), x2: x(step), y1: 0, y2: H, class: "step-mark", id: "chances-step" });
    chart.append(marker);
    chart.addEventListener("click", (e) => {
      const box = chart.getBoundingClientRect();
      go(Math.round(((e.clientX - box.left) / box.width) * last));
    });
    const now = el("p", { class: "chances-now", id: "chances-now" });
    const moments = el("ol", { class: "key-moments", id: "key-moments" }, chances.moments.map((m) =>
      el("li", {}, el("button", { type: "button", class: "link moment", "data-step": m.step, onclick: () => go(m.step) },
        t("replay.stepN", { step: m.step })), " ", swatch(m.player, true),
      ` ${playerName(seats, m.player)} ${m.after >= m.before ? "+" : "−"}${percent(Math.abs(m.after - m.before))}`,
      m.until && m.until !== m.step ? ` ${t("replay.byStep", { step: m.until })}` : "", " — ",
      m.entry ? named(m.entry) : m.text.replace(/\bPlayer (\d)\b/g, (w, d) => playerName(seats, Number(d) - 1)))));
    chancesBox.replaceChildren(el("h2", { text: t("replay.chances") }), chart, now,
      el("h3", { text: t("replay.moments") }), moments,
      el("p", { class: "hint", text: t("replay.chancesHint") }));
    markChances();
  }

  function markChances() {
    if (!chances) return;
    const last = chances.chances.length - 1;
    const marker = chancesBox.querySelector("#chances-step");
    const at = (last ? step / last : 0) * 400;
    marker.setAttribute("x1", at);
    marker.setAttribute("x2", at);
    const now = chancesBox.querySelector("#chances-now");
    const c = chances.chances[step];
    now.replaceChildren(`${t("replay.stepN", { step })}: `, ...c.flatMap((p, i) => [i ? " · " : "", swatch(i, true),
      ` ${playerName(seats, i)} ${percent(p)}`]));
    chancesBox.querySelectorAll(".moment").forEach((b) => b.classList.toggle("here", Number(b.dataset.step) === step));
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(wanted + 1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(wanted - 1); }
  });

  let timer = null;
  function togglePlay() {
    if (timer) { clearInterval(timer); timer = null; controls.querySelector("#replay-play").textContent = t("replay.play"); return; }
    controls.querySelector("#replay-play").textContent = t("replay.pause");
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
      catch (err) { toast(errorMessage(err)); if (ticket === pending) wanted = step; return; }
      cache.set(target, s);
    }
    if (ticket !== pending) return;
    step = target;
    show(s);
  }

  function show(s) {
    const view = s.view;
    slider.value = String(s.step);
    counter.textContent = t("replay.counter", { step: s.step, total: s.total });
    document.body.dataset.step = String(s.step);
    map.setOwners(view.route_owner);
    const last = view.log[view.log.length - 1];
    const move = s.action ? el("p", { id: "replay-move" },
      last && last.player !== null ? swatch(last.player, true) : null,
      ` ${last ? named(last) : s.action}`) : el("p", { id: "replay-move", text: t("replay.dealt") });
    if (s.action && s.action.startsWith("C ")) {
      const r = data.board.routes.find((x) => x.code === s.action.split(" ")[1]);
      if (r) map.setClass("selected", [r.id]);
      move.append(" ", paymentChips(s.action.split(" ")[2] || ""));
    } else map.setClass("selected");
    info.replaceChildren(el("h2", { text: t("replay.move") }), move,
      el("div", { class: "faceup-row" }, view.display.map((c) => (c ? cardChip(c) : null))),
      el("p", { class: "muted", text: t("replay.piles", { deck: view.deck_count, tickets: view.ticket_deck_count }) }));
    const table = el("div", { class: "replay-players" });
    for (let p = 0; p < view.num_players; p++) {
      const pl = s.players[p];
      const cards = el("div", { class: "hand-cards" }, CARD_ORDER.filter((c) => pl.hand[c]).map((c) => cardChip(c, pl.hand[c])));
      const tks = el("ul", { class: "ticket-list" }, pl.tickets.map((tk) =>
        el("li", { class: tk.completed ? "done" : "open" }, el("span", { class: "tick", text: tk.completed ? "✓" : "○" }),
          ` ${tk.from} – ${tk.to} `, el("span", { class: "pts", text: tk.points }))));
      table.append(el("div", { class: `replay-player${view.current === p ? " current" : ""}` },
        el("h3", {}, swatch(p),
          ` ${playerName(seats, p)} — ${t("replay.playerLine", { points: view.scores[p], trains: view.trains[p] })}`), cards, tks));
    }
    playersBox.replaceChildren(el("h2", { text: t("replay.players") }), table);
    const list = el("ol", { class: "log-list" }, view.log.slice(-40).map((e) => el("li", {},
      e.player !== null && e.player >= 0 ? swatch(e.player, true) : null,
      ` ${named(e)}`)));
    logBox.replaceChildren(el("h2", { text: t("game.moves") }), list);
    list.scrollTop = list.scrollHeight;
    final.hidden = !s.result;
    if (s.result) final.replaceChildren(el("h2", { text: t("score.title") }), scoringTable(s.result, seats));
    markChances();
  }
  show(first);
}
