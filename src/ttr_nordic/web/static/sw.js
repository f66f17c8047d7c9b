// The service worker: shows the server's "your turn" reminders (Web Push) and opens the game
// when one is clicked. Served at /sw.js so that its scope covers the game pages.
self.addEventListener("push", (event) => {
  let data = { title: "Your turn", body: "It is your turn.", url: "/" };
  try {
    data = { ...data, ...event.data.json() };
  } catch (_) {
    // A message without JSON: the default words.
  }
  event.waitUntil(self.registration.showNotification(data.title, { body: data.body, data: { url: data.url }, tag: data.url }));
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
