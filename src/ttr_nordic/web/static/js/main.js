// Router: one page, three screens chosen by the path.
import { startPage } from "./start.js";
import { gamePage } from "./game.js";
import { replayPage } from "./replay.js";
import { installRulesButton } from "./rules.js";
import { claimSeat, installAccountMenu } from "./account.js";
import { profilePage } from "./profile.js";
import { lobbyPage } from "./lobby.js";
import { watchPage } from "./watch.js";
import { applyStatic, languagePicker, loadLanguage } from "./i18n.js";

// Every module writes its text at render time, so the language is loaded before anything is drawn.
await loadLanguage();
applyStatic();
document.getElementById("account-slot").before(languagePicker());

installRulesButton();
installAccountMenu();

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
  const seat = new URLSearchParams(location.search).get("seat") || "";
  claimSeat(decodeURIComponent(match[1]), seat); // a signed-in player's seat is recorded on the account
  gamePage(app, decodeURIComponent(match[1]), seat);
} else if ((match = path.match(/^\/replay\/([^/]+)$/))) {
  replayPage(app, decodeURIComponent(match[1]));
} else if ((match = path.match(/^\/players\/([^/]+)$/))) {
  profilePage(app, decodeURIComponent(match[1]));
} else if ((match = path.match(/^\/watch\/([^/]+)$/))) {
  watchPage(app, decodeURIComponent(match[1]));
} else if (path === "/lobby") {
  lobbyPage(app);
} else {
  startPage(app);
}
