// What the app knows: the driver, their routes (as the service last showed them), the depot's
// questionnaires, the outbox as shown, notices; views re-render on every change.

import { cache } from './db.js';

export const state = {
  me: null,
  // The depot's date today (in its time zone) as the service last said, for "Today" labels:
  // the phone's own date may be another day where the depot's day starts or ends.
  today: null,
  routes: new Map(),
  questionnaires: [],
  outbox: [],
  notices: [],
  online: navigator.onLine,
  revoked: false,
  view: { name: 'day' },
};

const listeners = new Set();

export function onChange(listener) {
  listeners.add(listener);
}

export function changed() {
  for (const listener of listeners) listener(state);
}

let writes = 0;
const written = new Map();

/** A mark to pass to `setRoute` as `since`: a read begun at it is older than later writes. */
export function mark() {
  return writes;
}

/**
 * Keeps a route as the service showed it (`null` forgets it: the route was taken away). With
 * `since` (a `mark()` taken before the read), a route written meanwhile is left as it is: the
 * read is older than what an action's answer or the feed said.
 */
export async function setRoute(id, route, since) {
  if (since !== undefined && (written.get(id) ?? -1) >= since) return;
  writes += 1;
  written.set(id, writes);
  if (route) state.routes.set(route.id, route);
  else state.routes.delete(id);
  await cache.set('routes', [...state.routes.values()]);
  changed();
}

/**
 * What identifies a stop across route edits: its orders. Stop ids change when the dispatcher
 * reverses a route or adds or removes orders; the orders on a stop do not.
 */
export function stopKey(stop) {
  const ids = (stop.orders || []).map((o) => o.id).sort((a, b) => a - b);
  return ids.length ? `orders:${ids.join(',')}` : `stop:${stop.id}`;
}

/** The stop of `route` with `key`, if the route still has it. */
export function findStop(route, key) {
  return route?.stops?.find((s) => stopKey(s) === key) || null;
}

/** A message for the driver, kept until dismissed. `kind`: info or error. */
export function notice(text, kind = 'info') {
  state.notices.push({ id: Math.random(), text, kind });
  changed();
}

export function dismiss(id) {
  state.notices = state.notices.filter((n) => n.id !== id);
  changed();
}

export function setOnline(online) {
  if (state.online !== online) {
    state.online = online;
    changed();
  }
}

/** The routes in the order a driver works them: by date, then start time. */
export function routesInOrder() {
  return [...state.routes.values()].sort((a, b) =>
    `${a.date} ${a.start_time}`.localeCompare(`${b.date} ${b.start_time}`));
}
