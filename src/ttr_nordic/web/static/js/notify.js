// Your-turn signals: the tab title, an optional chime (sound.js's your-turn effect) and a
// desktop notification while the tab is hidden. Sound is off until the player turns it on;
// notification permission is asked only when the player clicks for it.
import { el } from "./ui.js";
import { play } from "./sound.js";
import { t } from "./i18n.js";

/** The page's own title (in the language in use). */
export const baseTitle = () => t("top.title");
const SOUND_KEY = "ttr-sound";

export const soundOn = () => localStorage.getItem(SOUND_KEY) === "1";

/** The your-turn effect of sound.js, at the page's volume (its first user gesture starts audio). */
export function chime() {
  play("turn");
}

const canNotify = () => "Notification" in window;

function notify(title, body, tag) {
  if (!canNotify() || Notification.permission !== "granted") return;
  try {
    const note = new Notification(title, { body, tag, icon: "/static/favicon.svg" });
    note.onclick = () => { window.focus(); note.close(); };
  } catch { /* some browsers allow notifications from a service worker only */ }
}

/** The signals of one game page: call update() after each state. */
export function turnSignals(gameId) {
  let wasMine = false;
  return {
    /** mine: this browser must act now; what: the phase text; waiting: whom we wait for. */
    update({ mine, what = "", waiting = "" }) {
      document.title = mine ? `● ${t("notify.yourTurn")} — ${baseTitle()}`
        : waiting ? `${t("notify.waitingFor", { player: waiting })} — ${baseTitle()}` : baseTitle();
      document.body.dataset.turnSignal = mine ? "1" : "0";
      if (mine && !wasMine) {
        if (soundOn()) chime();
        if (document.hidden) notify(t("notify.noteTitle"), what, `ttr-turn-${gameId}`);
      }
      wasMine = mine;
    },
  };
}

/** The switches: sound on my turn, and desktop notifications (asks permission on click). */
export function signalControls() {
  const sound = el("input", { type: "checkbox", id: "sound-toggle", checked: soundOn() });
  sound.addEventListener("change", () => {
    localStorage.setItem(SOUND_KEY, sound.checked ? "1" : "0");
    if (sound.checked) chime(); // so the player hears what it will sound like
  });
  const box = el("div", { class: "signals" },
    el("label", { class: "signal", for: "sound-toggle" }, sound, ` ${t("notify.sound")}`));
  if (canNotify()) {
    const button = el("button", { type: "button", id: "notify-toggle", class: "small" });
    const sync = () => {
      const p = Notification.permission;
      button.textContent = p === "granted" ? t("notify.on") : p === "denied" ? t("notify.blocked") : t("notify.ask");
      button.disabled = p !== "default";
      button.title = p === "denied" ? t("notify.blockedTitle") : t("notify.askTitle");
    };
    button.addEventListener("click", async () => {
      try { await Notification.requestPermission(); } catch { /* older browsers: callback form only */ }
      sync();
    });
    sync();
    box.append(button);
  }
  return box;
}
