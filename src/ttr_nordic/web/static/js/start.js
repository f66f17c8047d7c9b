// Start page: new game (vs AI, pass-and-play, online) and the finished games to replay.
import { api, el, toast } from "./ui.js";

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
    el("p", { text: "Build railways from Bergen to Murmansk. Play against the computer, pass one device around, or invite friends online." }));

  // vs AI
  const aiCount = el("select", { id: "ai-count", name: "ai-count" },
    el("option", { value: "1", text: "1 opponent" }), el("option", { value: "2", text: "2 opponents" }));
  const aiLevels = el("div", { class: "row" }, levelSelect("ai-level-1"), levelSelect("ai-level-2"));
  const syncAi = () => { aiLevels.children[1].hidden = aiCount.value !== "2"; };
  aiCount.addEventListener("change", syncAi);
  syncAi();
  const aiForm = el("form", { class: "mode-card", id: "form-ai" },
    el("h2", { text: "Play against the computer" }),
    nameInput("ai-name", "Your name", "You"),
    el("label", { class: "field", for: "ai-count" }, "Opponents", aiCount),
    aiLevels,
    el("button", { type: "submit", class: "primary", id: "start-ai", text: "Start game" }));
  aiForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const seats = [{ kind: "human", name: aiForm.querySelector("#ai-name").value }];
    for (let i = 1; i <= Number(aiCount.value); i++) {
      seats.push({ kind: "ai", level: aiForm.querySelector(`#ai-level-${i}`).value });
    }
    await create("ai", seats, (data) => { location.href = data.invites[0].path; });
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
    el("label", { class: "field", for: "hs-count" }, "Players", hsCount), hsNames,
    el("button", { type: "submit", class: "primary", id: "start-hotseat", text: "Start game" }));
  hsForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(hsCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: hsForm.querySelector(`#hs-name-${i}`).value });
    await create("hotseat", seats, (data) => { location.href = data.invites[0].path; });
  });

  // online
  const onCount = el("select", { id: "on-count", name: "on-count" },
    el("option", { value: "2", text: "2 players" }), el("option", { value: "3", text: "3 players" }));
  const onNames = el("div", { class: "names" }, nameInput("on-name-1", "Seat 1", "Anna"),
    nameInput("on-name-2", "Seat 2", "Bjørn"), nameInput("on-name-3", "Seat 3", "Cecilia"));
  const syncOn = () => { onNames.children[2].hidden = onCount.value !== "3"; };
  onCount.addEventListener("change", syncOn);
  syncOn();
  const invites = el("div", { class: "invites", id: "invites" });
  const onForm = el("form", { class: "mode-card", id: "form-online" },
    el("h2", { text: "Online with friends" }),
    el("p", { class: "hint", text: "Each seat gets its own secret link. Turns can wait: the game is kept on the server." }),
    el("label", { class: "field", for: "on-count" }, "Players", onCount), onNames,
    el("button", { type: "submit", class: "primary", id: "start-online", text: "Create game" }), invites);
  onForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const n = Number(onCount.value);
    const seats = [];
    for (let i = 1; i <= n; i++) seats.push({ kind: "human", name: onForm.querySelector(`#on-name-${i}`).value });
    await create("online", seats, (data) => {
      invites.replaceChildren(el("p", { text: "Send each player their own link:" }));
      for (const inv of data.invites) {
        const url = new URL(inv.path, location.origin).href;
        const input = el("input", { type: "text", readonly: true, value: url, class: "invite-link",
          "aria-label": `Invite link for ${inv.names.join(", ")}`, "data-seat": inv.seats[0] });
        const copy = el("button", { type: "button", text: "Copy", onclick: async () => {
          input.select();
          try { await navigator.clipboard.writeText(url); toast("Link copied", "info"); }
          catch { document.execCommand("copy"); toast("Link copied", "info"); }
        } });
        invites.append(el("div", { class: "invite" }, el("strong", { text: inv.names.join(", ") }), input, copy,
          el("a", { href: inv.path, text: "Open" })));
      }
    });
  });

  const modes = el("section", { class: "modes" }, aiForm, hsForm, onForm);
  const finished = el("section", { class: "finished" }, el("h2", { text: "Finished games" }));
  const list = el("ul", { id: "finished-list" });
  finished.append(list);
  app.append(hero, modes, finished);

  try {
    const data = await api("/api/games?status=finished&limit=20");
    if (!data.games.length) list.append(el("li", { class: "muted", text: "No finished games yet." }));
    for (const g of data.games) {
      const names = g.seats.map((s) => s.name).join(" · ");
      const winners = (g.winners || []).map((w) => g.seats[w].name).join(" & ");
      const when = (g.finished_at || g.created_at || "").slice(0, 16).replace("T", " ");
      list.append(el("li", {}, el("a", { href: `/replay/${g.id}`, class: "replay-link", text: "Replay" }),
        ` ${names} — won by ${winners} `, el("span", { class: "muted", text: when })));
    }
  } catch (err) {
    list.append(el("li", { class: "muted", text: `Could not load finished games: ${err.message}` }));
  }
}

async function create(mode, seats, then) {
  try {
    const data = await api("/api/games", { method: "POST", body: JSON.stringify({ mode, seats }) });
    then(data);
  } catch (err) {
    toast(err.message);
  }
}
