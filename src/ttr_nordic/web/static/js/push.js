// Reminders: the account's reminder settings (e-mail, push, interval) and this browser's push
// subscription (a service worker at /sw.js shows the server's "your turn" messages).
import { api, el } from "./ui.js";
import { errorText } from "./errors.js";
import { language, t } from "./i18n.js";

// The intervals offered, in seconds, and their words.
const INTERVALS = [3600, 4 * 3600, 12 * 3600, 86400, 259200];

function intervalText(seconds) {
  if (seconds === 86400) return t("notify.onceADay");
  return seconds < 86400 ? t("notify.everyHours", { count: seconds / 3600 }) : t("notify.everyDays", { count: seconds / 86400 });
}

/** Register the service worker; resolves to its registration, or null where the browser has none. */
export async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  // The worker is told the page's language (for the words of a message that comes without its own).
  return navigator.serviceWorker.register(`/sw.js?lang=${encodeURIComponent(language())}`, { scope: "/" });
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Ask for permission and subscribe this browser; throws with a sentence when it cannot. */
export async function subscribePush(withCsrf) {
  if (!("PushManager" in window) || !("Notification" in window)) throw new Error(t("notify.noPush"));
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("notify.pushBlocked"));
  const registration = await registerWorker();
  const { key } = await api("/api/push/key");
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await api("/api/account/push", withCsrf({ method: "POST", body: JSON.stringify(subscription.toJSON()) }));
}

/** The "Reminders" section of the account settings. */
export function reminderSection(withCsrf) {
  const email = el("input", { type: "email", id: "reminder-email", maxlength: 254, autocomplete: "email", placeholder: t("notify.emailPlaceholder") });
  const emailOn = el("input", { type: "checkbox", id: "reminder-email-on" });
  const pushOn = el("input", { type: "checkbox", id: "reminder-push-on" });
  const interval = el("select", { id: "reminder-interval" }, ...INTERVALS.map((s) => el("option", { value: String(s), text: intervalText(s) })));
  const status = el("p", { class: "form-error", id: "reminder-status", role: "status", hidden: true });
  const form = el("form", { class: "account-form", id: "reminder-form" }, el("h3", { text: t("notify.reminders") }),
    el("p", { class: "hint", text: t("notify.remindersHint") }),
    el("label", { class: "field", for: "reminder-email" }, t("notify.email"), email),
    el("label", { class: "check" }, emailOn, ` ${t("notify.byEmail")}`),
    el("label", { class: "check" }, pushOn, ` ${t("notify.byPush")}`),
    el("label", { class: "field", for: "reminder-interval" }, t("notify.remindMe"), interval), status,
    el("button", { type: "submit", id: "save-reminders", text: t("notify.save") }));
  const say = (text, ok) => { status.textContent = text; status.className = ok ? "form-ok" : "form-error"; status.hidden = false; };
  // Nothing can be changed until the saved settings are in: a box ticked before they arrive would be
  // overwritten by them, and the save would quietly store the old choice.
  const controls = [...form.querySelectorAll("input, select, button")];
  const ready = (yes) => { for (const control of controls) control.disabled = !yes; form.setAttribute("aria-busy", String(!yes)); };
  ready(false);
  api("/api/account/reminders").then(({ reminders, email_enabled: mailing }) => {
    email.value = reminders.email || "";
    emailOn.checked = reminders.email_on;
    pushOn.checked = reminders.push_on;
    interval.value = String(reminders.interval_s);
    if (!mailing) emailOn.parentElement.append(el("span", { class: "muted", text: ` ${t("notify.noMail")}` }));
  }).catch((err) => say(errorText(err), false)).finally(() => ready(true));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      if (pushOn.checked) await subscribePush(withCsrf);
      await api("/api/account/reminders", withCsrf({ method: "PUT", body: JSON.stringify({
        email: email.value.trim() || null, email_on: emailOn.checked, push_on: pushOn.checked, interval_s: Number(interval.value),
        language: language() }) }));
      say(t("notify.saved"), true);
    } catch (err) {
      say(errorText(err), false);
    }
  });
  return form;
}
