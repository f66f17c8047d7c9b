// The guided first game: a panel that explains each step of a game against the computer as it
// comes (choosing tickets, the three choices of a turn, the second card, claiming, what the
// computer did, locomotives, ferries, tunnels, a finished ticket, the final round, the score).
// Each tip shows while it applies and is not shown again once the player has moved on or
// pressed "Got it". The guide is on for games started with "Guided first game".
import { openRules } from "./rules.js";
import { el } from "./ui.js";

const has = (legal, test) => legal.some((a) => test(a.action));
const draws = (legal) => has(legal, (a) => a === "B" || /^F[1-5]$/.test(a));

/** The tips, in the order they are offered; `when` says whether one applies now. */
export const STEPS = [
  { id: "tickets", topic: "setup", title: "Choose your destination tickets",
    when: (c) => c.mine && has(c.legal, (a) => a.startsWith("K")) && c.first,
    text: "Each ticket names two cities. Join them with your own trains by the end of the game and you score "
      + "the ticket's points; fail and you lose them. Keep at least 2 of the 5: for a first game, 2 or 3 short "
      + "ones that share cities. Point at a ticket to see its cities on the map." },
  { id: "turn", topic: "turn", title: "Your turn: one of three things",
    when: (c) => c.mine && has(c.legal, (a) => a === "T"),
    text: "Draw 2 train cards (the deck, or a face-up card: keys D and 1–5), claim a route between two cities, "
      + "or draw new tickets (T). Your ticket cities are ringed in red on the map: collect cards in the colours "
      + "of the routes that join them." },
  { id: "second-card", topic: "locomotives", title: "Take a second card",
    when: (c) => c.mine && draws(c.legal) && !has(c.legal, (a) => a === "T"),
    text: "A turn of drawing is two cards. A face-up locomotive counts as one card like any other in Nordic "
      + "Countries: you still take a second one." },
  { id: "claim", topic: "turn", title: "You can claim a route",
    when: (c) => c.mine && c.claimable > 0,
    text: "The glowing routes on the map are the ones your cards pay for now (they are also listed under "
      + "\u201cRoutes you can claim\u201d). Click one, choose how to pay, and your trains go down. Long routes score "
      + "far more: 1, 2, 4, 7, 10 and 15 points for 1 to 6 spaces." },
  { id: "opponent", topic: "double", title: "What the computer did",
    when: (c) => c.mine && c.otherClaims > 0,
    text: "The computer's newest route is outlined on the map, and its moves are listed under \u201cSince your "
      + "last turn\u201d. Where two tracks join the same cities, only one can be used in a 2-player game." },
  { id: "locomotives", topic: "locomotives", title: "Locomotives",
    when: (c) => c.mine && draws(c.legal) && c.view.display.includes("locomotive"),
    text: "Locomotives (the rainbow cards) are wild only on ferries and tunnels, never on an ordinary route. "
      + "Three or more on display stay there: there is no flush in Nordic Countries." },
  { id: "ferry", topic: "ferries", title: "A ferry",
    when: (c) => c.mine && c.ferries > 0,
    text: "A ferry's diamond spaces each need a locomotive, or any 3 cards in place of each one." },
  { id: "tunnel", topic: "tunnels", title: "A tunnel!",
    when: (c) => c.mine && has(c.legal, (a) => a.startsWith("X ") || a === "decline"),
    text: "Three cards were turned over from the deck. Each one of the tunnel's colour, or a locomotive, asks "
      + "for one more card. Pay them, or decline: your cards come back and your turn ends." },
  { id: "ticket-done", topic: "scoring", title: "Ticket done",
    when: (c) => c.view.tickets.some((t) => t.completed),
    text: "A completed ticket's cities turn green on the map. It adds its points at the end. With trains to "
      + "spare, drawing more tickets (T) can pay off; the player with the most completed tickets gets 10 more." },
  { id: "final", topic: "end", title: "The final round",
    when: (c) => typeof c.view.final_turns_left === "number" && c.view.final_turns_left >= 0 && !c.result,
    text: "A player is down to 2 trains or fewer: everyone, that player too, has one more turn. Finish a "
      + "ticket if you can." },
  { id: "over", topic: "scoring", title: "Game over",
    when: (c) => Boolean(c.result),
    text: "Tickets were added (done) or taken away (not done), and the most completed tickets earned "
      + "Globetrotter's 10 points. \u201cWatch the replay\u201d shows the game again, move by move." },
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
  const rules = el("button", { type: "button", class: "small", id: "guide-rules", text: "More in the rules" });
  const next = el("button", { type: "button", class: "small primary", id: "guide-next", text: "Got it" });
  const stop = el("button", { type: "button", class: "small link", id: "guide-stop", text: "Stop the guide" });
  const node = el("section", { class: "panel guide", id: "guide", "aria-labelledby": "guide-title",
    "aria-live": "polite", hidden: true }, el("div", { class: "guide-head" }, el("span", { class: "guide-badge",
    text: "Guide" }), title), text, el("div", { class: "guide-buttons" }, next, rules, stop));

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
    title.textContent = current.title;
    text.textContent = current.text;
  }
  return { node, update };
}
