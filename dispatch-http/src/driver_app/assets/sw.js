// The driver app's service worker: keeps the app's own files so it opens without a network.
// The service fills in VERSION (a digest of the files) and SHELL (their names): a new binary
// brings a new worker, which fetches the new files and drops the old ones. Calls to the API
// are never answered from here: what the driver does waits in the app's outbox instead.

const VERSION = '{{VERSION}}';
const SHELL = {{SHELL}};
const CACHE = `driver-app-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('driver-app-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  const scope = new URL(self.registration.scope);
  if (event.request.method !== 'GET' || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith(caches.open(CACHE)
    .then((c) => c.match(event.request, { ignoreSearch: true }))
    .then((hit) => hit || fetch(event.request)));
});
