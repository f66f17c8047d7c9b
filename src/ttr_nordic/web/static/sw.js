// The service worker: shows the server's "your turn" reminders (Web Push) and opens the game
// when one is clicked. Served at /sw.js so that its scope covers the game pages; registered as
// /sw.js?lang=<code>, the page's language, for the words of a message that comes without them.
const LANGUAGE = new URL(self.location.href).searchParams.get("lang") || "en";

/** The default title and body in the worker's language (English if its catalogue cannot be had). */
async function defaultWords() {
  const words = { title: "Your turn", body: "It is your turn.", url: "/" };
  try {
    const response = await fetch(`/i18n/${encodeURIComponent(LANGUAGE)}.json`);
    const messages = response.ok ? await response.json() : {};
    words.title = messages["notify.pushTitle"] || words.title;
    words.body = messages["notify.pushBody"] || words.body;
  } catch (_) {
    // Offline: the English words.
  }
  return words;
}

async function show(event) {
  let sent = {};
  try {
    sent = event.data.json();
  } catch (_) {
    // A message without JSON: the default words.
  }
  const data = sent.title && sent.body ? { url: "/", ...sent } : { ...(await defaultWords()), ...sent };
  await self.registration.showNotification(data.title, { body: data.body, data: { url: data.url }, tag: data.url });
}

self.addEventListener("push", (event) => {
  event.waitUntil(show(event));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => w.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});
