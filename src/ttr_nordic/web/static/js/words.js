// The game's words in the page's language: card colours, payments, routes, the log's lines and the
// phase. The server sends each log line's English text (kept for records and the terminal) with
// what it is made of (kind, notation, cards); the page writes it again here with t().
import { t } from "./i18n.js";
import { playerName } from "./ui.js";

// The engine's card letters (notation), in its card order.
const LETTERS = { P: "purple", W: "white", U: "blue", Y: "yellow", O: "orange", K: "black", R: "red", G: "green",
  L: "locomotive" };
const ORDER = Object.values(LETTERS);

/** A card colour's name: colourName("red") -> "red" / "Rot" / "punainen". */
export function colourName(colour) {
  return t(`cards.${colour}`);
}

/** A count of cards of one colour: cardCount("red", 2) -> "2 red" / "2 røde" / "2 punaista". */
export function cardCount(colour, count) {
  return t(`cards.n_${colour}`, { count });
}

/** Cards as "2 orange + 1 locomotive", from counts by colour ({orange: 2, locomotive: 1}), in the
 * engine's card order; "nothing" when empty. */
export function cardsText(counts) {
  const parts = ORDER.filter((c) => counts[c]).map((c) => cardCount(c, counts[c]));
  return parts.length ? parts.join(" + ") : t("cards.nothing");
}

/** Counts by colour of a notation payment ("OOL" -> {orange: 2, locomotive: 1}). */
export function lettersToCounts(letters) {
  const counts = {};
  for (const ch of letters || "") if (LETTERS[ch]) counts[LETTERS[ch]] = (counts[LETTERS[ch]] || 0) + 1;
  return counts;
}

/** Counts by colour of a list of card names (a tunnel's revealed cards). */
function namesToCounts(names) {
  const counts = {};
  for (const c of names || []) if (c) counts[c] = (counts[c] || 0) + 1;
  return counts;
}

/** A route's length and colour: "3 × red" as the board shows it ("3 × Rot"). */
export function routeSize(route) {
  return t("map.size", { length: route.length, colour: colourName(route.color) });
}

/**
 * A log line in the page's language, from the server's entry (kind, notation, card, revealed,
 * kept, claimed) and the board (route and ticket names): logLine(entry, board, seats) ->
 * "Ada claimed Oslo – Bergen with 3 red" / "Ada hat Oslo – Bergen mit 3 Rot gebaut".
 * An entry of an older server (no kind) keeps its English text.
 */
export function logLine(entry, board, seats) {
  const player = playerName(seats, entry.player);
  const notation = entry.notation || "";
  const words = notation.split(" ");
  const route = () => {
    const found = board.routes.find((r) => r.code === words[1]);
    return found ? found.name : words[1];
  };
  switch (entry.kind) {
    case "draw_blind":
      return entry.card ? t("log.drewOwn", { player, card: colourName(entry.card) }) : t("log.drew", { player });
    case "draw_faceup":
      return t("log.faceUp", { player, card: colourName(entry.card) });
    case "draw_tickets":
      return t("log.drewTickets", { player });
    case "keep": {
      if (!notation) return t("log.kept", { player, count: entry.kept });
      const tickets = words.slice(1).map((id) => board.tickets[Number(id)]).filter(Boolean)
        .map((tk) => tk.name).join(", ");
      return t("log.keptOwn", { player, count: words.length - 1, tickets });
    }
    case "claim":
      return t("log.claimed", { player, route: route(), cards: cardsText(lettersToCounts(words[2])) });
    case "tunnel":
      return t(entry.claimed ? "log.tunnelClaimed" : "log.tunnelPending", { player, route: route(),
        cards: cardsText(lettersToCounts(words[2])), revealed: cardsText(namesToCounts(entry.revealed)) });
    case "pay_extra":
      return t("log.paidExtra", { player, cards: cardsText(lettersToCounts(words[1])) });
    case "decline":
      return t("log.declined", { player });
    case "pass":
      return t("log.passed", { player });
    default:
      return entry.text.replace(/\bPlayer (\d)\b/g, (m, d) => playerName(seats, Number(d) - 1));
  }
}

/** What the player to move must decide, from the view's phase (and its numbers). */
export function phaseText(view) {
  const known = ["INITIAL_TICKETS", "CHOOSE_ACTION", "SECOND_CARD", "KEEP_TICKETS", "TUNNEL_EXTRA", "GAME_OVER"];
  if (!known.includes(view.phase)) return view.phase_text || view.phase;
  const kept = view.phase_args && view.phase_args.kept;
  return t(`log.phase_${view.phase}`, { count: kept ?? 1 });
}
