// The cockpit's service worker: keeps the static shell (HTML, styles, modules, icons) for offline use.
// Only the files listed in shell.json are cached; daemon data (JSON routes, /events) always goes to
// the network and is never stored, so no repository text lands in the browser's cache.
const CACHE = 'sous-cockpit-shell-v1';

self.addEventListener('install', (event) => {
  event.waitUntil(
    fetch('/cockpit/shell.json', { cache: 'no-store' })
      .then((res) => res.json())
      .then((files) => caches.open(CACHE).then((cache) => cache.addAll(files)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))).then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  const shell = url.pathname === '/' || url.pathname === '/manifest.webmanifest' || url.pathname.startsWith('/cockpit/');
  if (!shell) return; // data: straight to the network, never cached
  // Network first (a fresh daemon serves its own version), the cached shell when it is unreachable.
  event.respondWith(
    fetch(event.request)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          void caches.open(CACHE).then((cache) => cache.put(event.request, copy));
        }
        return res;
      })
      .catch(() => caches.match(event.request).then((hit) => hit || Response.error())),
  );
});
