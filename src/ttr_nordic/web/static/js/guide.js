// The guided first game: a panel that explains each step of a game against the computer as it
// comes (choosing tickets, the three choices of a turn, the second card, claiming, what the
// computer did, locomotives, ferries, tunnels, a finished ticket, the final round, the score).
// Each tip shows while it applies and is not shown again once the player has moved on or
// pressed "Got it". The guide is on for games started with "Guided first game".
import { openRules } from "./rules.js";
import { t } from "./i18n.js";
import { el } from "./ui.js";

const has = (legal, test) => legal.some((a) => test(a.action));
const draws = (legal) => has(legal, (a) => a === "B" || /^F[1-5]$/.test(a));

/** The tips, in the order they are offered; `when` says whether one applies now; `title()` and
 * `text()` are its words in the page's language. */
export const STEPS = [
  { id: "tickets", topic: "setup", title: () => t("guide.ticketsTitle"), text: () => t("guide.tickets"),
    when: (c) => c.mine && has(c.legal, (a) => a.startsWith("K")) && c.first },
  { id: "turn", topic: "turn", title: () => t("guide.turnTitle"), text: () => t("guide.turn"),
    when: (c) => c.mine && has(c.legal, (a) => a === "T") },
  { id: "second-card", topic: "locomotives", title: () => t("guide.secondCardTitle"), text: () => t("guide.secondCard"),
    when: (c) => c.mine && draws(c.legal) && !has(c.legal, (a) => a === "T") },
  { id: "claim", topic: "turn", title: () => t("guide.claimTitle"), text: () => t("guide.claim"),
    when: (c) => c.mine && c.claimable > 0 },
  { id: "opponent", topic: "double", title: () => t("guide.opponentTitle"), text: () => t("guide.opponent"),
    when: (c) => c.mine && c.otherClaims > 0 },
  { id: "locomotives", topic: "locomotives", title: () => t("guide.locomotivesTitle"), text: () => t("guide.locomotives"),
    when: (c) => c.mine && draws(c.legal) && c.view.display.includes("locomotive") },
  { id: "ferry", topic: "ferries", title: () => t("guide.ferryTitle"), text: () => t("guide.ferry"),
    when: (c) => c.mine && c.ferries > 0 },
  { id: "tunnel", topic: "tunnels", title: () => t("guide.tunnelTitle"), text: () => t("guide.tunnel"),
    when: (c) => c.mine && has(c.legal, (a) => a.startsWith("X ") || a === "decline") },
  { id: "ticket-done", topic: "scoring", title: () => t("guide.ticketDoneTitle"), text: () => t("guide.ticketDone"),
    when: (c) => c.view.tickets.some((ticket) => ticket.completed) },
  { id: "final", topic: "end", title: () => t("guide.finalTitle"), text: () => t("guide.final"),
    when: (c) => typeof c.view.final_turns_left === "number" && c.view.final_turns_left >= 0 && !c.result },
  { id: "over", topic: "scoring", title: () => t("guide.overTitle"), text: () => t("guide.over"),
    when: (c) => Boolean(c.result) },
];

/** Whether the guide is on for this game (set by the start page's "Guided first game"). */
export const guideWanted = (gameId) => localStorage.getItem(`ttr-guide:${gameId}`) === "on";
export function wantGuide(gameId) { localStorage.setItem(`ttr-guide:${gameId}`, "on"); }

/**
 * The guide of one game page. `update(ctx)` after each render, with
 * {view, legal, claimable (a Set of route codes), since, result, hidden, routeByCode}.
 */
export function makeGuide(gameId) {
  const seenKey = `ttr-guide-seen:${gameId}`;
  const seen = new Set(JSON.parse(localStorage.getItem(seenKey) || "[]"));
  let on = guideWanted(gameId);
  let current = null;
  let shownAt = 0; // this player's moves when the current tip appeared
  let last = null;
  const title = el("h2", { id: "guide-title" });
  const text = el("p", { id: "guide-text" });
  const rules = el("button", { type: "button", class: "small", id: "guide-rules", text: t("guide.rules") });
  const next = el("button", { type: "button", class: "small primary", id: "guide-next", text: t("guide.next") });
  const stop = el("button", { type: "button", class: "small link", id: "guide-stop", text: t("guide.stop") });
  const node = el("section", { class: "panel guide", id: "guide", "aria-labelledby": "guide-title",
    "aria-live": "polite", hidden: true }, el("div", { class: "guide-head" }, el("span", { class: "guide-badge",
    text: t("guide.badge") }), title), text, el("div", { class: "guide-buttons" }, next, rules, stop));

  const save = () => localStorage.setItem(seenKey, JSON.stringify([...seen]));
  const markSeen = (id) => { seen.add(id); save(); };
  rules.addEventListener("click", () => { if (current) openRules(current.topic); });
  next.addEventListener("click", () => { if (current) markSeen(current.id); current = null; if (last) update(last); });
  stop.addEventListener("click", () => {
    on = false;
    localStorage.removeItem(`ttr-guide:${gameId}`);
    node.hidden = true;
  });

  function context({ view, legal, claimable, since, result, hidden, routeByCode }) {
    const codes = [...claimable];
    return { view, legal, result, mine: view.is_my_turn && legal.length > 0 && !result && !hidden,
      claimable: codes.length, otherClaims: since.claims.length, first: since.first,
      ferries: codes.filter((code) => routeByCode.get(code).ferry_locomotives > 0).length };
  }

  function update(state) {
    last = state;
    if (!on) { node.hidden = true; return; }
    const c = context(state);
    const moves = state.view.log.filter((e) => e.player === state.view.player).length;
    // A tip that no longer applies, or that the player has moved on from, was read: it is not
    // offered again.
    if (current && (!current.when(c) || moves > shownAt)) { markSeen(current.id); current = null; }
    if (!current) {
      current = STEPS.find((s) => !seen.has(s.id) && s.when(c)) || null;
      shownAt = moves;
    }
    node.hidden = !current;
    if (!current) return;
    node.dataset.step = current.id;
    title.textContent = current.title();
    text.textContent = current.text();
  }
  return { node, update };
}
