// A player's profile page (/players/NAME): rating and its history (an SVG chart drawn here),
// games played and won by format, recent games with replay links; your own unfinished games.
import { api, el, svg } from "./ui.js";
import { errorText } from "./errors.js";
import { timeNode } from "./mygames.js";
import { language, num, t } from "./i18n.js";

const RATING = { useGrouping: false }; // a rating reads as one figure: 1012, not 1,012

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleDateString(language(), { dateStyle: "medium" });
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
    "aria-label": t("profile.chartLabel", { count: history.length, from: values[0], to: values[values.length - 1] }) });
  for (const v of [low, (low + high) / 2, high]) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: "grid" }),
      svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis", text: num(Math.round(v), RATING) }));
  }
  // (dates written by Intl in the language in use: not catalogue words)
  chart.append(svg("text", { x: pad.left, y: height - 6, class: "axis", "data-i18n-skip": "", text: when(history[0].at) }),
    svg("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "axis", "data-i18n-skip": "",
      text: when(history[history.length - 1].at) }));
  chart.append(svg("polyline", { class: "line", points: history.map((h, i) => `${x(i)},${y(h.rating)}`).join(" ") }));
  history.forEach((h, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(h.rating), r: 4, class: h.delta >= 0 ? "dot up" : "dot down" });
    dot.append(svg("title", { text: `${num(h.rating, RATING)} (${h.delta >= 0 ? "+" : ""}${num(h.delta)}) — ${when(h.at)}` }));
    chart.append(dot);
  });
  return chart;
}

function statsTable(stats) {
  const table = el("table", { class: "profile-stats", id: "profile-stats" },
    // Two header rows (rated, casual; each played and won): short words, narrow columns on a phone.
    el("thead", {},
      el("tr", {}, el("th", { rowspan: 2, scope: "col", text: t("lobby.format") }),
        el("th", { colspan: 2, scope: "colgroup", text: t("lobby.rated") }),
        el("th", { colspan: 2, scope: "colgroup", text: t("lobby.casual") })),
      el("tr", {}, ...[1, 2].flatMap(() => [el("th", { scope: "col", text: t("profile.played") }),
        el("th", { scope: "col", text: t("profile.won") })]))));
  const body = el("tbody");
  for (const [format, players] of [["2p", 2], ["3p", 3]]) {
    const s = stats[format];
    body.append(el("tr", { "data-format": format }, el("th", { text: t("start.players", { count: players }) }),
      el("td", { class: "rated-played", text: num(s.rated.played) }), el("td", { class: "rated-won", text: num(s.rated.won) }),
      el("td", { class: "casual-played", text: num(s.casual.played) }), el("td", { class: "casual-won", text: num(s.casual.won) })));
  }
  table.append(body);
  // Long words (German, Finnish) may make it wider than a phone: it scrolls, the page does not.
  return el("div", { class: "table-scroll" }, table);
}

function recentList(recent) {
  const list = el("ul", { class: "game-list", id: "profile-recent" });
  if (!recent.length) list.append(el("li", { class: "muted", text: t("start.noFinished") }));
  for (const g of recent) {
    // Each seat's name, linked to its account's profile when an account held it.
    const names = g.seats.flatMap((s, i) => [i ? " · " : null, s.account
      ? el("a", { href: `/players/${encodeURIComponent(s.account)}`, class: "seat-account", text: s.name }) : s.name]);
    const outcome = g.won === null ? "hotseat" : g.won ? "won" : "lost";
    const delta = g.delta === null ? null
      : el("strong", { class: g.delta >= 0 ? "up" : "down", text: ` ${g.delta >= 0 ? "+" : ""}${num(g.delta)}` });
    list.append(el("li", { "data-game": g.id },
      g.replay ? el("a", { href: `/replay/${encodeURIComponent(g.id)}`, class: "replay-link", text: t("start.replay") }) : null,
      " ", ...names, " — ", el("span", { class: g.won === null ? "muted" : outcome, text: t(`profile.outcome.${outcome}`) }), delta,
      el("span", { class: "muted" }, ` · ${t("start.players", { count: g.players })} · ${g.rated ? t("lobby.ratedLower") : t("profile.casualLower")} · `,
        timeNode(g.finished_at, { dateStyle: "medium" }))));
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
      el("a", { href: `/play/${encodeURIComponent(g.id)}`, class: "resume-link button", text: t("mygames.resume") }),
      ` ${names} — `, el("span", { class: turn ? "your-turn" : "", text: turn ? t("mygames.yourTurn") : t("mygames.waiting") })));
  }
  if (!data.games.length) list.append(el("li", { class: "muted", text: t("mygames.noneActive") }));
  section.append(el("h2", { text: t("profile.ownGames") }), list);
}

export async function profilePage(app, name) {
  app.replaceChildren(el("p", { class: "loading", text: t("top.loading") }));
  app.className = "profile-page";
  let data;
  try {
    data = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    app.replaceChildren(el("div", { class: "fatal" }, el("h1", { text: t("profile.notFound") }),
      el("p", { text: errorText(err, { name }) }), el("a", { href: "/", text: t("profile.back") })));
    return;
  }
  document.title = `${data.name} — ${t("top.title")}`;
  const r = data.rating;
  const ratingCard = el("section", { class: "profile-card rating-card" },
    el("h2", { text: t("profile.rating") }),
    el("p", { class: "big-rating", id: "profile-rating", text: `${num(r.display, RATING)}${r.provisional ? "?" : ""}` }),
    el("p", { class: "muted", text: [t("profile.ratedGames", { count: r.games }),
      `μ ${num(r.mu, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}, σ ${num(r.sigma, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
      ...(r.provisional ? [t("profile.provisional")] : [])].join(" · ") }),
    data.history.length ? ratingChart(data.history) : el("p", { class: "muted", id: "no-history", text: t("profile.noHistory") }));
  const header = el("section", { class: "profile-head" }, el("h1", { id: "profile-name", text: data.name }),
    el("p", { class: "muted", text: t("profile.memberSince", { date: when(data.member_since) }) }));
  const own = el("section", { class: "profile-card" });
  app.replaceChildren(...[header, el("div", { class: "profile-grid" }, ratingCard,
    el("section", { class: "profile-card" }, el("h2", { text: t("profile.games") }), statsTable(data.stats))),
  data.own ? own : null,
  el("section", { class: "profile-card" }, el("h2", { text: t("profile.recent") }), recentList(data.recent))].filter(Boolean));
  if (data.own) ownGames(own);
}
