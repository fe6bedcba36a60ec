// The driver's app: boots from what it stored (so it opens offline), signs in from the link's
// fragment or a typed code, keeps the routes current (the day's read at start and on
// reconnect, the feed's pushed changes meanwhile) and sends the outbox whenever it can.

import { ApiError, Offline, call, credential, isCredential, setCredential } from './api.js';
import { cache, outbox as box } from './db.js';
import { h, patch } from './html.js';
import { LABELS, discard, kick, refresh } from './outbox.js';
import { available as positionsAvailable, follow } from './position.js';
import { changed, dismiss, mark, notice, onChange, setOnline, setRoute, state } from './state.js';
import { routeStatus } from './status.js';
import { stop } from './stop.js';
import { go, route, routes, signIn } from './views.js';

/** How many days ahead the app looks for dispatched routes (today included). */
const DAYS_AHEAD = 7;
const FEED_WAIT_SECONDS = 25;
/** How long a position batch may wait unseen before the outbox panel lists it. */
const POSITIONS_SHOWN_AFTER_MS = 10000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const $ = (id) => document.getElementById(id);

function takeCredentialFromLink() {
  // The link carries the code in its fragment, which browsers never send to a server; it is
  // removed from the address bar (and history) at once.
  const match = /(?:^#|&)credential=([^&]+)/.exec(location.hash);
  if (!match) return;
  const code = decodeURIComponent(match[1]);
  history.replaceState(null, '', location.pathname + location.search);
  if (isCredential(code)) useCredential(code, false);
  else notice('The link does not hold a valid driver code: ask your depot for a new one.', 'error');
}

function useCredential(code, load = true) {
  if (!isCredential(code)) return 'A driver code starts with drv_ and has 64 more letters and digits.';
  const changedDriver = credential() !== code;
  setCredential(code);
  state.revoked = false;
  if (changedDriver) {
    cache.clear();
    state.routes.clear();
  }
  state.view = { name: 'day' };
  if (load) {
    loadAll();
    kick();
  }
  return '';
}

async function signOut() {
  const waiting = state.outbox.length;
  if (waiting && !confirm(`${waiting} action(s) are not sent yet and will be lost. Sign out anyway?`)) return;
  setCredential(null);
  await box.clear();
  await cache.clear();
  state.routes.clear();
  state.me = null;
  await refresh();
  go({ name: 'day' });
}

/** Reads the driver, the questionnaires and the routes of the coming days. */
async function loadAll() {
  if (!credential()) return;
  const since = mark();
  try {
    const { driver } = await call('GET', 'driver/me');
    state.me = driver;
    await cache.set('me', driver);
    const { questionnaires } = await call('GET', 'driver/questionnaires');
    state.questionnaires = questionnaires;
    await cache.set('questionnaires', questionnaires);
    const first = await call('GET', 'driver/day');
    state.today = first.date;
    await cache.set('today', first.date);
    const found = [...first.routes];
    const start = new Date(`${first.date}T12:00:00Z`);
    for (let i = 1; i < DAYS_AHEAD; i += 1) {
      const date = new Date(start.getTime() + i * 86400000).toISOString().slice(0, 10);
      found.push(...(await call('GET', `driver/day?date=${date}`)).routes);
    }
    const keep = new Set(found.map((r) => r.id));
    for (const id of [...state.routes.keys()]) {
      // A route of an earlier day stays while the outbox still has something for it.
      if (!keep.has(id) && !state.outbox.some((a) => a.route_id === id)) state.routes.delete(id);
    }
    for (const r of found) await setRoute(r.id, r, since);
    setOnline(true);
  } catch (e) {
    failed(e);
  }
  changed();
}

function failed(e) {
  if (e instanceof Offline) setOnline(false);
  else if (e instanceof ApiError && e.revoked) {
    state.revoked = true;
    changed();
  } else if (!(e instanceof ApiError && e.waitSeconds)) notice(`The service answered: ${e.message}`, 'error');
}

/** Pushed changes of the dispatcher (GET /driver/feed, long polling). */
async function feed() {
  let cursor = await cache.get('cursor');
  for (;;) {
    if (!credential() || state.revoked) {
      await sleep(3000);
      continue;
    }
    try {
      // Without a cursor the first call only learns the present one, at once: a change made
      // before a first long poll came back (the phone offline, the app closed) is not missed.
      const query = cursor == null ? 'wait=0' : `after=${cursor}&wait=${FEED_WAIT_SECONDS}`;
      const answer = await call('GET', `driver/feed?${query}`);
      for (const m of answer.messages) await pushed(m);
      cursor = answer.cursor;
      await cache.set('cursor', cursor);
      setOnline(true);
    } catch (e) {
      failed(e);
      await sleep(e instanceof ApiError && e.waitSeconds ? e.waitSeconds * 1000 : 3000);
    }
  }
}

async function pushed(m) {
  const known = state.routes.get(m.route_id);
  const name = m.route?.name || known?.name || `Route ${m.route_id}`;
  if (m.kind === 'deleted' || !m.route) {
    await setRoute(m.route_id, null);
    if (known) notice(`${name} was taken off your van by the dispatcher.`, 'error');
    return;
  }
  await setRoute(m.route.id, m.route);
  notice(m.kind === 'dispatched' ? `New route for you: ${name} (${m.route.date}).`
    : `The dispatcher changed ${name}: the stops are shown as they are now.`);
  // Actions queued for its stops find them again by their orders (outbox.js).
  kick();
}

function chrome() {
  const net = $('net');
  net.textContent = state.online ? 'Online' : 'Offline: your actions are kept and sent later';
  net.className = state.online ? 'online' : 'offline';
  $('who').textContent = state.me?.vehicle ? state.me.vehicle.name : '';
  $('sign-out').hidden = !credential();
  patch($('notices'), ...state.notices.map((n) => h('div', { 'data-notice': n.id, class: `notice ${n.kind}`, role: n.kind === 'error' ? 'alert' : 'status' },
    h('span', {}, n.text), h('button', { 'aria-label': `Dismiss: ${n.text}`, onclick: () => dismiss(n.id) }, '×'))));
  // Position batches leave every 30 s on their own; shown only when they wait (offline, or
  // longer than a send takes) or fail, so the panel does not flash in and shift the screen
  // under the driver's finger.
  const now = Date.now();
  const waiting = state.outbox.filter((a) => a.kind !== 'positions' || a.state === 'failed'
    || !state.online || now - Date.parse(a.time) > POSITIONS_SHOWN_AFTER_MS);
  const panel = $('outbox');
  panel.hidden = waiting.length === 0;
  $('outbox-count').textContent = `${waiting.length} action${waiting.length === 1 ? '' : 's'} waiting to be sent`;
  patch($('outbox-list'), ...waiting.map((a) => h('li', { 'data-seq': a.seq, class: a.state },
    `${a.label || LABELS[a.kind]} · ${new Date(a.time).toLocaleTimeString()}`,
    a.state === 'failed' ? [h('span', { class: 'error' }, ` — not accepted: ${a.error}`),
      h('button', { onclick: () => discard(a.seq), 'aria-label': `Discard: ${a.label || LABELS[a.kind]}` }, 'Discard')]
      : a.note ? h('span', { class: 'muted' }, ` — ${a.note}`) : null)));
}

let shown = { key: null, screen: null };

function screen() {
  const v = state.view;
  let key;
  if (!credential()) key = 'sign-in';
  else if (state.revoked) key = 'revoked';
  else key = JSON.stringify(v);
  if (shown.key !== key) {
    let built;
    if (key === 'sign-in') built = signIn(useCredential);
    else if (key === 'revoked') {
      built = signIn(useCredential, `This phone’s access was withdrawn by the depot. ${state.outbox.length} action(s) wait here: sign in with a new code for the same van to send them.`);
    } else if (v.name === 'route') built = route(v.id);
    else if (v.name === 'stop') built = stop(v.route, v.key);
    else built = routes();
    shown = { key, screen: built };
    $('screen').replaceChildren(built.node);
  } else {
    shown.screen.update();
  }
}

function positions() {
  const running = [...state.routes.values()].find((r) => {
    const s = routeStatus(r);
    return s.started && !s.completed;
  });
  follow(running ? running.id : null);
  keepAwake(Boolean(running));
}

let wakeLock = null;

/** Keeps the screen on while a route runs (a secure context only). */
async function keepAwake(on) {
  if (!('wakeLock' in navigator)) return;
  try {
    if (on && !wakeLock && document.visibilityState === 'visible') {
      wakeLock = await navigator.wakeLock.request('screen');
      wakeLock.addEventListener('release', () => {
        wakeLock = null;
      });
    } else if (!on && wakeLock) {
      await wakeLock.release();
    }
  } catch (e) {
    // Refused (battery saver): the phone's own screen timeout applies.
  }
}

async function boot() {
  if (!window.isSecureContext) {
    $('insecure').hidden = false;
  } else if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }
  $('sign-out').addEventListener('click', signOut);
  onChange(() => {
    chrome();
    screen();
    positions();
  });
  state.me = (await cache.get('me')) || null;
  state.today = (await cache.get('today')) || null;
  state.questionnaires = (await cache.get('questionnaires')) || [];
  for (const r of (await cache.get('routes')) || []) state.routes.set(r.id, r);
  takeCredentialFromLink();
  await refresh();
  window.addEventListener('online', () => {
    setOnline(true);
    kick();
    loadAll();
  });
  window.addEventListener('offline', () => setOnline(false));
  document.addEventListener('visibilitychange', () => positions());
  // The network can come back without an `online` event (a captive portal, a dead spot):
  // the outbox is tried again every 15 seconds while something waits.
  setInterval(() => {
    if (state.outbox.some((a) => a.state !== 'failed')) kick();
  }, 15000);
  loadAll();
  kick();
  feed();
  if (!positionsAvailable()) $('insecure').hidden = window.isSecureContext;
}

boot();
