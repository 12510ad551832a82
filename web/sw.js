// Timeline's service worker: shows each Web Push as a notification that opens its post (or the
// activity screen), even when no tab of the app is open. The server encrypts every message for
// this browser's subscription; the browser hands it over decrypted.
self.addEventListener('push', (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { title: 'Timeline', body: event.data ? event.data.text() : '' };
  }
  const title = message.title || 'Timeline';
  const options = {
    body: message.body && message.body !== title ? message.body : '',
    icon: message.icon,
    tag: message.notification_id,
    data: { url: message.url || '/#/activity' },
  };
  // An icon the browser cannot load or decode fails the whole notification: show it without.
  event.waitUntil(self.registration.showNotification(title, options)
    .catch(() => self.registration.showNotification(title, { ...options, icon: undefined })));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || '/#/activity', self.location.origin).href;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const client of windows) {
      if (new URL(client.url).origin === self.location.origin) {
        await client.focus();
        return client.navigate ? client.navigate(url) : undefined;
      }
    }
    return self.clients.openWindow(url);
  })());
});
