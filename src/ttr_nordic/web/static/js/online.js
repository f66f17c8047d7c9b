// The game page's "At the table" panel: who is connected now (live, "X left" / "X is back"),
// every seat's invite link for the game's creator, handing an absent friend's seat to the
// computer, and the your-turn signals.
import { el, playerName, toast } from "./ui.js";
import { gameEntry, inviteList, rememberGame } from "./mygames.js";
import { signalControls, turnSignals } from "./notify.js";
import { t } from "./i18n.js";

const LEVELS = ["easy", "medium", "hard", "expert"];

/**
 * The online parts of one game page. `send(message)` sends a raw protocol message.
 * Returns {panel, presence(seats), update(msg, result)}; panel is null in pass-and-play.
 */
export function onlineFeatures({ gameId, token, summary, send }) {
  const mode = summary.mode;
  const signals = turnSignals(gameId);
  let present = null; // human seats connected now (null: not told yet)
  let seats = summary.seats;
  let mySeat = null;
  let over = summary.status === "finished";
  let registered = false;
  let finishedNoted = false;
  let drawnKey = "";
  const seen = new Set(); // seats seen connected since this page opened ("joined" once, then "is back")
  let invitesOpen = null; // the player's choice (null: open while a friend is missing)

  const people = el("ul", { class: "presence-list", id: "presence-list" });
  const invitesBox = el("div", { id: "invite-box" });
  const panel = mode === "hotseat" ? null : el("section", { class: "panel online", id: "online-panel",
    "aria-label": mode === "online" ? t("online.atTable") : t("online.signals") },
  el("h2", { text: mode === "online" ? t("online.atTable") : t("online.signals") }),
  mode === "online" ? people : null, mode === "online" ? invitesBox : null, signalControls());

  const name = (seat) => playerName(seats, seat);
  const isHuman = (seat) => seats[seat] && seats[seat].kind === "human";
  const creator = () => mode === "online" && mySeat === 0;

  function drawPeople() {
    if (mode !== "online" || mySeat === null) return;
    const key = JSON.stringify([present, seats, mySeat, over]);
    if (key === drawnKey) return;
    drawnKey = key;
    people.replaceChildren();
    seats.forEach((seat, index) => {
      const here = index === mySeat || (present !== null && present.includes(index));
      let state;
      if (!isHuman(index)) {
        // In an online game every seat was a person's: the computer plays it since it was handed over.
        const level = t(`start.level.${seat.level}`);
        if (index === mySeat) state = t("online.computerPlaysYours", { level });
        else state = present !== null && here ? t("online.computerWatching", { level }) : t("online.computer", { level });
      } else if (index === mySeat) state = t("online.you");
      else if (present === null) state = "…";
      else state = here ? t("online.here") : t("online.notConnected");
      const li = el("li", { "data-seat": index, class: !isHuman(index) ? "ai" : here ? "here" : "away" },
        el("span", { class: "dot", "aria-hidden": "true", text: isHuman(index) && !here ? "○" : "●" }),
        ` ${name(index)} — `, el("span", { class: "presence-state", text: state }));
      if (creator() && !over && isHuman(index) && !here && present !== null) {
        const level = el("select", { class: "handover-level", "aria-label": t("online.levelFor", { player: name(index) }) },
          LEVELS.map((l) => el("option", { value: l, selected: l === "medium", text: t(`start.level.${l}`) })));
        const button = el("button", { type: "button", class: "small handover", id: `handover-${index}`,
          text: t("online.computerPlays"), title: t("online.handOverTitle", { player: name(index) }),
          onclick: () => {
            // Two clicks: the first asks, the second hands over (no blocking browser dialog).
            if (button.dataset.armed !== "1") {
              button.dataset.armed = "1";
              button.textContent = t("online.handOverSure", { level: t(`start.level.${level.value}`) });
              button.classList.add("primary");
              return;
            }
            send({ type: "hand_over", seat: index, level: level.value });
            button.disabled = true;
          } });
        li.append(el("div", { class: "handover-row" }, level, button));
      }
      if (creator() && !over && !isHuman(index) && here && present !== null) {
        li.append(el("div", { class: "handover-row" }, el("button", { type: "button", class: "small handback",
          id: `handback-${index}`, text: t("online.giveBack", { player: name(index) }),
          onclick: (e) => { send({ type: "hand_back", seat: index }); e.target.disabled = true; } })));
      }
      people.append(li);
    });
    drawInvites();
  }

  function drawInvites() {
    const entry = gameEntry(gameId);
    const invites = entry && entry.invites;
    if (!invites || !invites.length || over) { invitesBox.replaceChildren(); return; }
    const others = invites.filter((inv) => !inv.seats.includes(mySeat));
    // Open while someone is not connected, so the links are at hand; the player's own choice wins.
    const missing = present !== null && others.some((inv) => inv.seats.some((s) => isHuman(s) && !present.includes(s)));
    const summaryLine = el("summary", { text: t("mygames.inviteLinks") });
    const details = el("details", { class: "invite-details", id: "invite-panel",
      open: invitesOpen === null ? missing : invitesOpen }, summaryLine, inviteList(invites, { open: false }));
    summaryLine.addEventListener("click", () => { invitesOpen = !details.open; });
    invitesBox.replaceChildren(details);
  }

  function markPlayers() {
    // The players table is redrawn with every state: mark who is connected in it again.
    if (mode !== "online") return;
    for (const row of document.querySelectorAll("#players tr[data-player]")) {
      const seat = Number(row.dataset.player);
      const old = row.querySelector(".presence-mark");
      if (old) old.remove();
      const here = seat === mySeat || (present !== null && present.includes(seat));
      row.classList.toggle("away", !here);
      row.cells[0].append(el("span", { class: `presence-mark ${here ? "here" : "away"}`,
        title: here ? t("online.connected") : t("online.notConnected"), text: here ? " ●" : " ○" },
      el("span", { class: "sr-only", text: ` (${here ? t("online.connected") : t("online.notConnected")})` })));
    }
  }

  return {
    panel,
    presence(list) {
      if (mode !== "online") return; // alone at the table (or one device): nobody to come and go
      if (present !== null) {
        for (const seat of list) {
          if (present.includes(seat) || seat === mySeat) continue;
          toast(seen.has(seat) ? t("online.back", { player: name(seat) }) : t("online.joined", { player: name(seat) }), "info");
        }
        for (const seat of present) {
          if (!list.includes(seat) && seat !== mySeat) toast(t("online.left", { player: name(seat) }), "info");
        }
      }
      present = list.slice();
      for (const seat of list) seen.add(seat);
      document.body.dataset.present = present.join(",");
      drawPeople();
      markPlayers();
    },
    update(msg, result) {
      if (!registered) {
        // The token opened a seat: this browser keeps the game (Your games on the start page).
        rememberGame(gameId, token, { mode });
        registered = true;
      }
      for (const seat of msg.seats) {
        const before = seats[seat.seat];
        if (before && before.kind === "human" && seat.kind === "ai") {
          toast(t("online.handedOver", { player: seat.name, level: t(`start.level.${seat.level}`) }), "info");
        } else if (before && before.kind === "ai" && seat.kind === "human") {
          toast(seat.seat === msg.seat ? t("online.yoursAgain") : t("online.playsAgain", { player: seat.name }), "info");
        }
      }
      seats = msg.seats;
      mySeat = msg.seat;
      over = !!result || msg.view.phase === "GAME_OVER";
      if (over && !finishedNoted) { rememberGame(gameId, token, { finished: true }); finishedNoted = true; }
      drawPeople();
      markPlayers();
      if (mode === "hotseat") return;
      const view = msg.view;
      const mine = !over && !!view.is_my_turn && msg.legal.length > 0;
      const waiting = !over && view.current !== null && view.current !== undefined && view.current !== msg.seat
        ? name(view.current) : "";
      signals.update({ mine, what: view.phase_text, waiting });
    },
  };
}
