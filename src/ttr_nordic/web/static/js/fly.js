// What the other players draw, shown as a card flying from where it came from (the deck, a
// face-up slot, the ticket pile) to their row in the players table. Only a picture on top of the
// page: it never blocks a click, and the state it shows is already drawn underneath.
import { cardChip, el } from "./ui.js";
import { cardBack } from "./art.js";

const DURATION = { normal: 650, fast: 220 };

/**
 * The kind of draw a log entry records, as another player sees it, or null for anything else.
 * Face-up draws carry their slot and card; a blind draw and a ticket draw carry neither.
 *
 *   drawKind({notation: "F3", card: "red"}) → {from: "slot", slot: 3, card: "red"}
 */
export function drawKind(entry) {
  const notation = entry.notation || "";
  if (/^F[1-9]$/.test(notation)) return { from: "slot", slot: Number(notation.slice(1)), card: entry.card };
  if (notation === "T") return { from: "tickets" };
  // The engine hides which card another player drew blind: no notation, only the entry's kind
  // (or, from an older server, its English line).
  if (notation === "B" || entry.kind === "draw_blind"
    || (!notation && !entry.kind && / drew (a card|.+) from the deck$/.test(entry.text))) return { from: "deck" };
  return null;
}

/**
 * A flier: `fly(entry, player, speed)` animates one drawn card or ticket towards `player`'s row.
 * Successive draws (an AI's two cards arrive a few milliseconds apart) follow one another.
 */
export function makeFlier() {
  let queueEnd = 0;
  let flown = 0;
  const layer = el("div", { class: "fly-layer", "aria-hidden": "true" });
  document.body.append(layer);

  function centre(node) {
    const box = node.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }
  const visible = (node) => {
    if (!node) return false;
    const box = node.getBoundingClientRect();
    return box.width > 0 && box.bottom > 0 && box.top < window.innerHeight;
  };

  function fly(entry, player, speed) {
    const kind = drawKind(entry);
    if (!kind || speed === "off") return false;
    const source = kind.from === "slot" ? document.querySelector(`button.faceup[data-slot="${kind.slot}"]`)
      : kind.from === "deck" ? document.getElementById("deck") : document.getElementById("draw-tickets");
    const target = document.querySelector(`#players tr[data-player="${player}"]`);
    if (!visible(source) || !visible(target)) return false;
    const picture = kind.from === "slot" && kind.card ? cardChip(kind.card)
      : kind.from === "deck" ? el("span", { class: "card back" }, cardBack())
        : el("span", { class: "card ticket-back", text: "🎫" });
    const node = el("div", { class: "flying-card", "data-from": kind.from === "slot" ? `slot-${kind.slot}` : kind.from,
      "data-player": player }, picture);
    layer.append(node);
    const [x0, y0] = centre(source);
    const [x1, y1] = centre(target);
    const duration = DURATION[speed] || DURATION.normal;
    const now = performance.now();
    // Draws follow one another, but never lag more than one flight behind the game (a fast
    // player would otherwise build up a backlog of old draws still flying).
    const delay = Math.min(duration, Math.max(0, queueEnd - now));
    queueEnd = now + delay + duration * 0.55;
    const animation = node.animate([
      { transform: `translate(${x0}px, ${y0}px) translate(-50%, -50%) scale(1.15)`, opacity: 1 },
      { transform: `translate(${(x0 + x1) / 2}px, ${Math.min(y0, y1) - 30}px) translate(-50%, -50%) scale(1.1)`,
        opacity: 1, offset: 0.5 },
      { transform: `translate(${x1}px, ${y1}px) translate(-50%, -50%) scale(.6)`, opacity: 0.2 },
    ], { duration, delay, easing: "ease-in-out", fill: "both" });
    animation.onfinish = () => node.remove();
    animation.oncancel = () => node.remove();
    flown += 1;
    document.body.dataset.flown = String(flown);
    document.body.dataset.lastFly = `${node.dataset.from}>${player}`;
    return true;
  }
  return { fly };
}
