// The phone's docked bar (one-column layout, style.css): your hand stays in view at the bottom of
// the screen, beside a button with your tickets done/total that opens the ticket list over the
// page. On a laptop the side panel docks the hand and the tickets already; the button is hidden.
// Each ticket not yet done says how many cars its cheapest connection still needs (progress.js).
import { el } from "./ui.js";
import { ticketPath } from "./progress.js";
import { t } from "./i18n.js";

/**
 * The tickets button of the phone's dock, put just before the ``tickets`` panel (the panel that
 * game.js renders the ticket list into). The button shows done/total and opens or closes the list
 * (``body.tickets-open``); Escape or a tap elsewhere closes it.
 *
 * Example:
 *   const dock = makePhoneDock(ticketsPanel);
 *   dock.update(view, { board, seat: 0, hidden: false }); // after each render of the ticket list
 */
export function makePhoneDock(tickets) {
  // The name is the visible text ("Tickets 1/3") and a word for screen readers; aria-expanded
  // says whether the list is open.
  const count = el("span", { class: "tickets-count" });
  const toggle = el("button", { type: "button", id: "tickets-toggle", class: "tickets-toggle",
    "aria-controls": tickets.id, "aria-expanded": "false" },
  el("span", { class: "tickets-word", text: t("dock.tickets") }), " ", count,
  el("span", { class: "sr-only", text: ` ${t("game.ticketDone")}` }));
  tickets.before(toggle);
  const isOpen = () => document.body.classList.contains("tickets-open");
  function setOpen(open) {
    document.body.classList.toggle("tickets-open", open);
    toggle.setAttribute("aria-expanded", String(open));
  }
  toggle.addEventListener("click", () => setOpen(!isOpen()));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      setOpen(false);
      toggle.focus();
    }
  });
  // A tap on the map or the cards puts the list away; taps inside the list (a ticket shows its
  // missing routes on the map) keep it open.
  document.addEventListener("pointerdown", (event) => {
    if (isOpen() && !tickets.contains(event.target) && !toggle.contains(event.target)) setOpen(false);
  });

  // The paths are worked out again only when a route changed hands: most updates are card draws.
  let pathsFor = null;
  const paths = new Map();
  let cities = { board: null, id: new Map() }; // city name → id, for the board given last

  /** Show done/total on the button and each open ticket's cars still to claim in the list. */
  function update(view, { board, seat, hidden }) {
    const list = hidden ? [] : view.tickets;
    const done = list.filter((ticket) => ticket.completed).length;
    count.textContent = hidden ? "–" : `${done}/${list.length}`;
    // At the end the final scores say which tickets failed: no cars are "to go" any more.
    if (hidden || view.phase === "GAME_OVER") return;
    if (cities.board !== board) cities = { board, id: new Map(board.cities.map((c) => [c.name, c.id])) };
    const owners = `${seat}:${view.route_owner.join(",")}`;
    if (owners !== pathsFor) { paths.clear(); pathsFor = owners; }
    for (const ticket of list) {
      const row = tickets.querySelector(`li[data-ticket="${ticket.id}"]`);
      if (!row || ticket.completed) continue;
      if (!paths.has(ticket.id)) {
        paths.set(ticket.id, ticketPath(board, view.route_owner, seat, cities.id.get(ticket.from), cities.id.get(ticket.to)));
      }
      const path = paths.get(ticket.id);
      const words = path === null ? t("dock.noWayLeft") : t("dock.carsToGo", { count: path.cars });
      // Last in the row's text (the points' stub is drawn at the right edge whatever the order):
      // "Oslo – Bergen 7 (not yet) 5 cars to go".
      row.append(el("span", { class: `ticket-togo${path === null ? " blocked" : ""}`, text: words }));
    }
  }

  return { toggle, update, setOpen };
}
