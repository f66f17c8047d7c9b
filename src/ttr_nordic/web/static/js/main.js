// Router: one page, three screens chosen by the path.
import { startPage } from "./start.js";
import { gamePage } from "./game.js";
import { replayPage } from "./replay.js";
import { installRulesButton } from "./rules.js";

installRulesButton();

const app = document.getElementById("app");
const toggle = document.getElementById("cb-toggle");
const saved = localStorage.getItem("cb-letters");
if (saved !== null) toggle.checked = saved === "1";
document.body.classList.toggle("cb-on", toggle.checked);
toggle.addEventListener("change", () => {
  document.body.classList.toggle("cb-on", toggle.checked);
  localStorage.setItem("cb-letters", toggle.checked ? "1" : "0");
});

const path = location.pathname;
let match;
if ((match = path.match(/^\/play\/([^/]+)$/))) {
  gamePage(app, decodeURIComponent(match[1]), new URLSearchParams(location.search).get("seat") || "");
} else if ((match = path.match(/^\/replay\/([^/]+)$/))) {
  replayPage(app, decodeURIComponent(match[1]));
} else {
  startPage(app);
}
