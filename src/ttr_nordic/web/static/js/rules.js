// The rules in the page: a panel with the rules of Nordic Countries (from the project's rules
// spec), small pictures drawn like the board's routes, and a way to open it at one section from
// any dialog ("?" buttons) or with the R key. Its words are the "rules" catalogue's (i18n/<language>/
// rules.json); bold lead-ins and lists stay here, each piece of text is one message.
import { num, t } from "./i18n.js";
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

/** Cards in a row, as small chips, with their caption (the payment pictures). */
function cards(list, caption) {
  const chips = el("span", { class: "rules-cards", "aria-hidden": "true" }, list.map((c) => {
    const chip = cardChip(c);
    chip.removeAttribute("title"); // the caption says what the cards are
    return chip;
  }));
  return el("li", {}, chips, el("span", { class: "rules-caption", text: caption }));
}

// A paragraph with a bold lead-in: two messages, the lead and the rest of the sentence.
const lead = (strong, rest) => el("p", {}, el("strong", { text: strong }), rest);

/** The sections: [id, title, body]; called when the panel is built, in the page's language. */
const SECTIONS = () => [
  ["setup", t("rules.hSetup"), () => [el("p", { text: t("rules.setup") })]],
  ["turn", t("rules.hTurn"), () => [
    el("ol", {},
      el("li", {}, el("strong", { text: t("rules.drawLead") }), t("rules.draw")),
      el("li", {}, el("strong", { text: t("rules.claimLead") }), t("rules.claim")),
      el("li", {}, el("strong", { text: t("rules.ticketsLead") }), t("rules.tickets"))),
    el("table", { class: "rules-points" },
      el("tr", {}, el("th", { text: t("rules.routeLength") }), ...[1, 2, 3, 4, 5, 6, 9].map((n) => el("td", { text: num(n) }))),
      el("tr", {}, el("th", { text: t("rules.points") }), ...[1, 2, 4, 7, 10, 15, 27].map((n) => el("td", { text: num(n) })))),
  ]],
  ["locomotives", t("rules.hLocomotives"), () => [
    el("p", { text: t("rules.locomotives") }),
    lead(t("rules.noFlushLead"), t("rules.noFlush")),
  ]],
  ["ferries", t("rules.hFerries"), () => [
    route(3, { color: "orange", locos: 1, label: t("rules.ferryPicture") }),
    el("p", { text: t("rules.ferries") }),
    el("p", { text: t("rules.ferryExample") }),
    el("ul", { class: "rules-pays" },
      cards(["orange", "orange", "locomotive"], t("rules.ferryPaysLoco")),
      cards(["orange", "orange", "red", "blue", "green"], t("rules.ferryPaysThree"))),
    el("p", { text: t("rules.ferryNot") }),
  ]],
  ["tunnels", t("rules.hTunnels"), () => [
    route(3, { color: "green", tunnel: true, label: t("rules.tunnelPicture") }),
    el("p", { text: t("rules.tunnels") }),
    el("p", { text: t("rules.tunnelsLocos") }),
  ]],
  ["murmansk", t("rules.hMurmansk"), () => [
    route(9, { color: "gray", label: t("rules.murmanskPicture") }),
    el("p", { text: t("rules.murmansk") }),
  ]],
  ["double", t("rules.hDouble"), () => [el("p", { text: t("rules.double") })]],
  ["end", t("rules.hEnd"), () => [el("p", { text: t("rules.end") })]],
  ["scoring", t("rules.hScoring"), () => [
    el("p", { text: t("rules.scoring") }),
    lead(t("rules.globetrotterLead"), t("rules.globetrotter")),
  ]],
  ["ties", t("rules.hTies"), () => [el("p", { text: t("rules.ties") })]],
];

let panel = null;
let opener = null;

function build() {
  const defs = svg("svg", { width: 0, height: 0, "aria-hidden": "true", class: "rules-defs" },
    svg("defs", {}, svg("linearGradient", { id: "rules-loco", x1: 0, y1: 0, x2: 1, y2: 1 },
      ...["#d62828", "#f28c28", "#f2c500", "#2f9e44", "#2a6fdb", "#8e44ad"].map((c, i) =>
        svg("stop", { offset: `${(i / 5) * 100}%`, "stop-color": c })))));
  const sections = SECTIONS();
  const toc = el("nav", { class: "rules-toc", "aria-label": t("rules.sections") },
    sections.map(([id, title]) => el("a", { href: `#rules-${id}`, "data-section": id, text: title,
      onclick: (e) => { e.preventDefault(); show(id); } })));
  const body = el("div", { class: "rules-body" }, sections.map(([id, title, make]) =>
    el("section", { id: `rules-${id}`, class: "rules-section", "aria-labelledby": `rules-h-${id}` },
      el("h3", { id: `rules-h-${id}`, tabindex: -1, text: title }), make())));
  const close = el("button", { type: "button", class: "rules-close", id: "rules-close", "aria-label": t("rules.close"),
    text: "✕", onclick: closeRules });
  const node = el("div", { id: "rules-panel", class: "rules-panel", role: "dialog", "aria-label": t("rules.dialog"),
    hidden: true },
    el("div", { class: "rules-head" }, el("h2", { text: t("rules.title") }), close), defs, toc, body);
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

// The topics of the "?" buttons, as the dialogs name them, and their words.
const HELP_TOPICS = {
  "destination tickets": "rules.helpTickets", tunnels: "rules.helpTunnels", ferries: "rules.helpFerries",
  "Murmansk–Lieksa": "rules.helpMurmansk", "claiming a route": "rules.helpClaiming", scoring: "rules.helpScoring",
};

/**
 * A "?" button that opens the rules at ``section`` (contextual help in dialogs); ``what`` is its
 * topic, one of HELP_TOPICS' (written in the page's language), e.g. helpButton("tunnels", "tunnels").
 */
export function helpButton(section, what) {
  const words = t("rules.help", { topic: what in HELP_TOPICS ? t(HELP_TOPICS[what]) : what });
  return el("button", { type: "button", class: "help-button", "data-rules": section,
    "aria-label": words, title: words, text: "?", onclick: () => openRules(section) });
}

/** The Rules button of the top bar. */
export function installRulesButton() {
  const button = document.getElementById("rules-open");
  if (button) button.addEventListener("click", () => openRules());
}
