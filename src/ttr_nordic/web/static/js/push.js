// Reminders: the account's reminder settings (e-mail, push, interval) and this browser's push
// subscription (a service worker at /sw.js shows the server's "your turn" messages).
import { api, el } from "./ui.js";

const INTERVALS = [[3600, "every hour"], [4 * 3600, "every 4 hours"], [12 * 3600, "every 12 hours"],
  [86400, "once a day"], [259200, "every 3 days"]];

/** Register the service worker; resolves to its registration, or null where the browser has none. */
export async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  return navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Ask for permission and subscribe this browser; throws with a sentence when it cannot. */
export async function subscribePush(withCsrf) {
  if (!("PushManager" in window) || !("Notification" in window)) throw new Error("This browser cannot receive push reminders.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications are blocked for this site: allow them in the browser to get push reminders.");
  const registration = await registerWorker();
  const { key } = await api("/api/push/key");
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await api("/api/account/push", withCsrf({ method: "POST", body: JSON.stringify(subscription.toJSON()) }));
}

/** The "Reminders" section of the account settings. */
export function reminderSection(withCsrf) {
  const email = el("input", { type: "email", id: "reminder-email", maxlength: 254, autocomplete: "email", placeholder: "name@example.org" });
  const emailOn = el("input", { type: "checkbox", id: "reminder-email-on" });
  const pushOn = el("input", { type: "checkbox", id: "reminder-push-on" });
  const interval = el("select", { id: "reminder-interval" }, ...INTERVALS.map(([s, t]) => el("option", { value: String(s), text: t })));
  const status = el("p", { class: "form-error", id: "reminder-status", role: "status", hidden: true });
  const form = el("form", { class: "account-form", id: "reminder-form" }, el("h3", { text: "Reminders" }),
    el("p", { class: "hint", text: "When it is your turn in a game with a clock and your tab is closed. At most one per game per interval." }),
    el("label", { class: "field", for: "reminder-email" }, "E-mail address", email),
    el("label", { class: "check" }, emailOn, " By e-mail"),
    el("label", { class: "check" }, pushOn, " By notification on this device"),
    el("label", { class: "field", for: "reminder-interval" }, "Remind me", interval), status,
    el("button", { type: "submit", id: "save-reminders", text: "Save reminders" }));
  const say = (text, ok) => { status.textContent = text; status.className = ok ? "form-ok" : "form-error"; status.hidden = false; };
  api("/api/account/reminders").then(({ reminders, email_enabled: mailing }) => {
    email.value = reminders.email || "";
    emailOn.checked = reminders.email_on;
    pushOn.checked = reminders.push_on;
    interval.value = String(reminders.interval_s);
    if (!mailing) emailOn.parentElement.append(el("span", { class: "muted", text: " (this server sends no e-mail)" }));
  }).catch((err) => say(err.message, false));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      if (pushOn.checked) await subscribePush(withCsrf);
      await api("/api/account/reminders", withCsrf({ method: "PUT", body: JSON.stringify({
        email: email.value.trim() || null, email_on: emailOn.checked, push_on: pushOn.checked, interval_s: Number(interval.value) }) }));
      say("Reminders saved.", true);
    } catch (err) {
      say(err.message, false);
    }
  });
  return form;
}
