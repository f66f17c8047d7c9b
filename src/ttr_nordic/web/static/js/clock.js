// The game's clocks: each seat's time left, ticking for the seat to move, and the rule in words.
// The server sends the deadlines and decides every time-out: this panel only shows them.
import { el, swatch } from "./ui.js";

/** "2:05", "1 h 04 min", "2 d 3 h" for a number of seconds (never below zero). */
export function formatLeft(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A panel showing a game's clock; update(clock, seats) after each state, hidden without a clock. */
export function makeClockPanel() {
  const panel = el("section", { class: "panel clocks", id: "clocks", "aria-label": "Clocks", hidden: true });
  let clock = null;
  let seats = [];
  let timer = null;
  const cells = new Map(); // seat -> its time cell

  function secondsLeft(seat) {
    if (!clock) return null;
    if (clock.seat === seat && clock.deadline) return (Date.parse(clock.deadline) - Date.now()) / 1000;
    return clock.per_move_s + (clock.reserves[seat] || 0);
  }

  function tick() {
    for (const [seat, cell] of cells) {
      const left = secondsLeft(seat);
      cell.textContent = left === null ? "—" : formatLeft(left);
      cell.classList.toggle("low", clock.seat === seat && clock.deadline !== null && left < Math.min(30, clock.per_move_s / 4));
    }
  }

  function build() {
    cells.clear();
    const rows = el("ul", { class: "clock-list" });
    seats.forEach((s, p) => {
      const moving = clock.seat === p && clock.deadline;
      const computer = s.kind === "ai";
      const cell = el("span", { class: "clock-time", "data-seat": p });
      if (!computer) cells.set(p, cell);
      const outs = clock.timeouts[p] || 0;
      rows.append(el("li", { class: moving ? "moving" : "", "data-seat": p },
        swatch(p, true), ` ${s.name || `Player ${p + 1}`} `,
        computer ? el("span", { class: "clock-time", text: "computer" }) : cell,
        outs ? el("span", { class: "clock-outs", text: ` · ${outs} of ${clock.hand_over_after} time-outs` }) : null));
    });
    const kind = clock.kind === "turn" ? "Turn-based game" : "Real-time game";
    panel.replaceChildren(el("h2", { text: "Clocks" }), rows, el("p", { class: "clock-rule", text: `${kind}: ${clock.rule}` }));
  }

  function update(next, nextSeats) {
    clock = next || null;
    seats = nextSeats || [];
    panel.hidden = !clock;
    if (timer) { clearInterval(timer); timer = null; }
    if (!clock) return;
    build();
    tick();
    if (clock.deadline) timer = setInterval(tick, 1000);
  }

  return { panel, update };
}
