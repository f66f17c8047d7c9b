// The ways to pay for a route, as the server offers them, sorted for a person: the sensible ones
// first, the dominated ones folded away. Nothing here decides what is legal: it only orders the
// legal actions the server sent ("C <route> <cards>", one letter a card, L a locomotive).
import { CARD_LETTERS } from "./ui.js";
import { list, t } from "./i18n.js";
import { cardCount } from "./words.js";

const LETTER_COLOR = Object.fromEntries(Object.entries(CARD_LETTERS).map(([c, l]) => [l, c]));

/** The cards of a claim action ("C 12 OOL" → "OOL"). */
export const cardsOf = (action) => action.split(" ")[2] || "";

function counts(cards) {
  const n = new Map();
  for (const ch of cards) n.set(ch, (n.get(ch) || 0) + 1);
  return n;
}

// q's cards are all among p's (p pays everything q pays, and more).
function within(q, p) {
  for (const [ch, k] of q) if ((p.get(ch) || 0) < k) return false;
  return true;
}

/**
 * Split the claim actions of one route into {main, other}. A payment is folded into "other" when
 * another offered payment uses a part of its cards (a superset pays more for the same route), or
 * uses no more cards and fewer locomotives (a locomotive spent where a coloured card suffices).
 * The order of the server's offers is kept within each group.
 *
 * Example: ``splitPayments([{action: "C 5 OL"}, {action: "C 5 LL"}, {action: "C 5 OOOOL"}])``
 * → ``{main: [{action: "C 5 OL"}], other: [{action: "C 5 LL"}, {action: "C 5 OOOOL"}]}``.
 */
export function splitPayments(offers) {
  const shapes = offers.map((a) => {
    const cards = cardsOf(a.action);
    return { cards, n: counts(cards), total: cards.length, locos: [...cards].filter((c) => c === "L").length };
  });
  const dominated = shapes.map((p, i) => shapes.some((q, j) => j !== i && q.cards !== p.cards &&
    ((q.total < p.total && within(q.n, p.n)) || (q.total <= p.total && q.locos < p.locos))));
  return {
    main: offers.filter((_, i) => !dominated[i]),
    other: offers.filter((_, i) => dominated[i]),
  };
}

/** A payment in plain words: "Pay 2 orange and 1 locomotive" ("Bezahle 2 Orange und 1 Lokomotive"). */
export function paymentWords(cards) {
  const parts = [...counts(cards)].map(([ch, k]) => cardCount(LETTER_COLOR[ch], k));
  return t("cards.pay", { cards: list(parts) });
}
