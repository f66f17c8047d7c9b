// The rules in the page: a panel with the rules of Nordic Countries (from the project's rules
// spec), small pictures drawn like the board's routes, and a way to open it at one section from
// any dialog ("?" buttons) or with the R key.
import { CARD_COLORS, CARD_LETTERS, DARK_CARDS, cardChip, el, svg } from "./ui.js";

/** A row of train spaces drawn like the board: colours, locomotive spaces, a tunnel's outline. */
function route(spaces, { color = "gray", locos = 0, tunnel = false, label = "" } = {}) {
  const w = 26, h = 13, gap = 4;
  const width = spaces * w + (spaces - 1) * gap + 4;
  const scale = Math.min(1.4, 330 / width);
  const picture = svg("svg", { viewBox: `0 0 ${width} ${h + 4}`, width: Math.round(width * scale),
    height: Math.round((h + 4) * scale),
    class: "rules-picture", role: "img", "aria-label": label });
  for (let i = 0; i < spaces; i++) {
    const x = 2 + i * (w + gap);
    picture.append(svg("rect", { x, y: 2, width: w, height: h, rx: 2, fill: CARD_COLORS[color],
      stroke: tunnel ? "#111" : "#3a3a3a", "stroke-width": tunnel ? 1.6 : 0.9, "stroke-dasharray": tunnel ? "3 2" : null }));
    if (i < locos) {
      picture.append(svg("rect", { x: x + w / 2 - 3.5, y: 2 + h / 2 - 3.5, width: 7, height: 7,
        transform: `rotate(45 ${x + w / 2} ${2 + h / 2})`, fill: "url(#rules-loco)", stroke: "#fff", "stroke-width": 0.8 }));
    } else {
      picture.append(svg("text", { x: x + w / 2, y: 2 + h / 2 + 4, "text-anchor": "middle", "font-size": 10,
        "font-weight": 700, fill: DARK_CARDS.has(color) ? "#fff" : "#111", text: CARD_LETTERS[color] }));
    }
  }
  return picture;
}

/** Cards in a row, as small chips (the payment pictures). */
function cards(list, label) {
  return el("span", { class: "rules-cards", role: "img", "aria-label": label },
    list.map((c) => { const chip = cardChip(c); chip.setAttribute("aria-hidden", "true"); return chip; }));
}

const SECTIONS = [
  ["setup", "Setup", () => [
    el("p", { text: "Each player gets 40 trains, 4 train cards and 5 destination tickets, and keeps at least 2 of "
      + "the 5 (the others leave the game). Five train cards lie face up: that is the display." }),
  ]],
  ["turn", "Your turn: one of three things", () => [
    el("ol", {},
      el("li", {}, el("strong", { text: "Draw 2 train cards" }), ", one at a time, each from the display or blind "
        + "from the deck. A face-up locomotive counts as one card like any other: you still take a second card."),
      el("li", {}, el("strong", { text: "Claim a route" }), " by paying its cost: as many cards of its colour as it has "
        + "spaces (any one colour for a gray route). Place your trains and score the route at once."),
      el("li", {}, el("strong", { text: "Draw 3 destination tickets" }), " and keep at least 1 (the others leave the game).")),
    el("table", { class: "rules-points" },
      el("tr", {}, el("th", { text: "Route length" }), ...[1, 2, 3, 4, 5, 6, 9].map((n) => el("td", { text: n }))),
      el("tr", {}, el("th", { text: "Points" }), ...[1, 2, 4, 7, 10, 15, 27].map((n) => el("td", { text: n })))),
  ]],
  ["locomotives", "Locomotives and the display", () => [
    el("p", { text: "Locomotives are wild, but only on ferries and tunnels: they can never pay for an ordinary route "
      + "(nor stand alone on Murmansk–Lieksa)." }),
    el("p", {}, el("strong", { text: "No flush in Nordic Countries: " }),
      "three or more locomotives in the display stay there. The display is never discarded and replaced, "
      + "unlike other editions. Board Game Arena regulars: this is not a bug."),
  ]],
  ["ferries", "Ferries and the 3-for-1", () => [
    route(3, { color: "orange", locos: 1, label: "A ferry of 3 orange spaces, one of them a locomotive space" }),
    el("p", { text: "A ferry shows locomotive spaces (the diamond): each needs a locomotive. Any 3 cards can stand in "
      + "for a locomotive, and for any other space too." }),
    el("p", {}, "Kristiansand–Stavanger (3 orange, 1 locomotive) takes ",
      cards(["orange", "orange", "locomotive"], "2 orange and 1 locomotive"), ", or ",
      cards(["orange", "orange", "red", "blue", "green"], "2 orange and any 3 cards"),
      " — but not 3 orange."),
  ]],
  ["tunnels", "Tunnels", () => [
    route(3, { color: "green", tunnel: true, label: "A tunnel of 3 green spaces, outlined in black dashes" }),
    el("p", { text: "Pay the tunnel's cost (its colour, locomotives allowed). Then the top 3 cards of the deck are "
      + "turned over: each one of the tunnel's colour or a locomotive asks for one more card of the tunnel's colour or "
      + "a locomotive. Pay them, or give up: your cards come back and your turn ends." }),
    el("p", { text: "Paid with locomotives only? Then only revealed locomotives count, and only locomotives can pay "
      + "the extra." }),
  ]],
  ["murmansk", "Murmansk–Lieksa", () => [
    route(9, { color: "gray", label: "Murmansk–Lieksa: 9 gray spaces" }),
    el("p", { text: "The 9-space route pays in one colour, and any 4 cards (locomotives included) can stand in for one "
      + "card. It scores 27 points." }),
  ]],
  ["double", "Double routes", () => [
    el("p", { text: "Some cities are joined by two routes side by side. One player may never claim both. In a "
      + "2-player game only one of the two can be claimed at all: the other closes." }),
  ]],
  ["end", "The final round", () => [
    el("p", { text: "When a player ends a turn with 2 trains or fewer, every player, that player included, has one "
      + "more turn. Then the game ends." }),
  ]],
  ["scoring", "Scoring and Globetrotter", () => [
    el("p", { text: "Route points are scored during play. At the end each ticket adds its value if your own routes "
      + "join its two cities, and takes it away if not." }),
    el("p", {}, el("strong", { text: "Globetrotter: " }), "the player who completed the most tickets gets 10 points "
      + "(all tied players get them). There is no longest-route bonus in Nordic Countries."),
  ]],
  ["ties", "Tie-breaks", () => [
    el("p", { text: "On equal totals, the player with the most completed tickets wins; then the longest continuous "
      + "path of trains; if still equal, the victory is shared." }),
  ]],
];

let panel = null;
let opener = null;

function build() {
  const defs = svg("svg", { width: 0, height: 0, "aria-hidden": "true", class: "rules-defs" },
    svg("defs", {}, svg("linearGradient", { id: "rules-loco", x1: 0, y1: 0, x2: 1, y2: 1 },
      ...["#d62828", "#f28c28", "#f2c500", "#2f9e44", "#2a6fdb", "#8e44ad"].map((c, i) =>
        svg("stop", { offset: `${(i / 5) * 100}%`, "stop-color": c })))));
  const toc = el("nav", { class: "rules-toc", "aria-label": "Rules sections" },
    SECTIONS.map(([id, title]) => el("a", { href: `#rules-${id}`, "data-section": id, text: title,
      onclick: (e) => { e.preventDefault(); show(id); } })));
  const body = el("div", { class: "rules-body" }, SECTIONS.map(([id, title, make]) =>
    el("section", { id: `rules-${id}`, class: "rules-section", "aria-labelledby": `rules-h-${id}` },
      el("h3", { id: `rules-h-${id}`, tabindex: -1, text: title }), make())));
  const close = el("button", { type: "button", class: "rules-close", id: "rules-close", "aria-label": "Close the rules",
    text: "✕", onclick: closeRules });
  const node = el("aside", { id: "rules-panel", class: "rules-panel", role: "dialog", "aria-label": "Rules", hidden: true },
    el("div", { class: "rules-head" }, el("h2", { text: "Rules of Nordic Countries" }), close), defs, toc, body);
  node.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); closeRules(); } });
  document.body.append(node);
  return node;
}

function show(id) {
  const heading = panel.querySelector(`#rules-h-${id}`);
  if (!heading) return;
  heading.scrollIntoView({ block: "start" });
  heading.focus({ preventScroll: true });
  panel.querySelectorAll(".rules-toc a").forEach((a) => a.classList.toggle("here", a.dataset.section === id));
}

/** Open the rules panel, at ``section`` when given (setup, turn, locomotives, ferries, tunnels, …). */
export function openRules(section = "setup") {
  if (!panel) panel = build();
  if (panel.hidden) opener = document.activeElement;
  panel.hidden = false;
  document.body.classList.add("rules-open");
  show(section);
}

export function closeRules() {
  if (!panel || panel.hidden) return;
  panel.hidden = true;
  document.body.classList.remove("rules-open");
  if (opener && document.contains(opener)) opener.focus();
  opener = null;
}

export const rulesOpen = () => Boolean(panel && !panel.hidden);

/** A "?" button that opens the rules at ``section`` (contextual help in dialogs). */
export function helpButton(section, what) {
  return el("button", { type: "button", class: "help-button", "data-rules": section,
    "aria-label": `Rules: ${what}`, title: `Rules: ${what}`, text: "?", onclick: () => openRules(section) });
}

/** The Rules button of the top bar. */
export function installRulesButton() {
  const button = document.getElementById("rules-open");
  if (button) button.addEventListener("click", () => openRules());
}
