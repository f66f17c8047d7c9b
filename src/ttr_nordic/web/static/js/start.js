// Start page: new game (vs AI, pass-and-play, online) and this browser's games (resume, replay).
import { api, el, toast } from "./ui.js";
import { wantGuide } from "./guide.js";
import { hasGames, inviteList, latestCreated, myGamesSection, rememberGame } from "./mygames.js";
import { accountGamesSection, claimSeat, nameOwnSeat, ratedOption, withCsrf } from "./account.js";
import { rulesChoice } from "./variant.js";

const LEVELS = ["easy", "medium", "hard", "expert"];

function nameInput(id, label, value) {
  return el("label", { class: "field", for: id }, label,
    el("input", { id, name: id, type: "text", maxlength: 40, value, autocomplete: "off" }));
}

function levelSelect(id, value = "medium") {
  const select = el("select", { id, name: id });
  for (const l of LEVELS) select.append(el("option", { value: l, selected: l === value, text: l }));
  return el("label", { class: "field", for: id }, "Level", select);
}

export async function startPage(app) {
  document.title = "Ticket to Ride: Nordic Countries";
  app.replaceChildren();
  app.className = "start";
  const hero = el("section", { class: "hero" },
    el("h1", { text: "Ticket to Ride: Nordic Countries" }),
    el("p", { text: "Build railways from Bergen to Murmansk. Play against the computer, pass one device around, or invite friends online." }),
    el("p", {}, el("a", { class: "lobby-entry", id: "lobby-entry", href: "/lobby", text: "Lobby: play people online" })));

  // vs AI
  const aiCount = el("select", { id: "ai-count", name: "ai-count" },
    el("option", { value: "1", text: "1 opponent" }), el("option", { value: "2", text: "2 opponents" }));
  const aiLevels = el("div", { class: "row" }, levelSelect("ai-level-1"), levelSelect("ai-level-2"));
  const syncAi = () => { aiLevels.children[1].hidden = aiCount.value !== "2"; };
  aiCount.addEventListener("change", syncAi);
  syncAi();
  const aiRules = rulesChoice("ai"), hsRules = rulesChoice("hs"), onRules = rulesChoice("on");
  const aiForm = el("form", { class: "mode-card", id: "form-ai" },
    el("h2", { text: "Play against the computer" }),
    nameInput("ai-name", "Your name", "You"),
    el("label", { class: "field", for: "ai-count" }, "Opponents", aiCount),
    aiLevels, aiRules.node,
    el("div", { class: "start-buttons" },
      el("button", { type: "submit", class: "primary", id: "start-ai", text: "Start game" }),
      el("button", { type: "button", id: "start-guided", text: "Guided first game",
        "aria-describedby": "guided-hint", onclick: async () => {
          // Against one easy computer, with a guide that explains each step as it comes.
          const seats = [{ kind: "human", name: aiForm.querySelector("#ai-name").value }, { kind: "ai", level: "easy" }];
          await create("ai", seats, (data) => { wantGuide(data.game.id); openOwnSeat(data); });
        } })),
    el("p", { class: "hint", id: "guided-hint", text: "New to the game? The guided game is against an easy computer, "
      + "with a tip at each step." }));
  aiForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const seats = [{ kind: "human", name: aiForm.querySelector("#ai-name").value }];
    for (let i = 1; i <= Number(aiCount.value); i++) {
      seats.push({ kind: "ai", level: aiForm.querySelector(`#ai-level-${i}`).value });
    }
    await create("ai", seats, (data) => { openOwnSeat(data); }, aiRules.value().then((variant) => ({ variant })));
  });

  // pass and play
  const hsCount = el("select", { id: "hs-count", name: "hs-count" },
    el("option", { value: "2", text: "2 players" }), el("option", { value: "3", text: "3 players" }));
  const hsNames = el("div", { class: "names" }, nameInput("hs-name-1", "Player 1", "Anna"),
    nameInput("hs-name-2", "Player 2", "Bjørn"), nameInput("hs-name-3", "Player 3", "Cecilia"));
  const syncHs = () => { hsNames.children[2].hidden = hsCount.value !== "3"; };
  hsCount.addEventListener("change", syncHs);
  syncHs();
  const hsForm = el("form", { class: "mode-card", id: "form-hotseat" },
    el("h2", { text: "Pass and play" }),
    el("p", { class: "hint", text: "One device, taking turns. Hands stay hidden between turns." }),
    el("label", { class: "field", for: "hs-count" }, "Players", hsCount), hsNames, hsRules.node,
    el("button", { type: "submit", class: "primary", id: "start-hotseat", text: "Start game" }));
  hsForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(hsCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: hsForm.querySelector(`#hs-name-${i}`).value });
    await create("hotseat", seats, (data) => { openOwnSeat(data); }, hsRules.value().then((variant) => ({ variant })));
  });

  // online
  const onCount = el("select", { id: "on-count", name: "on-count" },
    el("option", { value: "2", text: "2 players" }), el("option", { value: "3", text: "3 players" }));
  const onNames = el("div", { class: "names" }, nameInput("on-name-1", "Seat 1 (you)", "Anna"),
    nameInput("on-name-2", "Seat 2", "Bjørn"), nameInput("on-name-3", "Seat 3", "Cecilia"));
  const syncOn = () => { onNames.children[2].hidden = onCount.value !== "3"; };
  onCount.addEventListener("change", syncOn);
  syncOn();
  const invites = el("div", { class: "invites", id: "invites" });
  const rated = ratedOption();
  // The time control (see clocks.py): sent as is, checked by the server.
  const TIME_CONTROLS = {
    none: null,
    "turn-1d": { kind: "turn", per_move_s: 86400 },
    "turn-3d": { kind: "turn", per_move_s: 259200 },
    "realtime-60": { kind: "realtime", per_move_s: 60, reserve_s: 300 },
  };
  const onClock = el("select", { id: "on-clock", name: "on-clock" },
    el("option", { value: "none", text: "No clock" }),
    el("option", { value: "turn-1d", text: "Turn-based: 24 hours a move" }),
    el("option", { value: "turn-3d", text: "Turn-based: 3 days a move" }),
    el("option", { value: "realtime-60", text: "Real time: 1 minute a move + 5 minutes reserve" }));
  const onForm = el("form", { class: "mode-card", id: "form-online" },
    el("h2", { text: "Online with friends" }),
    el("p", { class: "hint", text: "Each seat gets its own secret link. Turns can wait: the game is kept on the server." }),
    el("label", { class: "field", for: "on-count" }, "Players", onCount), onNames,
    el("label", { class: "field", for: "on-clock" }, "Clock", onClock), onRules.node, rated.node,
    el("button", { type: "submit", class: "primary", id: "start-online", text: "Create game" }), invites);
  onForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(onCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: onForm.querySelector(`#on-name-${i}`).value });
    await create("online", seats, (data) => {
      // The creator plays seat 1 and keeps every seat's link, to show again at any time.
      rememberGame(data.game.id, data.invites[0].token, { mode: "online", invites: data.invites, creator: true });
      showInvites(invites, data.invites, "Send each player their own link:");
    }, onRules.value().then((variant) => ({ variant, ...(rated.checked() ? { rated: true } : {}),
      ...(TIME_CONTROLS[onClock.value] ? { time_control: TIME_CONTROLS[onClock.value] } : {}) })));
  });
  const last = latestCreated();
  if (last) showInvites(invites, last.invites, `Links of your last online game (${last.invites.map((i) => i.names.join(", ")).join(" · ")}):`);

  const modes = el("section", { class: "modes" }, aiForm, hsForm, onForm);
  nameOwnSeat([aiForm.querySelector("#ai-name"), onForm.querySelector("#on-name-1")]);
  // A returning player finds their games first; a newcomer, the ways to start one.
  if (hasGames()) app.append(hero, accountGamesSection(), myGamesSection(), modes);
  else app.append(hero, accountGamesSection(), modes, myGamesSection());
  publicGames(app);
}

function showInvites(box, invites, heading) {
  box.replaceChildren(el("p", { text: heading }), inviteList(invites),
    el("p", { class: "hint", text: "The links stay on this page, in Your games and on the game page." }));
}

function openOwnSeat(data) {
  rememberGame(data.game.id, data.invites[0].token, { mode: data.game.mode });
  location.href = data.invites[0].path;
}

/** Finished games of everyone: only on a server whose owner made them public (--public-games). */
async function publicGames(app) {
  let info;
  try { info = await api("/api/server"); } catch { return; }
  if (!info.public_games) return;
  const list = el("ul", { id: "finished-list" });
  app.append(el("section", { class: "finished" }, el("h2", { text: "Finished games on this server" }), list));
  try {
    const data = await api("/api/games?status=finished&limit=20");
    if (!data.games.length) list.append(el("li", { class: "muted", text: "No finished games yet." }));
    for (const g of data.games) {
      const names = g.seats.map((s) => s.name).join(" · ");
      const winners = (g.winners || []).map((w) => g.seats[w].name).join(" & ");
      const when = (g.finished_at || g.created_at || "").slice(0, 16).replace("T", " ");
      list.append(el("li", {}, el("a", { href: `/replay/${g.id}`, class: "public-replay-link", text: "Replay" }),
        ` ${names} — won by ${winners} `, el("span", { class: "muted", text: when })));
    }
  } catch (err) {
    list.append(el("li", { class: "muted", text: `Could not load finished games: ${err.message}` }));
  }
}

async function create(mode, seats, then, extra = {}) {
  try {
    const data = await api("/api/games", withCsrf({ method: "POST", body: JSON.stringify({ mode, seats, ...(await extra) }) }));
    await claimSeat(data.game.id, data.invites[0].token); // signed in: the game is the account's too
    then(data);
  } catch (err) {
    toast(err.message);
  }
}
