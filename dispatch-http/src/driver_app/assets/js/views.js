// The screens around the stop: the sign-in, the driver's routes, one route with its stops.
// Each screen is built once when shown and keeps its inputs; `update()` refreshes what the
// service or the outbox changed.

import { h, patch } from './html.js';
import { enqueue } from './outbox.js';
import { questionnaireForm } from './forms.js';
import { changed, routesInOrder, state, stopKey } from './state.js';
import { routeStatus, stopStatus } from './status.js';

export function go(view) {
  state.view = view;
  changed();
  window.scrollTo(0, 0);
}

export function signIn(onCredential, message) {
  const input = h('input', { id: 'credential', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', {
    onsubmit: (e) => {
      e.preventDefault();
      error.textContent = onCredential(input.value.trim()) || '';
    },
  },
  h('h2', {}, 'Sign in'),
  message ? h('p', { class: 'error', role: 'alert' }, message) : null,
  h('p', {}, 'Scan the QR code your depot shows you with the phone’s camera, or type the driver code it gave you.'),
  h('label', { for: 'credential' }, 'Driver code'), input, error,
  h('button', { type: 'submit' }, 'Sign in'));
  return { node: form, update() {} };
}

function day(date) {
  const today = state.today || new Date().toISOString().slice(0, 10);
  return date === today ? 'Today' : new Date(`${date}T12:00:00Z`).toLocaleDateString(undefined,
    { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
}

export function routes() {
  const list = h('ul', { class: 'cards' });
  const node = h('section', { 'aria-labelledby': 'routes-title' }, h('h2', { id: 'routes-title' }, 'Your routes'), list);
  function update() {
    const all = routesInOrder();
    patch(list, ...(all.length ? all.map((r) => {
      const stops = r.stops || [];
      const done = stops.filter((s) => stopStatus(s).done).length;
      return h('li', {}, h('button', { class: 'card', 'data-route': r.id, onclick: () => go({ name: 'route', id: r.id }) },
        h('strong', {}, `${day(r.date)}: ${r.name}`),
        h('span', {}, `${stops.length} stops, ${done} done · ${r.start_time}–${r.end_time}`),
        h('span', { class: 'muted' }, routeStatus(r).text)));
    }) : [h('li', { class: 'muted' }, 'No route is dispatched to your van for today or the next days.')]));
  }
  update();
  return { node, update };
}

/** The check-in questionnaire of the depot, if it has one. */
function checkinQuestionnaire() {
  return state.questionnaires.find((q) => q.type === 'ROUTE_VEHICLE_CHECKIN') || null;
}

export function route(id) {
  const head = h('div');
  const start = h('div');
  const list = h('ol', { class: 'stops' });
  const end = h('div');
  const node = h('section', { 'aria-labelledby': 'route-title' },
    h('button', { class: 'back', onclick: () => go({ name: 'day' }) }, 'Back to your routes'),
    head, start, h('h3', {}, 'Stops'), list, end);
  const checkin = checkinQuestionnaire();
  const form = checkin ? questionnaireForm(checkin) : null;
  const checkinError = h('p', { class: 'error', role: 'alert' });
  let builtStart = null;

  function update() {
    const r = state.routes.get(id);
    if (!r) {
      head.replaceChildren(h('h2', { id: 'route-title' }, 'Route not available'),
        h('p', { role: 'alert', class: 'error' }, 'This route was taken off your van by the dispatcher.'));
      start.replaceChildren();
      list.replaceChildren();
      end.replaceChildren();
      return;
    }
    const status = routeStatus(r);
    patch(head, h('h2', { id: 'route-title' }, `${r.name}`),
      h('p', {}, `${day(r.date)}, ${r.start_time}–${r.end_time} · ${status.text}`));
    const needsCheckin = form && !status.checkedIn;
    const want = status.started ? 'started' : needsCheckin ? 'checkin' : 'ready';
    if (builtStart !== want) {
      builtStart = want;
      if (want === 'checkin') {
        start.replaceChildren(h('form', {
          class: 'panel', 'aria-labelledby': 'checkin-title',
          onsubmit: async (e) => {
            e.preventDefault();
            // Photos in the answers take a moment to prepare: a second tap must not send twice.
            const button = e.currentTarget.querySelector('button[type=submit]');
            if (button.disabled) return;
            button.disabled = true;
            checkinError.textContent = '';
            try {
              const answers = await form.answers();
              await enqueue('checkin', { route_id: id, label: 'Van check-in', body: { questionnaire_id: checkin.id, answers } });
            } catch (err) {
              checkinError.textContent = err.message;
            } finally {
              button.disabled = false;
            }
          },
        }, h('h3', { id: 'checkin-title' }, `${checkin.title} (before you start)`), form.node, checkinError,
        h('button', { type: 'submit' }, 'Submit the van check')));
      } else if (want === 'ready') {
        start.replaceChildren(h('button', {
          class: 'primary',
          onclick: async () => {
            await enqueue('start', { route_id: id, label: 'Start of the route', body: await here() });
          },
        }, 'Start the route'));
      } else {
        start.replaceChildren();
      }
    }
    patch(list, ...(r.stops || []).map((s, i) => {
      const st = stopStatus(s);
      return h('li', { class: st.done ? 'done' : '' }, h('button', {
        class: 'card',
        'data-stop': stopKey(s),
        'aria-label': `Stop ${i + 1}: ${s.address || 'no address'}, ${st.text}`,
        onclick: () => go({ name: 'stop', route: id, key: stopKey(s) }),
      }, h('strong', {}, `${i + 1}. ${s.address || '(no address)'}`),
      h('span', {}, `${s.estimated_arrival_time}–${s.estimated_departure_time}`),
      h('span', { class: 'muted' }, st.text)));
    }));
    const allDone = (r.stops || []).every((s) => stopStatus(s).done);
    patch(end, ...[status.started && !status.completed
      ? h('button', {
        class: 'primary', disabled: !allDone,
        onclick: async () => enqueue('finish', { route_id: id, label: 'End of the route', body: await here() }),
      }, allDone ? 'Finish the route' : 'Finish the route (every stop first)')
      : status.completed ? h('p', { role: 'status' }, 'Route finished. Thank you!') : null].filter(Boolean));
  }
  update();
  return { node, update };
}

/** The phone's latest position as `{lat, lng}`, or nothing (never waits long for it). */
export async function here() {
  const { latest } = await import('./position.js');
  const fix = latest();
  return fix ? { lat: fix.lat, lng: fix.lng } : {};
}
