// The game's clocks: each seat's time left, ticking for the seat to move, and the rule in words.
// The server sends the deadlines and decides every time-out: this panel only shows them.
import { el, levelName, playerName, swatch } from "./ui.js";
import { t } from "./i18n.js";

/** "2:05", "1 h 04 min", "2 d 3 h" for a number of seconds (never below zero; the units are the language's). */
export function formatLeft(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 86400) return t("clock.daysHours", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
  if (s >= 3600) {
    return t("clock.hoursMinutes", { h: Math.floor(s / 3600), m: String(Math.floor((s % 3600) / 60)).padStart(2, "0") });
  }
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A duration as the rule says it: 86400 -> "24 hours", 259200 -> "3 days", 90 -> "90 seconds". */
export function duration(seconds) {
  for (const [size, unit] of [[86400, "days"], [3600, "hours"], [60, "minutes"]]) {
    if (seconds % size === 0 && seconds >= size && !(unit === "days" && seconds === 86400)) {
      return t(`clock.${unit}`, { count: seconds / size });
    }
  }
  return seconds === 86400 ? t("clock.hours", { count: 24 }) : t("clock.seconds", { count: seconds });
}

/** The clock's rule in words, from its numbers (the server's `rule` is the same in English). */
export function ruleText(clock) {
  const each = clock.reserve_s
    ? t("clock.perMoveReserve", { time: duration(clock.per_move_s), reserve: duration(clock.reserve_s) })
    : t("clock.perMove", { time: duration(clock.per_move_s) });
  return `${each}. ${t("clock.timeoutRule", { level: levelName(clock.timeout_level), count: clock.hand_over_after })}`;
}

/** A panel showing a game's clock; update(clock, seats) after each state, hidden without a clock. */
export function makeClockPanel() {
  const panel = el("section", { class: "panel clocks", id: "clocks", "aria-label": t("clock.title"), hidden: true });
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
        swatch(p, true), ` ${playerName(seats, p)} `,
        computer ? el("span", { class: "clock-time", text: t("clock.computer") }) : cell,
        outs ? el("span", { class: "clock-outs", text: ` · ${t("clock.timeouts", { count: outs, max: clock.hand_over_after })}` })
          : null));
    });
    const kind = clock.kind === "turn" ? t("clock.turnBased") : t("clock.realTime");
    panel.replaceChildren(el("h2", { text: t("clock.title") }), rows,
      el("p", { class: "clock-rule", text: `${kind}: ${ruleText(clock)}` }));
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
