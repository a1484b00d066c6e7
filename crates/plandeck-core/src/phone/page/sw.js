// Plandeck's service worker: it makes the page installable and shows a push notification. It has
// no fetch handler and no cache: every call goes to Plandeck itself, so a page that cannot reach
// it says "unknown", never a decision it remembers.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The message holds {title, id}: "Plan waiting: project · agent · machine" and the request's
// opaque id. Nothing of the plan is in it; the page reads the plan, signed, once opened.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (_) {
    data = {};
  }
  const title = typeof data.title === "string" && data.title ? data.title.slice(0, 200) : "Plan waiting";
  const id = typeof data.id === "string" ? data.id.slice(0, 64) : "";
  event.waitUntil(
    self.registration.showNotification(title, {
      tag: id || "plandeck",
      data: { id },
      icon: "/icon.svg",
    }),
  );
});

// A tap opens the page (or brings it forward).
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((list) => {
      for (const c of list) {
        if ("focus" in c) return c.focus();
      }
      return self.clients.openWindow("/");
    }),
  );
});
