// A player's profile page (/players/NAME): rating and its history (an SVG chart drawn here),
// games played and won by format, recent games with replay links; your own unfinished games.
import { api, el, svg } from "./ui.js";

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleDateString([], { dateStyle: "medium" });
}

/** The rating history as a line chart: one point per rated game. */
export function ratingChart(history) {
  // Drawn at about the width it is shown (a phone's chart keeps readable labels).
  const width = Math.round(Math.min(640, Math.max(300, window.innerWidth - 64)));
  const height = 200;
  const pad = { left: 48, right: 14, top: 14, bottom: 26 };
  const values = history.map((h) => h.rating);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 20) { low -= 10; high += 10; }
  const x = (i) => pad.left + (history.length === 1 ? 0.5 : i / (history.length - 1)) * (width - pad.left - pad.right);
  const y = (v) => pad.top + (1 - (v - low) / (high - low)) * (height - pad.top - pad.bottom);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", id: "rating-chart", role: "img",
    "aria-label": `Rating after each of ${history.length} rated games: from ${values[0]} to ${values[values.length - 1]}` });
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis", text: String(Math.round(v)) }));
  }
  chart.append(svg("text", { x: pad.left, y: height - 6, class: "axis", text: when(history[0].at) }),
    svg("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "axis", text: when(history[history.length - 1].at) }));
  chart.append(svg("polyline", { class: "line", points: history.map((h, i) => `${x(i)},${y(h.rating)}`).join(" ") }));
  history.forEach((h, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(h.rating), r: 4, class: h.delta >= 0 ? "dot up" : "dot down" });
    dot.append(svg("title", { text: `${h.rating} (${h.delta >= 0 ? "+" : ""}${h.delta}) — ${when(h.at)}` }));
    chart.append(dot);
  });
  return chart;
}

function statsTable(stats) {
  const table = el("table", { class: "profile-stats", id: "profile-stats" },
    el("thead", {}, el("tr", {}, el("th", { text: "Format" }), el("th", { text: "Rated: played" }), el("th", { text: "won" }),
      el("th", { text: "Casual: played" }), el("th", { text: "won" }))));
  const body = el("tbody");
  for (const [format, label] of [["2p", "2 players"], ["3p", "3 players"]]) {
    const s = stats[format];
    body.append(el("tr", { "data-format": format }, el("th", { text: label }),
      el("td", { class: "rated-played", text: s.rated.played }), el("td", { class: "rated-won", text: s.rated.won }),
      el("td", { class: "casual-played", text: s.casual.played }), el("td", { class: "casual-won", text: s.casual.won })));
  }
  table.append(body);
  return table;
}

function recentList(recent) {
  const list = el("ul", { class: "game-list", id: "profile-recent" });
  if (!recent.length) list.append(el("li", { class: "muted", text: "No finished games yet." }));
  for (const g of recent) {
    // Each seat's name, linked to its account's profile when an account held it.
    const names = g.seats.flatMap((s, i) => [i ? " · " : null, s.account
      ? el("a", { href: `/players/${encodeURIComponent(s.account)}`, class: "seat-account", text: s.name }) : s.name]);
    const outcome = g.won === null ? "pass and play" : g.won ? "won" : "lost";
    const delta = g.delta === null ? null
      : el("strong", { class: g.delta >= 0 ? "up" : "down", text: ` ${g.delta >= 0 ? "+" : ""}${g.delta}` });
    list.append(el("li", { "data-game": g.id },
      g.replay ? el("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "replay-link", text: "Replay" }) : null,
      " ", ...names, " — ", el("span", { class: g.won === null ? "muted" : outcome, text: outcome }), delta,
      el("span", { class: "muted", text: ` · ${g.players} players · ${g.rated ? "rated" : "casual"} · ${when(g.finished_at)}` })));
  }
  return list;
}

async function ownGames(section) {
  let data;
  try { data = await api("/api/account/games"); } catch { return; }
  const list = el("ul", { class: "game-list", id: "account-active" });
  for (const g of data.games) {
    const names = g.seats.map((s) => s.name).join(" · ");
    const turn = g.current !== null && g.mine.includes(g.current);
    list.append(el("li", { "data-game": g.id, class: turn ? "turn" : "" },
      el("a", { href: `/play/${encodeURIComponent(g.id)}`, class: "resume-link button", text: "Resume" }),
      ` ${names} — `, el("span", { class: turn ? "your-turn" : "", text: turn ? "your turn" : "waiting" })));
  }
  if (!data.games.length) list.append(el("li", { class: "muted", text: "None." }));
  section.append(el("h2", { text: "Your games in progress" }), list);
}

export async function profilePage(app, name) {
  app.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
  app.className = "profile-page";
  let data;
  try {
    data = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: "Player not found" }),
      el("p", { text: err.message }), el("a", { href: "/", text: "Back to the start page" })));
    return;
  }
  document.title = `${data.name} — Ticket to Ride: Nordic Countries`;
  const r = data.rating;
  const ratingCard = el("section", { class: "profile-card rating-card" },
    el("h2", { text: "Rating" }),
    el("p", { class: "big-rating", id: "profile-rating", text: `${r.display}${r.provisional ? "?" : ""}` }),
    el("p", { class: "muted", text: `${r.games} rated ${r.games === 1 ? "game" : "games"} · μ ${r.mu.toFixed(2)}, σ ${r.sigma.toFixed(2)}`
      + (r.provisional ? " · provisional (fewer than 5 rated games)" : "") }),
    data.history.length ? ratingChart(data.history) : el("p", { class: "muted", id: "no-history", text: "No rated games yet." }));
  const header = el("section", { class: "profile-head" }, el("h1", { id: "profile-name", text: data.name }),
    el("p", { class: "muted", text: `Member since ${when(data.member_since)}` }));
  const own = el("section", { class: "profile-card" });
  app.replaceChildren(...[header, el("div", { class: "profile-grid" }, ratingCard,
    el("section", { class: "profile-card" }, el("h2", { text: "Games" }), statsTable(data.stats))),
  data.own ? own : null,
  el("section", { class: "profile-card" }, el("h2", { text: "Recent games" }), recentList(data.recent))].filter(Boolean));
  if (data.own) ownGames(own);
}
