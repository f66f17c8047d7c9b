// The lobby (/lobby): open tables joined with one click, a new table's format, quick match
// (with the computer offered after the wait the player chose). The list is polled: it is the
// database's, the same on every server process. A seat's ticket becomes its game token when
// the table starts; the browser keeps it in "Your games" and opens the game.
import { api, el, toast } from "./ui.js";
import { accountState, onAccount, withCsrf } from "./account.js";
import { rememberGame } from "./mygames.js";
import { rulesChoice, variantLabel } from "./variant.js";

const SEATS_KEY = "ttr-lobby-seats"; // {tableId: {ticket, seat}}: the tables this browser sits at
const POLL_MS = 2000;
const PACES = {
  none: { label: "No clock", value: null },
  realtime: { label: "Real time: 1 min a move + 5 min", value: { kind: "realtime", per_move_s: 60, reserve_s: 300 } },
  turn: { label: "Turn-based: 1 day a move", value: { kind: "turn", per_move_s: 86400 } },
};
const LEVELS = ["easy", "medium", "hard", "expert"];

function seatsHeld() {
  try { return JSON.parse(localStorage.getItem(SEATS_KEY) || "{}") || {}; } catch { return {}; }
}
function holdSeat(tableId, ticket, seat) {
  const held = seatsHeld();
  held[tableId] = { ticket, seat };
  try { localStorage.setItem(SEATS_KEY, JSON.stringify(held)); } catch { /* storage off: the page keeps it */ }
}
function dropSeat(tableId) {
  const held = seatsHeld();
  delete held[tableId];
  try { localStorage.setItem(SEATS_KEY, JSON.stringify(held)); } catch { /* nothing kept */ }
}

/** The words of a table's time control. */
export function paceText(tc) {
  if (!tc) return "No clock";
  if (tc.kind === "realtime") return `Real time · ${tc.per_move_s} s a move + ${Math.round(tc.reserve_s / 60)} min`;
  const hours = tc.per_move_s / 3600;
  return `Turn-based · ${hours >= 24 ? `${hours / 24} day${hours === 24 ? "" : "s"}` : `${hours} h`} a move`;
}

async function send(path, body, headers = {}) {
  return api(path, withCsrf({ method: "POST", body: JSON.stringify(body), headers: { ...headers } }));
}

export function lobbyPage(app) {
  document.title = "Lobby · Ticket to Ride: Nordic Countries";
  app.replaceChildren();
  app.className = "lobby";
  let timer = null;
  let quickSince = null;

  const name = el("input", { id: "lobby-name", name: "lobby-name", maxlength: "40", autocomplete: "nickname",
    value: localStorage.getItem("ttr-lobby-name") || "" , placeholder: "Guest" });
  name.addEventListener("change", () => localStorage.setItem("ttr-lobby-name", name.value));
  const players = el("select", { id: "lobby-players" },
    el("option", { value: "2", text: "2 players" }), el("option", { value: "3", text: "3 players" }));
  const pace = el("select", { id: "lobby-pace" },
    ...Object.entries(PACES).map(([key, p]) => el("option", { value: key, text: p.label })));
  const rated = el("input", { type: "checkbox", id: "lobby-rated" });
  const ratedLabel = el("label", { class: "rated-option", for: "lobby-rated" }, rated, " Rated");
  const ratedHint = el("span", { class: "hint", id: "lobby-rated-hint", text: "Sign in to play rated tables." });
  onAccount(({ user }) => {
    rated.disabled = !user;
    if (!user) rated.checked = false;
    ratedHint.hidden = Boolean(user);
    name.disabled = Boolean(user);
    if (user) name.value = user.name;
  });
  const wait = el("select", { id: "lobby-wait", "aria-label": "Offer the computer after" },
    el("option", { value: "0", text: "at once" }), el("option", { value: "30", text: "after 30 s", selected: true }), el("option", { value: "60", text: "after 1 min" }),
    el("option", { value: "120", text: "after 2 min" }));
  const format = () => ({
    players: Number(players.value), rated: rated.checked, time_control: PACES[pace.value].value,
    ...(name.disabled || !name.value.trim() ? {} : { name: name.value }),
  });

  const rules = rulesChoice("lobby", { upload: false }); // a new table's rules (quick match: the official ones)
  const form = el("form", { class: "lobby-new", id: "lobby-form" },
    el("h2", { text: "A new table" }),
    el("div", { class: "lobby-fields" },
      el("label", { class: "field", for: "lobby-name" }, "Your name", name),
      el("label", { class: "field", for: "lobby-players" }, "Seats", players),
      el("label", { class: "field", for: "lobby-pace" }, "Pace", pace),
      el("div", { class: "field" }, ratedLabel, ratedHint)), rules.node,
    el("div", { class: "lobby-buttons" },
      el("button", { type: "submit", class: "primary", id: "lobby-create", text: "Open a table" }),
      el("button", { type: "button", id: "lobby-quick", text: "Quick match", onclick: () => quick() }),
      el("label", { class: "lobby-wait", for: "lobby-wait" }, "Offer the computer ", wait)));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const data = await send("/api/lobby/tables", { ...format(), variant: await rules.value() });
      seated(data);
    } catch (err) { toast(err.message); }
  });

  const mine = el("section", { class: "lobby-mine", id: "lobby-mine", "aria-live": "polite", hidden: true });
  const list = el("tbody", { id: "lobby-tables" });
  const table = el("table", { class: "lobby-table" },
    el("caption", { text: "Open tables" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Players" }), el("th", { scope: "col", text: "Format" }),
      el("th", { scope: "col", text: "Seats" }), el("th", { scope: "col" }, el("span", { class: "sr-only", text: "Join" })))),
    list);
  const playing = el("ul", { class: "lobby-playing", id: "lobby-playing" });
  app.append(
    el("section", { class: "lobby-head" }, el("h1", { text: "Lobby" }),
      el("p", { text: "Join an open table with one click, or open your own. Friends can still be invited by link from the start page." })),
    mine, form, el("section", { class: "lobby-list" }, table),
    el("section", { class: "lobby-list" }, el("h2", { text: "Games being played" }), playing));

  function seated(data) {
    holdSeat(data.table.id, data.ticket, data.seat);
    if (data.table.status === "started") return open(data.table, data.ticket);
    quickSince = data.matched === false ? Date.now() : quickSince;
    refresh();
  }

  async function quick() {
    try {
      const data = await send("/api/lobby/quick", { ...format(), exclude: Object.keys(seatsHeld()).slice(0, 12) });
      if (!data.matched) quickSince = Date.now();
      seated(data);
    } catch (err) { toast(err.message); }
  }

  function open(tableData, ticket) {
    dropSeat(tableData.id);
    rememberGame(tableData.game_id, ticket, { mode: "online" });
    location.href = `/play/${tableData.game_id}?seat=${encodeURIComponent(ticket)}`;
  }

  async function showMine() {
    const held = seatsHeld();
    const ids = Object.keys(held);
    if (!ids.length) { mine.hidden = true; return; }
    const boxes = [];
    for (const id of ids) {
      let data;
      try { data = await api(`/api/lobby/tables/${encodeURIComponent(id)}`); } catch { dropSeat(id); continue; }
      if (data.status === "started") return open(data, held[id].ticket);
      if (data.status !== "open") { dropSeat(id); continue; }
      const headers = { "X-Table-Ticket": held[id].ticket };
      const level = el("select", { "aria-label": "Computer level", class: "lobby-level" },
        ...LEVELS.map((l) => el("option", { value: l, text: l, selected: l === "medium" })));
      const waited = quickSince ? (Date.now() - quickSince) / 1000 : 0;
      const offer = held[id].seat === 0 && (!quickSince || waited >= Number(wait.value));
      boxes.push(el("div", { class: "lobby-waiting", "data-table": id },
        el("p", {}, el("strong", { text: "Waiting for players… " }),
          `${data.seats.length} of ${data.players} seated · ${paceText(data.time_control)}${data.rated ? " · rated" : ""}`
          + (data.variant ? ` · ${variantLabel(data.variant)}` : "")),
        el("ul", { class: "lobby-seats" }, ...data.seats.map((s) => seatItem(s))),
        el("div", { class: "lobby-buttons" },
          offer ? el("span", { class: "lobby-offer" }, "Nobody yet? ", level,
            el("button", { type: "button", class: "primary lobby-computer", text: "Play the computer", onclick: async () => {
              try { open(await send(`/api/lobby/tables/${id}/computer`, { level: level.value }, headers), held[id].ticket); }
              catch (err) { toast(err.message); }
            } })) : null,
          el("button", { type: "button", class: "lobby-leave", text: held[id].seat === 0 ? "Close the table" : "Leave", onclick: async () => {
            try { await send(`/api/lobby/tables/${id}/leave`, {}, headers); } catch (err) { toast(err.message); }
            dropSeat(id);
            quickSince = null;
            refresh();
          } }))));
    }
    mine.replaceChildren(el("h2", { text: "Your table" }), ...boxes);
    mine.hidden = !boxes.length;
  }

  function seatItem(seat) {
    return el("li", {}, seat.name, seat.rating !== null ? el("span", { class: "lobby-rating", text: ` ${seat.rating}` }) : null);
  }

  async function showTables() {
    let data;
    try { data = await api("/api/lobby/tables"); } catch { return; }
    const held = seatsHeld();
    const rows = data.tables.filter((t) => !held[t.id]).map((t) => el("tr", { "data-table": t.id },
      el("td", { text: `${t.players}` }),
      el("td", {}, paceText(t.time_control), el("span", { class: t.rated ? "badge rated" : "badge", text: t.rated ? "Rated" : "Casual" }),
        t.variant ? el("span", { class: "badge variant", text: variantLabel(t.variant) }) : null),
      el("td", {}, el("ul", { class: "lobby-seats" }, ...t.seats.map((s) => seatItem(s)),
        ...Array.from({ length: t.players - t.seats.length }, () => el("li", { class: "empty", text: "empty seat" })))),
      el("td", {}, el("button", { type: "button", class: "primary lobby-join", text: "Join", onclick: async () => {
        try { seated(await send(`/api/lobby/tables/${t.id}/join`, name.disabled || !name.value.trim() ? {} : { name: name.value })); }
        catch (err) { toast(err.message); refresh(); }
      } }))));
    playing.replaceChildren(...(data.playing.length ? data.playing.map((t) => el("li", {},
      el("span", {}, t.seats.map((s) => s.name).join(" vs "), " · ", paceText(t.time_control),
        t.variant ? ` · ${variantLabel(t.variant)}` : ""),
      el("a", { class: "button lobby-watch", href: `/watch/${encodeURIComponent(t.game_id)}`, text: "Watch" })))
      : [el("li", { class: "muted", text: "No game right now." })]));
    list.replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: "4", class: "muted", text: "No open table right now: open one, or try quick match." }))]));
  }

  async function refresh() {
    clearTimeout(timer);
    await Promise.all([showMine(), showTables()]);
    if (document.body.contains(list)) timer = setTimeout(refresh, POLL_MS);
  }
  accountState().then(refresh);
}
