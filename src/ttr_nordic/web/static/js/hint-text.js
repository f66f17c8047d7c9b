// A hint's words: the server sends the move and its reasons as data (ai/hints.py), this makes the
// English sentence (the same wording as hint_text() there). Kept apart so another language can
// replace it.

const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "1 orange card and 1 locomotive" from [[1, "orange"], [1, "locomotive"]]. */
export function cardsWords(pairs) {
  const words = pairs.map(([n, card]) => (card === "locomotive" ? count(n, "locomotive") : `${n} ${card} card${n === 1 ? "" : "s"}`));
  if (words.length <= 1) return words.join("") || "no cards";
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

function moveText(m) {
  switch (m.kind) {
    case "claim": {
      const shape = `${m.length} ${m.color}${m.type && m.type !== "regular" ? ` ${m.type}` : ""}`;
      return `Claim ${m.route} (${shape}) with ${cardsWords(m.cards)}`;
    }
    case "face_up": return m.card === "locomotive" ? "Take the face-up locomotive" : `Take the face-up ${m.card} card`;
    case "deck": return "Draw from the deck";
    case "tickets": return "Draw destination tickets";
    case "keep": return `Keep ${m.tickets.join(", ")}`;
    case "tunnel_pay": return `Pay the tunnel's extra ${cardsWords(m.cards)}`;
    case "tunnel_decline": return "Give up the tunnel";
    default: return "Pass";
  }
}

function reasonText(r, nameOf) {
  switch (r.code) {
    case "completes_ticket": return `completes your ticket ${r.ticket} (${r.points} points)`;
    case "on_ticket_path": return `it lies on your way for ${r.ticket}`;
    case "blocks": return `blocks ${nameOf(r.player)}, whose claims point to a ticket ${r.ticket}`;
    case "scores": return `scores ${count(r.points, "point")} for ${count(r.length, "train")}`;
    case "last_round": return "the last round is on: use your trains while you can";
    case "collects_for":
      return `you have ${r.have} of the ${r.need} ${r.card} cards your planned routes need (${r.ticket ? `${r.route} for ${r.ticket}` : r.route})`;
    case "locomotive": return "a locomotive pays for any colour";
    case "nothing_fits": return "no face-up card fits the routes your tickets need";
    case "cannot_pay_yet": return "you cannot pay for a route that helps a ticket yet";
    case "cards_short": return r.short ? `you are ${count(r.short, "card")} short of your planned routes` : "more cards, more choice";
    case "tickets_done": return `your tickets are connected and you have ${r.trains} trains left for new ones`;
    case "trains_to_spare": return `your tickets need fewer trains than you have (${r.spare} to spare)`;
    case "tickets_fit": return `they fit your network: about ${r.trains} trains for all your tickets, and you have ${r.trains_left}`;
    case "already_connected": return `${r.ticket} is connected already`;
    case "tunnel_on_path": return `the tunnel lies on your way for ${r.ticket}`;
    case "tunnel_too_dear": return "the extra cards cost more than the tunnel is worth to you now";
    default: return "nothing else is possible";
  }
}

/** The sentence of a hint's ``why`` ({move, reasons}); ``nameOf(seat)`` names a player. */
export function hintText(why, nameOf) {
  const reasons = why.reasons.map((r) => reasonText(r, nameOf)).join("; ");
  return reasons ? `${moveText(why.move)}: ${reasons}.` : `${moveText(why.move)}.`;
}
