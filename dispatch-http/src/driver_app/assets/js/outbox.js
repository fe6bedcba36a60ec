// Every action of the driver goes through the outbox: stored in IndexedDB with the time it was
// taken, then sent in order, now or when the network returns. Each action carries its own
// `idempotency-key`, so a send whose answer was lost is answered from the service's record on
// the retry instead of acting twice. A stop is found again at send time by its orders
// (stopKey), from the route as the service shows it then: stop ids change when the dispatcher
// edits the route. Uploads keep the Upload tier's pace (one a second) and every refusal with
// `Retry-After` is waited out (api.js paces every call of the app).

import { ApiError, Offline, call } from './api.js';
import { outbox as box } from './db.js';
import { changed, findStop, notice, setOnline, setRoute, state } from './state.js';

const PROOF = new Set(['signature', 'photos', 'visit', 'checkin']);
const STOP_ACTIONS = new Set(['arrive', 'complete', 'fail', 'notes', 'call', 'signature', 'photos', 'visit']);

/** What each kind of action is called on the screen. */
export const LABELS = {
  start: 'Start of the route',
  checkin: 'Van check-in',
  positions: 'Positions',
  arrive: 'Arrival',
  complete: 'Delivery completed',
  fail: 'Delivery failed',
  notes: 'Note',
  call: 'Phone call',
  signature: 'Signature',
  photos: 'Photos',
  visit: 'Stop questionnaire',
  finish: 'End of the route',
};

function randomKey() {
  // crypto.randomUUID needs a secure context; getRandomValues does not.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Queues an action (`fields`: route_id, stop_key, stop_id, label, body, files) and sends. */
export async function enqueue(kind, fields) {
  const action = { kind, time: new Date().toISOString(), key: randomKey(), state: 'waiting', ...fields };
  action.seq = await box.add(action);
  await refresh();
  kick();
  return action;
}

/** Re-reads the outbox for the screen. */
export async function refresh() {
  state.outbox = await box.all();
  changed();
}

/** Drops an action the service refused for good (after the driver saw why). */
export async function discard(seq) {
  await box.remove(seq);
  await refresh();
  kick();
}

let running = null;

/** Starts sending the outbox unless it is being sent. */
export function kick() {
  running ??= replay().finally(() => {
    running = null;
  });
  return running;
}

/** Resolves once nothing waits (or the network is gone again). */
export function settled() {
  return running || Promise.resolve();
}

async function replay() {
  // The routes re-read in this pass: each once, before its first stop action.
  const fresh = new Set();
  for (;;) {
    if (state.revoked) return;
    const next = (await box.all()).find((a) => a.state !== 'failed');
    if (!next) return;
    let outcome;
    try {
      outcome = await send(next, fresh);
      setOnline(true);
    } catch (e) {
      if (e instanceof Offline) {
        setOnline(false);
        // The browser still thinks it is online (a dead spot, a lost answer): try again soon.
        if (navigator.onLine) setTimeout(kick, 3000);
        return;
      }
      setOnline(true);
      outcome = e instanceof ApiError ? await refused(next, e, fresh) : { fail: String(e) };
    }
    if (outcome.stop) return;
    if (outcome.wait) {
      next.note = `waiting ${outcome.wait} s (the service asked to slow down)`;
      await box.put(next);
      await refresh();
      await sleep(outcome.wait * 1000);
      continue;
    }
    if (outcome.retry) continue;
    if (outcome.fail) {
      next.state = 'failed';
      next.error = outcome.fail;
      await box.put(next);
    } else {
      await box.remove(next.seq);
    }
    if (outcome.notice) notice(outcome.notice);
    await refresh();
  }
}

/** The route as the service shows it now; null when it was taken off the van. */
async function reread(routeId, fresh) {
  try {
    const { route } = await call('GET', `driver/routes/${routeId}`);
    await setRoute(routeId, route);
    fresh.add(routeId);
    return route;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      await setRoute(routeId, null);
      return null;
    }
    throw e;
  }
}

async function send(a, fresh) {
  let stopId = null;
  if (STOP_ACTIONS.has(a.kind)) {
    const route = fresh.has(a.route_id) ? state.routes.get(a.route_id) : await reread(a.route_id, fresh);
    if (!route) return { fail: 'This route was taken off your van by the dispatcher.' };
    const stop = findStop(route, a.stop_key);
    if (!stop) return { fail: 'This stop is no longer on your route (the dispatcher removed it).' };
    stopId = stop.id;
  }
  // A questionnaire names its stop in the body, which the service's idempotency record
  // compares: once sent, a retry repeats the stop id it was first sent with, so a send whose
  // answer was lost before the dispatcher's edit renumbered the stops is answered from the
  // record instead of refused as another request. If the service never stored it, that id is
  // unknown now (404) and refused() moves the action to the stop's new id.
  if (a.kind === 'visit') {
    if (a.sent_stop_id == null) {
      a.sent_stop_id = stopId;
      await box.put(a);
    }
    stopId = a.sent_stop_id;
  }
  const key = a.key;
  const body = { ...a.body };
  let answer;
  switch (a.kind) {
    case 'start':
    case 'finish':
      answer = await call('POST', `driver/routes/${a.route_id}/${a.kind === 'start' ? 'start' : 'complete'}`,
        { json: { time: a.time, ...body }, key });
      break;
    case 'positions':
      answer = await call('POST', `driver/routes/${a.route_id}/positions`, { json: body, key });
      break;
    case 'arrive':
    case 'complete':
    case 'fail':
      answer = await call('POST', `driver/stops/${stopId}/${a.kind}`, { json: { time: a.time, ...body }, key });
      break;
    case 'notes':
      answer = await call('PUT', `driver/stops/${stopId}/notes`, { json: body });
      break;
    case 'call':
      answer = await call('POST', `driver/stops/${stopId}/phone-calls`,
        { json: { initiated_at: a.time, ...body }, key });
      break;
    case 'signature': {
      const form = new FormData();
      form.append('signed_by', body.signed_by);
      form.append('signature', a.files[0], 'signature.png');
      answer = await call('POST', `driver/stops/${stopId}/signature`, { form, key, upload: true });
      break;
    }
    case 'photos': {
      const form = new FormData();
      a.files.forEach((file, i) => form.append('photo', file, `photo-${i + 1}.jpg`));
      answer = await call('POST', `driver/stops/${stopId}/photos`, { form, key, upload: true });
      break;
    }
    case 'visit':
      answer = await call('POST', 'driver/questionnaire-submissions', { json: { ...body, stop_id: stopId }, key, upload: true });
      break;
    case 'checkin':
      answer = await call('POST', 'driver/questionnaire-submissions', { json: { ...body, route_id: a.route_id }, key, upload: true });
      break;
    default:
      return { fail: `unknown action ${a.kind}` };
  }
  if (answer?.route) await setRoute(answer.route.id, answer.route);
  if (answer?.stop) await replaceStop(a.route_id, answer.stop);
  // Uploads answer with what was stored, not the route: read it for the proof it now shows.
  if (PROOF.has(a.kind)) await reread(a.route_id, fresh).catch(() => {});
  return {};
}

async function replaceStop(routeId, stop) {
  const route = state.routes.get(routeId);
  if (!route) return;
  const stops = route.stops.map((s) => (s.id === stop.id ? { ...s, ...stop } : s));
  await setRoute(routeId, { ...route, stops });
}

async function refused(a, e, fresh) {
  if (e.revoked) {
    state.revoked = true;
    changed();
    return { stop: true };
  }
  if (e.waitSeconds > 0) return { wait: e.waitSeconds };
  if (e.status >= 500) return { wait: 5 };
  if (e.alreadyFinished) {
    return { notice: `${a.label || 'This stop'} was already finished: nothing was recorded twice.` };
  }
  if (e.status === 404) {
    if (!a.retried && STOP_ACTIONS.has(a.kind)) {
      // The stop's id changed since the route was read: read it again and find the stop anew.
      a.retried = true;
      a.sent_stop_id = null;
      await box.put(a);
      fresh.delete(a.route_id);
      const route = await reread(a.route_id, fresh);
      return route ? { retry: true } : { fail: 'This route was taken off your van by the dispatcher.' };
    }
    const route = await reread(a.route_id, fresh);
    return { fail: route ? 'The service no longer knows this stop.' : 'This route was taken off your van by the dispatcher.' };
  }
  const issue = e.body.details?.validationErrors?.[0];
  return { fail: issue ? `${e.message}: ${issue.message}` : e.message };
}
