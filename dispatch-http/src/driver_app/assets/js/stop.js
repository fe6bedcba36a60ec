// One stop: where and when, who to call, what to hand over; then arrive, complete (in full or
// per line item) or fail, a signature, photos and the depot's stop questionnaire. Every
// action is queued (outbox.js) and shows at once.

import { h, patch } from './html.js';
import { enqueue } from './outbox.js';
import { downscaleAll, photoInput, questionnaireForm, signaturePad } from './forms.js';
import { flush } from './position.js';
import { findStop, state } from './state.js';
import { stopStatus } from './status.js';
import { go, here } from './views.js';

function navigation(s) {
  if (s.lat == null || s.lng == null) return null;
  const place = `${s.lat},${s.lng}`;
  const label = encodeURIComponent(s.address || 'Stop');
  return h('p', { class: 'links' },
    h('a', { href: `geo:${place}?q=${place}(${label})`, class: 'button' }, 'Navigate (maps app)'),
    h('a', { href: `https://www.openstreetmap.org/directions?to=${place}`, rel: 'noreferrer', target: '_blank', class: 'button' },
      'Directions on the web'));
}

function windows(s) {
  const w = s.time_windows || [];
  return w.length ? w.map((t) => `${t.from}–${t.to}`).join(', ') : 'any time';
}

export function stop(routeId, key) {
  const info = h('div');
  const actions = h('div', { class: 'actions' });
  const message = h('p', { class: 'error', role: 'alert' });
  const say = (text) => {
    message.textContent = text;
  };
  const current = () => findStop(state.routes.get(routeId), key);
  const queue = async (kind, fields = {}) => {
    const s = current();
    if (!s) return say('This stop is no longer on your route.');
    say('');
    // The way to the stop goes first, so the track is in place before the visit.
    if (kind === 'arrive' || kind === 'complete' || kind === 'fail') await flush();
    await enqueue(kind, { route_id: routeId, stop_key: key, stop_id: s.id, label: `${labelOf(kind)} at ${s.address || 'the stop'}`, ...fields });
  };
  // Proof takes a moment to prepare on a phone (the signature encoded, photos downscaled):
  // until it is stored the driver is told so, and a second tap cannot queue it twice.
  const saving = async (button, what, prepare) => {
    if (button.disabled) return;
    button.disabled = true;
    say(`Saving ${what}…`);
    try {
      await prepare();
    } finally {
      button.disabled = false;
    }
  };

  // Line items: what is delivered of each (in full unless changed).
  const itemRows = [];
  const items = h('div', { class: 'items' });
  const failReason = h('input', { type: 'text', id: 'fail-reason', maxlength: 255 });
  const notes = h('textarea', { id: 'driver-notes', rows: 2 });
  const signedBy = h('input', { type: 'text', id: 'signed-by', autocomplete: 'name' });
  const pad = signaturePad('Signature pad: the customer signs here');
  const photos = photoInput('Take photos');
  const visitQ = state.questionnaires.find((q) => q.type === 'VISIT');
  const visit = visitQ ? questionnaireForm(visitQ) : null;

  const initial = current();
  for (const order of initial?.orders || []) {
    for (const item of order.line_items || []) {
      const qty = h('input', { type: 'number', min: 0, max: item.quantity, value: item.quantity, id: `qty-${item.id}`, inputmode: 'numeric' });
      const why = h('input', { type: 'text', id: `why-${item.id}` });
      itemRows.push({ item, qty, why });
      items.append(h('div', { class: 'item' },
        h('label', { for: `qty-${item.id}` }, `Delivered of ${item.product_name} (${item.quantity} ordered)`), qty,
        h('label', { for: `why-${item.id}` }, `Reason if short: ${item.product_name}`), why));
    }
  }

  const completeBody = async () => {
    const lineItems = itemRows
      .filter((r) => Number(r.qty.value) !== r.item.quantity || r.why.value.trim())
      .map((r) => {
        const entry = { id: r.item.id, delivered_quantity: Math.max(0, Math.min(r.item.quantity, Number(r.qty.value) || 0)) };
        if (r.why.value.trim()) entry.failed_reason = r.why.value.trim();
        return entry;
      });
    const body = { ...(await here()) };
    if (lineItems.length) body.line_items = lineItems;
    return body;
  };

  const forms = h('div', {},
    h('section', { class: 'panel', 'aria-labelledby': 'deliver-title' },
      h('h3', { id: 'deliver-title' }, 'Delivery'), items,
      h('button', { class: 'primary', onclick: async () => queue('complete', { body: await completeBody() }) }, 'Complete the delivery'),
      h('label', { for: 'fail-reason' }, 'Reason it could not be delivered'), failReason,
      h('button', {
        class: 'danger',
        onclick: async () => {
          if (!failReason.value.trim()) return say('Say why the delivery failed first.');
          await queue('fail', { body: { reason: failReason.value.trim(), ...(await here()) } });
        },
      }, 'Mark as not delivered')),
    h('section', { class: 'panel', 'aria-labelledby': 'sign-title' },
      h('h3', { id: 'sign-title' }, 'Signature'), pad.element,
      h('label', { for: 'signed-by' }, 'Signed by'), signedBy,
      h('div', { class: 'row' },
        h('button', { onclick: () => pad.clear() }, 'Clear the signature'),
        h('button', {
          onclick: async (e) => {
            if (pad.empty) return say('The signature pad is empty.');
            if (!signedBy.value.trim()) return say('Type who signed.');
            await saving(e.currentTarget, 'the signature', async () => {
              await queue('signature', { body: { signed_by: signedBy.value.trim() }, files: [await pad.blob()] });
              pad.clear();
              say('Signature saved.');
            });
          },
        }, 'Save the signature'))),
    h('section', { class: 'panel', 'aria-labelledby': 'photo-title' },
      h('h3', { id: 'photo-title' }, 'Photos'), photos,
      h('button', {
        onclick: async (e) => {
          if (!photos.files.length) return say('Take a photo first.');
          await saving(e.currentTarget, 'the photos', async () => {
            const files = await downscaleAll(photos);
            for (let i = 0; i < files.length; i += 5) await queue('photos', { files: files.slice(i, i + 5) });
            photos.value = '';
            say(`${files.length} photo(s) saved.`);
          });
        },
      }, 'Save the photos')),
    visit ? h('form', {
      class: 'panel', 'aria-labelledby': 'visit-title',
      onsubmit: async (e) => {
        e.preventDefault();
        await saving(e.currentTarget.querySelector('button[type=submit]'), visitQ.title, async () => {
          try {
            const answers = await visit.answers();
            await queue('visit', { body: { questionnaire_id: visitQ.id, answers } });
            say(`${visitQ.title}: saved.`);
          } catch (err) {
            say(err.message);
          }
        });
      },
    }, h('h3', { id: 'visit-title' }, visitQ.title), visit.node, h('button', { type: 'submit' }, `Submit ${visitQ.title}`)) : null,
    h('section', { class: 'panel', 'aria-labelledby': 'notes-title' },
      h('h3', { id: 'notes-title' }, 'Your note'), h('label', { for: 'driver-notes' }, 'Note for the depot'), notes,
      h('button', { onclick: () => queue('notes', { body: { notes: notes.value } }) }, 'Save the note')));

  const node = h('section', { 'aria-labelledby': 'stop-title' },
    h('button', { class: 'back', onclick: () => go({ name: 'route', id: routeId }) }, 'Back to the route'),
    info, message, actions, forms);
  notes.value = initial?.driver_notes || '';

  function update() {
    const s = current();
    if (!s) {
      info.replaceChildren(h('h2', { id: 'stop-title' }, 'Stop not available'),
        h('p', { class: 'error', role: 'alert' }, state.routes.get(routeId)
          ? 'The dispatcher removed this stop from your route.'
          : 'This route was taken off your van by the dispatcher.'));
      actions.replaceChildren();
      forms.hidden = true;
      return;
    }
    const r = state.routes.get(routeId);
    const position = r.stops.indexOf(s) + 1;
    const st = stopStatus(s);
    const orders = s.orders || [];
    patch(info, ...[
      h('h2', { id: 'stop-title' }, `Stop ${position}: ${s.address || '(no address)'}`),
      h('p', { role: 'status' }, `Status: ${st.text}`),
      h('dl', {},
        h('dt', {}, 'Planned'), h('dd', {}, `${s.estimated_arrival_time}–${s.estimated_departure_time}`),
        h('dt', {}, 'Time window'), h('dd', {}, windows(s)),
        s.eta ? [h('dt', {}, 'Expected'), h('dd', {}, new Date(s.eta).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }))] : null,
        h('dt', {}, 'Orders'), h('dd', {}, orders.map((o) => o.order_number).join(', ') || '—'),
        s.delivery_notes ? [h('dt', {}, 'Notes'), h('dd', {}, s.delivery_notes)] : null,
        h('dt', {}, 'Items'), h('dd', {}, h('ul', {}, ...orders.flatMap((o) => (o.line_items || []).map((i) =>
          h('li', {}, `${i.quantity} × ${i.product_name}${i.delivered_quantity != null ? ` (delivered ${i.delivered_quantity})` : ''}`))))),
        h('dt', {}, 'Proof'), h('dd', {}, `${s.signature ? 'signed' : 'no signature'}, ${(s.photos || []).length} photo(s)`)),
      s.phone ? h('p', {}, h('a', {
        href: `tel:${s.phone.replace(/[^0-9+]/g, '')}`, class: 'button', 'aria-label': `Call ${s.phone}`,
        // Logged when tapped; the dialler opens at once, without waiting for it.
        onclick: () => {
          queue('call', { body: {} });
        },
      }, `Call ${s.phone}`)) : null,
      navigation(s)].filter(Boolean));
    patch(actions, st.arrived ? h('p', {}, st.done ? 'This stop is finished.' : 'You are at this stop.')
      : h('button', { class: 'primary', onclick: async () => queue('arrive', { body: await here() }) }, 'I have arrived'));
    forms.hidden = st.done && st.failed;
  }
  update();
  return { node, update };
}

function labelOf(kind) {
  return { arrive: 'Arrival', complete: 'Delivery', fail: 'Failed delivery', notes: 'Note', call: 'Call', signature: 'Signature', photos: 'Photos', visit: 'Questionnaire' }[kind] || kind;
}
