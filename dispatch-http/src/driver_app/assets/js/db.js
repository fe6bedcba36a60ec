// IndexedDB: the outbox of actions waiting to be sent (with their photos and signatures as
// Blobs) and the last copy of what the service said (identity, routes, questionnaires, the
// feed's cursor), so the app opens and works without a network.

const NAME = 'dispatch-driver';
let opened;

function open() {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(NAME, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore('outbox', { keyPath: 'seq', autoIncrement: true });
      db.createObjectStore('cache', { keyPath: 'k' });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return opened;
}

async function run(store, mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const req = work(tx.objectStore(store));
    tx.oncomplete = () => resolve(req?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

export const outbox = {
  add: (action) => run('outbox', 'readwrite', (s) => s.add(action)),
  put: (action) => run('outbox', 'readwrite', (s) => s.put(action)),
  remove: (seq) => run('outbox', 'readwrite', (s) => s.delete(seq)),
  all: async () => (await run('outbox', 'readonly', (s) => s.getAll())).sort((a, b) => a.seq - b.seq),
  clear: () => run('outbox', 'readwrite', (s) => s.clear()),
};

export const cache = {
  get: async (k) => (await run('cache', 'readonly', (s) => s.get(k)))?.v,
  set: (k, v) => run('cache', 'readwrite', (s) => s.put({ k, v })),
  clear: () => run('cache', 'readwrite', (s) => s.clear()),
};
