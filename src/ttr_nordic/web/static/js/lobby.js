// The lobby (/lobby): open tables joined with one click, a new table's format, quick match
// (with the computer offered after the wait the player chose). The list is polled: it is the
// database's, the same on every server process. A seat's ticket becomes its game token when
// the table starts; the browser keeps it in "Your games" and opens the game.
import { api, el, toast } from "./ui.js";
import { accountState, onAccount, withCsrf } from "./account.js";
import { rememberGame } from "./mygames.js";
import { rulesChoice, variantLabel } from "./variant.js";
import { errorText } from "./errors.js";
import { num, t } from "./i18n.js";

const SEATS_KEY = "ttr-lobby-seats"; // {tableId: {ticket, seat}}: the tables this browser sits at
const POLL_MS = 2000;
// Each pace's words are looked up when drawn: t("lobby.pace.<key>").
const PACES = {
  none: null,
  realtime: { kind: "realtime", per_move_s: 60, reserve_s: 300 },
  turn: { kind: "turn", per_move_s: 86400 },
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
  if (!tc) return t("lobby.pace.none");
  if (tc.kind === "realtime") {
    return t("lobby.paceRealtime", { seconds: tc.per_move_s, minutes: Math.round(tc.reserve_s / 60) });
  }
  const hours = tc.per_move_s / 3600;
  return hours >= 24 ? t("lobby.paceDays", { count: hours / 24 }) : t("lobby.paceHours", { count: hours });
}

async function send(path, body, headers = {}) {
  return api(path, withCsrf({ method: "POST", body: JSON.stringify(body), headers: { ...headers } }));
}

export function lobbyPage(app) {
  document.title = `${t("lobby.title")} · ${t("top.title")}`;
  app.replaceChildren();
  app.className = "lobby";
  let timer = null;
  let quickSince = null;

  const name = el("input", { id: "lobby-name", name: "lobby-name", maxlength: "40", autocomplete: "nickname",
    value: localStorage.getItem("ttr-lobby-name") || "" , placeholder: t("lobby.guest") });
  name.addEventListener("change", () => localStorage.setItem("ttr-lobby-name", name.value));
  const players = el("select", { id: "lobby-players" },
    el("option", { value: "2", text: t("start.players", { count: 2 }) }),
    el("option", { value: "3", text: t("start.players", { count: 3 }) }));
  const pace = el("select", { id: "lobby-pace" },
    ...Object.keys(PACES).map((key) => el("option", { value: key, text: t(`lobby.pace.${key}`) })));
  const rated = el("input", { type: "checkbox", id: "lobby-rated" });
  const ratedLabel = el("label", { class: "rated-option", for: "lobby-rated" }, rated, ` ${t("lobby.rated")}`);
  const ratedHint = el("span", { class: "hint", id: "lobby-rated-hint", text: t("lobby.ratedHint") });
  onAccount(({ user }) => {
    rated.disabled = !user;
    if (!user) rated.checked = false;
    ratedHint.hidden = Boolean(user);
    name.disabled = Boolean(user);
    if (user) name.value = user.name;
  });
  const wait = el("select", { id: "lobby-wait", "aria-label": t("lobby.waitLabel") },
    el("option", { value: "0", text: t("lobby.wait.now") }),
    el("option", { value: "30", text: t("lobby.wait.seconds", { count: 30 }), selected: true }),
    el("option", { value: "60", text: t("lobby.wait.minutes", { count: 1 }) }),
    el("option", { value: "120", text: t("lobby.wait.minutes", { count: 2 }) }));
  const format = () => ({
    players: Number(players.value), rated: rated.checked, time_control: PACES[pace.value],
    ...(name.disabled || !name.value.trim() ? {} : { name: name.value }),
  });

  const rules = rulesChoice("lobby", { upload: false }); // a new table's rules (quick match: the official ones)
  const form = el("form", { class: "lobby-new", id: "lobby-form" },
    el("h2", { text: t("lobby.newTable") }),
    el("div", { class: "lobby-fields" },
      el("label", { class: "field", for: "lobby-name" }, t("start.yourName"), name),
      el("label", { class: "field", for: "lobby-players" }, t("lobby.seats"), players),
      el("label", { class: "field", for: "lobby-pace" }, t("lobby.paceLabel"), pace),
      el("div", { class: "field" }, ratedLabel, ratedHint)), rules.node,
    el("div", { class: "lobby-buttons" },
      el("button", { type: "submit", class: "primary", id: "lobby-create", text: t("lobby.open") }),
      el("button", { type: "button", id: "lobby-quick", text: t("lobby.quick"), onclick: () => quick() }),
      el("label", { class: "lobby-wait", for: "lobby-wait" }, `${t("lobby.offerComputer")} `, wait)));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const data = await send("/api/lobby/tables", { ...format(), variant: await rules.value() });
      seated(data);
    } catch (err) { toast(errorText(err)); }
  });

  const mine = el("section", { class: "lobby-mine", id: "lobby-mine", "aria-live": "polite", hidden: true });
  const list = el("tbody", { id: "lobby-tables" });
  const table = el("table", { class: "lobby-table" },
    el("caption", { text: t("lobby.openTables") }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("start.playersLabel") }),
      el("th", { scope: "col", text: t("lobby.format") }), el("th", { scope: "col", text: t("lobby.seats") }),
      el("th", { scope: "col" }, el("span", { class: "sr-only", text: t("lobby.join") })))),
    list);
  const playing = el("ul", { class: "lobby-playing", id: "lobby-playing" });
  app.append(
    el("section", { class: "lobby-head" }, el("h1", { text: t("lobby.title") }),
      el("p", { text: t("lobby.intro") })),
    mine, form, el("section", { class: "lobby-list" }, table),
    el("section", { class: "lobby-list" }, el("h2", { text: t("lobby.playing") }), playing));

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
    } catch (err) { toast(errorText(err)); }
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
      try { data = await api(`/api/lobby/tables/${encodeURIComponent(id)}`); } catch (err) {
        // Only a table the server no longer knows is forgotten; a refused or lost request
        // (busy server, 429, network) leaves the seat and what is shown, and the next poll asks again.
        if (err.code === "TABLE_NOT_FOUND") { dropSeat(id); continue; }
        return;
      }
      if (data.status === "started") return open(data, held[id].ticket);
      if (data.status === "starting") {
        // The last seat was just taken and the game is being created: the next poll opens it.
        boxes.push(el("div", { class: "lobby-waiting", "data-table": id }, el("p", {}, el("strong", { text: t("lobby.starting") }))));
        continue;
      }
      if (data.status !== "open") { dropSeat(id); continue; }
      const headers = { "X-Table-Ticket": held[id].ticket };
      const level = el("select", { "aria-label": t("lobby.computerLevel"), class: "lobby-level" },
        ...LEVELS.map((l) => el("option", { value: l, text: t(`start.level.${l}`), selected: l === "medium" })));
      const waited = quickSince ? (Date.now() - quickSince) / 1000 : 0;
      const offer = held[id].seat === 0 && (!quickSince || waited >= Number(wait.value));
      boxes.push(el("div", { class: "lobby-waiting", "data-table": id },
        el("p", {}, el("strong", { text: `${t("lobby.waiting")} ` }),
          [t("lobby.seated", { count: data.seats.length, players: data.players }), paceText(data.time_control),
            ...(data.rated ? [t("lobby.ratedLower")] : []),
              ...(data.variant ? [variantLabel(data.variant)] : [])].join(" · ")),
        el("ul", { class: "lobby-seats" }, ...data.seats.map((s) => seatItem(s))),
        el("div", { class: "lobby-buttons" },
          offer ? el("span", { class: "lobby-offer" }, `${t("lobby.nobodyYet")} `, level,
            el("button", { type: "button", class: "primary lobby-computer", text: t("lobby.playComputer"), onclick: async () => {
              try { open(await send(`/api/lobby/tables/${id}/computer`, { level: level.value }, headers), held[id].ticket); }
              catch (err) { toast(errorText(err)); }
            } })) : null,
          el("button", { type: "button", class: "lobby-leave", text: held[id].seat === 0 ? t("lobby.close") : t("lobby.leave"), onclick: async () => {
            try { await send(`/api/lobby/tables/${id}/leave`, {}, headers); } catch (err) { toast(errorText(err)); }
            dropSeat(id);
            quickSince = null;
            refresh();
          } }))));
    }
    mine.replaceChildren(el("h2", { text: t("lobby.yourTable") }), ...boxes);
    mine.hidden = !boxes.length;
  }

  function seatItem(seat) {
    return el("li", {}, seat.name, seat.rating !== null ? el("span", { class: "lobby-rating", text: ` ${seat.rating}` }) : null);
  }

  async function showTables() {
    let data;
    try { data = await api("/api/lobby/tables"); } catch { return; }
    const held = seatsHeld();
    const rows = data.tables.filter((table) => !held[table.id]).map((table) => el("tr", { "data-table": table.id },
      el("td", {}, el("span", { class: "lobby-count", text: num(table.players) }),
        el("span", { class: "lobby-count-words", text: t("start.players", { count: table.players }) })),
      el("td", {}, paceText(table.time_control),
        el("span", { class: table.rated ? "badge rated" : "badge", text: table.rated ? t("lobby.rated") : t("lobby.casual") }),
        table.variant ? el("span", { class: "badge variant", text: variantLabel(table.variant) }) : null),
      el("td", {}, el("ul", { class: "lobby-seats" }, ...table.seats.map((s) => seatItem(s)),
        ...Array.from({ length: table.players - table.seats.length }, () => el("li", { class: "empty", text: t("lobby.emptySeat") })))),
      el("td", {}, el("button", { type: "button", class: "primary lobby-join", text: t("lobby.join"), onclick: async () => {
        try { seated(await send(`/api/lobby/tables/${table.id}/join`, name.disabled || !name.value.trim() ? {} : { name: name.value })); }
        catch (err) { toast(errorText(err)); refresh(); }
      } }))));
    playing.replaceChildren(...(data.playing.length ? data.playing.map((game) => el("li", {},
      el("span", {}, game.seats.map((s) => s.name).join(` ${t("lobby.vs")} `), " · ",
        paceText(game.time_control), game.variant ? ` · ${variantLabel(game.variant)}` : ""),
      el("a", { class: "button lobby-watch", href: `/watch/${encodeURIComponent(game.game_id)}`, text: t("lobby.watch") })))
      : [el("li", { class: "muted", text: t("lobby.noGame") })]));
    list.replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: "4", class: "muted", text: t("lobby.noTable") }))]));
  }

  async function refresh() {
    clearTimeout(timer);
    await Promise.all([showMine(), showTables()]);
    if (document.body.contains(list)) timer = setTimeout(refresh, POLL_MS);
  }
  accountState().then(refresh);
}
