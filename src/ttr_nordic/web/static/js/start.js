// Start page: new game (vs AI, pass-and-play, online) and this browser's games (resume, replay).
import { api, el, toast } from "./ui.js";
import { wantGuide } from "./guide.js";
import { hasGames, inviteList, latestCreated, myGamesSection, rememberGame, timeNode } from "./mygames.js";
import { accountGamesSection, claimSeat, nameOwnSeat, ratedOption, withCsrf } from "./account.js";
import { rulesChoice } from "./variant.js";
import { list as listOf, t } from "./i18n.js";
import { errorText } from "./errors.js";

const LEVELS = ["easy", "medium", "hard", "expert"];

function nameInput(id, label, value) {
  return el("label", { class: "field", for: id }, label,
    el("input", { id, name: id, type: "text", maxlength: 40, value, autocomplete: "off" }));
}

function levelSelect(id, value = "medium") {
  const select = el("select", { id, name: id });
  for (const l of LEVELS) select.append(el("option", { value: l, selected: l === value, text: t(`start.level.${l}`) }));
  return el("label", { class: "field", for: id }, t("start.levelLabel"), select);
}

export async function startPage(app) {
  document.title = t("top.title");
  app.replaceChildren();
  app.className = "start";
  const hero = el("section", { class: "hero" },
    el("h1", { text: t("top.title") }),
    el("p", { text: t("start.intro") }),
    el("p", {}, el("a", { class: "lobby-entry", id: "lobby-entry", href: "/lobby", text: t("start.lobbyEntry") })));

  // vs AI
  const aiCount = el("select", { id: "ai-count", name: "ai-count" },
    el("option", { value: "1", text: t("start.opponents", { count: 1 }) }),
    el("option", { value: "2", text: t("start.opponents", { count: 2 }) }));
  const aiLevels = el("div", { class: "row" }, levelSelect("ai-level-1"), levelSelect("ai-level-2"));
  const syncAi = () => { aiLevels.children[1].hidden = aiCount.value !== "2"; };
  aiCount.addEventListener("change", syncAi);
  syncAi();
  const aiRules = rulesChoice("ai"), hsRules = rulesChoice("hs"), onRules = rulesChoice("on");
  const aiForm = el("form", { class: "mode-card", id: "form-ai" },
    el("h2", { text: t("start.aiTitle") }),
    nameInput("ai-name", t("start.yourName"), t("start.you")),
    el("label", { class: "field", for: "ai-count" }, t("start.opponentsLabel"), aiCount),
    aiLevels, aiRules.node,
    el("div", { class: "start-buttons" },
      el("button", { type: "submit", class: "primary", id: "start-ai", text: t("start.startGame") }),
      el("button", { type: "button", id: "start-guided", text: t("start.guided"),
        "aria-describedby": "guided-hint", onclick: async () => {
          // Against one easy computer, with a guide that explains each step as it comes.
          const seats = [{ kind: "human", name: aiForm.querySelector("#ai-name").value }, { kind: "ai", level: "easy" }];
          await create("ai", seats, (data) => { wantGuide(data.game.id); openOwnSeat(data); });
        } })),
    el("p", { class: "hint", id: "guided-hint", text: t("start.guidedHint") }));
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
    el("option", { value: "2", text: t("start.players", { count: 2 }) }),
    el("option", { value: "3", text: t("start.players", { count: 3 }) }));
  const hsNames = el("div", { class: "names" }, nameInput("hs-name-1", t("start.playerN", { n: 1 }), "Anna"),
    nameInput("hs-name-2", t("start.playerN", { n: 2 }), "Bjørn"), nameInput("hs-name-3", t("start.playerN", { n: 3 }), "Cecilia"));
  const syncHs = () => { hsNames.children[2].hidden = hsCount.value !== "3"; };
  hsCount.addEventListener("change", syncHs);
  syncHs();
  const hsForm = el("form", { class: "mode-card", id: "form-hotseat" },
    el("h2", { text: t("start.hotseatTitle") }),
    el("p", { class: "hint", text: t("start.hotseatHint") }),
    el("label", { class: "field", for: "hs-count" }, t("start.playersLabel"), hsCount), hsNames, hsRules.node,
    el("button", { type: "submit", class: "primary", id: "start-hotseat", text: t("start.startGame") }));
  hsForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(hsCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: hsForm.querySelector(`#hs-name-${i}`).value });
    await create("hotseat", seats, (data) => { openOwnSeat(data); }, hsRules.value().then((variant) => ({ variant })));
  });

  // online
  const onCount = el("select", { id: "on-count", name: "on-count" },
    el("option", { value: "2", text: t("start.players", { count: 2 }) }),
    el("option", { value: "3", text: t("start.players", { count: 3 }) }));
  const onNames = el("div", { class: "names" }, nameInput("on-name-1", t("start.seatYou", { n: 1 }), "Anna"),
    nameInput("on-name-2", t("start.seatN", { n: 2 }), "Bjørn"), nameInput("on-name-3", t("start.seatN", { n: 3 }), "Cecilia"));
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
    el("option", { value: "none", text: t("start.clock.none") }),
    el("option", { value: "turn-1d", text: t("start.clock.turn1d") }),
    el("option", { value: "turn-3d", text: t("start.clock.turn3d") }),
    el("option", { value: "realtime-60", text: t("start.clock.realtime") }));
  const onForm = el("form", { class: "mode-card", id: "form-online" },
    el("h2", { text: t("start.onlineTitle") }),
    el("p", { class: "hint", text: t("start.onlineHint") }),
    el("label", { class: "field", for: "on-count" }, t("start.playersLabel"), onCount), onNames,
    el("label", { class: "field", for: "on-clock" }, t("start.clockLabel"), onClock), onRules.node, rated.node,
    el("button", { type: "submit", class: "primary", id: "start-online", text: t("start.createGame") }), invites);
  onForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(onCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: onForm.querySelector(`#on-name-${i}`).value });
    await create("online", seats, (data) => {
      // The creator plays seat 1 and keeps every seat's link, to show again at any time.
      rememberGame(data.game.id, data.invites[0].token, { mode: "online", invites: data.invites, creator: true });
      showInvites(invites, data.invites, t("start.sendLinks"));
    }, onRules.value().then((variant) => ({ variant, ...(rated.checked() ? { rated: true } : {}),
      ...(TIME_CONTROLS[onClock.value] ? { time_control: TIME_CONTROLS[onClock.value] } : {}) })));
  });
  const last = latestCreated();
  if (last) showInvites(invites, last.invites,
    t("start.lastLinks", { players: last.invites.map((i) => listOf(i.names)).join(" · ") }));

  const modes = el("section", { class: "modes" }, aiForm, hsForm, onForm);
  nameOwnSeat([aiForm.querySelector("#ai-name"), onForm.querySelector("#on-name-1")]);
  // A returning player finds their games first; a newcomer, the ways to start one.
  if (hasGames()) app.append(hero, accountGamesSection(), myGamesSection(), modes);
  else app.append(hero, accountGamesSection(), modes, myGamesSection());
  publicGames(app);
}

function showInvites(box, invites, heading) {
  box.replaceChildren(el("p", { text: heading }), inviteList(invites),
    el("p", { class: "hint", text: t("start.linksStay") }));
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
  app.append(el("section", { class: "finished" }, el("h2", { text: t("start.finishedTitle") }), list));
  try {
    const data = await api("/api/games?status=finished&limit=20");
    if (!data.games.length) list.append(el("li", { class: "muted", text: t("start.noFinished") }));
    for (const g of data.games) {
      const names = g.seats.map((s) => s.name).join(" · ");
      const winners = listOf((g.winners || []).map((w) => g.seats[w].name));
      list.append(el("li", {}, el("a", { href: `/replay/${g.id}`, class: "public-replay-link", text: t("start.replay") }),
        ` ${t("start.wonBy", { players: names, winners })} `, el("span", { class: "muted" }, timeNode(g.finished_at || g.created_at))));
    }
  } catch (err) {
    list.append(el("li", { class: "muted", text: t("start.finishedFailed", { reason: errorText(err) }) }));
  }
}

async function create(mode, seats, then, extra = {}) {
  try {
    const data = await api("/api/games", withCsrf({ method: "POST", body: JSON.stringify({ mode, seats, ...(await extra) }) }));
    await claimSeat(data.game.id, data.invites[0].token); // signed in: the game is the account's too
    then(data);
  } catch (err) {
    toast(errorText(err));
  }
}
