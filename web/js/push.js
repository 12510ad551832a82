// Push notifications on this device: the service worker (/sw.js) is registered, and once the
// person allows notifications the browser subscribes with the server's VAPID key and the
// subscription is given to the server (PUT /v1/me/push, for this session).
import { api } from './api.js';

/** Whether this browser can receive Web Push at all. */
export const pushSupported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

const base64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const bytesOf = (text) => {
  const normal = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(normal), (c) => c.charCodeAt(0));
};

/** Asks for permission, subscribes this browser and tells the server; answers what happened. */
export async function enablePush() {
  if (!pushSupported()) return 'This browser cannot receive push notifications.';
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return 'Notifications are blocked for this site in the browser.';
  const registration = await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  const key = (await api.instance()).configuration?.vapid?.public_key;
  if (!key) return 'The server does not offer push notifications.';
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(key) });
  await api.subscribePush({
    endpoint: subscription.endpoint,
    p256dh: base64url(subscription.getKey('p256dh')),
    auth: base64url(subscription.getKey('auth')),
    alerts: ['mention', 'favourite', 'follow', 'follow_request', 'status'],
  });
  return 'Notifications are on for this device.';
}

/** Unsubscribes this browser and tells the server. */
export async function disablePush() {
  const registration = await navigator.serviceWorker?.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
  await api.unsubscribePush();
  return 'Notifications are off for this device.';
}
