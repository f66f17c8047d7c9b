// The game's own pictures, drawn in SVG: a train on each colour card, a locomotive card of its
// own, a card back for the deck. Each is written once below and installed as a CSS image
// (installCardArt): the cards and the deck show it from art.css, so a render builds no SVG per card.
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** The pictures: a steam train (colour cards), a locomotive seen from the front, a card back. */
const PICTURES = [
  ["art-train", "0 0 40 24", `
    <circle cx="13" cy="1.8" r="1.6" opacity=".45"/><circle cx="9.5" cy="1.2" r="1.1" opacity=".3"/>
    <path fill-rule="evenodd" d="M10 8h16V3h11v14H10zM28 5h7v5h-7zM12 8V3.5h4V8zM18.5 8a2.5 2.5 0 0 1 5 0zM10 11L3.5 17H10z"/>
    <circle cx="15" cy="19" r="3.2"/><circle cx="23" cy="19" r="3.2"/><circle cx="32" cy="19.5" r="2.6"/>
    <rect x="1" y="22.4" width="38" height="1.4" rx=".7"/>`],
  ["art-loco", "0 0 40 24", `
    <path fill="#fff" stroke="#1b1b1b" stroke-width="1.2" fill-rule="evenodd"
      d="M13 21V6a5 5 0 0 1 5-5h4a5 5 0 0 1 5 5v15zM15.5 5h9v5h-9z"/>
    <circle cx="20" cy="15" r="2.4" fill="#f2c500" stroke="#1b1b1b" stroke-width="1"/>
    <rect x="14.5" y="17.5" width="3" height="2" fill="#1b1b1b"/><rect x="22.5" y="17.5" width="3" height="2" fill="#1b1b1b"/>
    <rect x="8" y="21.6" width="24" height="1.6" rx=".8" fill="#1b1b1b"/>`],
  ["art-back", "0 0 24 34", `
    <rect x="1" y="1" width="22" height="32" rx="3" fill="#1d3b53" stroke="#f2c500" stroke-width="1.2"/>
    <rect x="3.5" y="3.5" width="17" height="27" rx="2" fill="none" stroke="#f2c500" stroke-width=".6" opacity=".7"/>
    <path fill="#f2c500" d="M12 9l2.2 6.3L12 25l-2.2-9.7zM6 17l6-1.3 6 1.3-6 1.3z" opacity=".9"/>`],
];

/**
 * The cards' pictures as CSS images (custom properties on the page's root), made once from the
 * same pictures: every card shows them through its ::after (art.css), so a render adds no element
 * per card. `--art-train` is a mask painted in the card's ink; `--art-loco` is in colour.
 *
 *   installCardArt() → :root { --art-train: url("data:image/svg+xml,…"); --art-loco: …; --art-back: … }
 */
export function installCardArt(doc = document) {
  const root = doc.documentElement;
  if (root.style.getPropertyValue("--art-train")) return;
  for (const [id, box, body] of PICTURES) {
    const image = `<svg xmlns="${SVG_NS}" viewBox="${box}">${body.replace(/\s+/g, " ")}</svg>`;
    root.style.setProperty(`--${id}`, `url("data:image/svg+xml,${encodeURIComponent(image)}")`);
  }
}
installCardArt();

/**
 * The back of a train card (the deck, a card flying from it): an element showing `--art-back`.
 *
 *   cardBack() → <span class="card-back-art" role="img" aria-label="Card back"></span>
 */
export function cardBack() {
  const picture = document.createElement("span");
  picture.className = "card-back-art";
  picture.setAttribute("role", "img");
  picture.setAttribute("aria-label", t("cards.back"));
  return picture;
}
