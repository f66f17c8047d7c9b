// A hint's words: the server sends the move and its reasons as data (ai/hints.py), this makes the
// sentence in the page's language from the "hint" catalogue (in English the same wording as
// hint_text() there). Colours and cards have a message each, so that every language can inflect
// them ("2 rote Karten", "2 punaista korttia", "det røde kortet").
import { t } from "./i18n.js";

// The messages of each card and route colour: its name alone, a number of its cards, the face-up card.
const COLOURS = {
  purple: { name: "hint.colourPurple", cards: "hint.cardsPurple", faceUp: "hint.faceUpPurple" },
  white: { name: "hint.colourWhite", cards: "hint.cardsWhite", faceUp: "hint.faceUpWhite" },
  blue: { name: "hint.colourBlue", cards: "hint.cardsBlue", faceUp: "hint.faceUpBlue" },
  yellow: { name: "hint.colourYellow", cards: "hint.cardsYellow", faceUp: "hint.faceUpYellow" },
  orange: { name: "hint.colourOrange", cards: "hint.cardsOrange", faceUp: "hint.faceUpOrange" },
  black: { name: "hint.colourBlack", cards: "hint.cardsBlack", faceUp: "hint.faceUpBlack" },
  red: { name: "hint.colourRed", cards: "hint.cardsRed", faceUp: "hint.faceUpRed" },
  green: { name: "hint.colourGreen", cards: "hint.cardsGreen", faceUp: "hint.faceUpGreen" },
  locomotive: { cards: "hint.cardsLocomotive", faceUp: "hint.faceUpLocomotive" },
  gray: { name: "hint.colourGray" },
};
const SHAPES = { ferry: "hint.shapeFerry", tunnel: "hint.shapeTunnel", special: "hint.shapeSpecial" };

const colourName = (colour) => (COLOURS[colour]?.name ? t(COLOURS[colour].name) : colour);

/** "1 orange card and 1 locomotive" from [[1, "orange"], [1, "locomotive"]]. */
export function cardsWords(pairs) {
  const words = pairs.map(([n, card]) => (COLOURS[card]?.cards ? t(COLOURS[card].cards, { count: n }) : `${n} ${card}`));
  if (words.length <= 1) return words.join("") || t("hint.noCards");
  return t("hint.and", { items: words.slice(0, -1).join(", "), last: words[words.length - 1] });
}

function moveText(m) {
  switch (m.kind) {
    case "claim": {
      const shape = t(SHAPES[m.type] || "hint.shape", { count: m.length, colour: colourName(m.color) });
      return t("hint.claim", { route: m.route, shape, cards: cardsWords(m.cards) });
    }
    case "face_up": return COLOURS[m.card]?.faceUp ? t(COLOURS[m.card].faceUp) : m.card;
    case "deck": return t("hint.deck");
    case "tickets": return t("hint.tickets");
    case "keep": return t("hint.keep", { tickets: m.tickets.join(", ") });
    case "tunnel_pay": return t("hint.tunnelPay", { cards: cardsWords(m.cards) });
    case "tunnel_decline": return t("hint.tunnelDecline");
    default: return t("hint.pass");
  }
}

function reasonText(r, nameOf) {
  switch (r.code) {
    case "completes_ticket": return t("hint.completesTicket", { ticket: r.ticket, count: r.points });
    case "on_ticket_path": return t("hint.onTicketPath", { ticket: r.ticket });
    case "blocks": return t("hint.blocks", { player: nameOf(r.player) ?? t("hint.opponent"), ticket: r.ticket });
    case "scores": return t("hint.scores", { points: t("hint.scoresPoints", { count: r.points }),
      trains: t("hint.scoresTrains", { count: r.length }) });
    case "last_round": return t("hint.lastRound");
    case "collects_for": return t("hint.collectsFor", { have: r.have, count: r.need, colour: colourName(r.card),
      path: r.ticket ? t("hint.collectsPath", { route: r.route, ticket: r.ticket }) : r.route });
    case "locomotive": return t("hint.locomotive");
    case "nothing_fits": return t("hint.nothingFits");
    case "cannot_pay_yet": return t("hint.cannotPayYet");
    case "cards_short": return r.short ? t("hint.cardsShort", { count: r.short }) : t("hint.moreCards");
    case "tickets_done": return t("hint.ticketsDone", { count: r.trains });
    case "trains_to_spare": return t("hint.trainsToSpare", { count: r.spare });
    case "tickets_fit": return t("hint.ticketsFit", { count: r.trains, have: r.trains_left });
    case "already_connected": return t("hint.alreadyConnected", { ticket: r.ticket });
    case "tunnel_on_path": return t("hint.tunnelOnPath", { ticket: r.ticket });
    case "tunnel_too_dear": return t("hint.tunnelTooDear");
    default: return t("hint.nothingElse");
  }
}

/**
 * The sentence of a hint's ``why`` ({move, reasons}); ``nameOf(seat)`` names a player.
 * hintText({move: {kind: "deck"}, reasons: [{code: "locomotive"}]}, nameOf)
 *   -> "Draw from the deck: a locomotive pays for any colour." (in English)
 */
export function hintText(why, nameOf) {
  const reasons = why.reasons.map((r) => reasonText(r, nameOf)).join("; ");
  return reasons ? `${moveText(why.move)}: ${reasons}.` : `${moveText(why.move)}.`;
}
