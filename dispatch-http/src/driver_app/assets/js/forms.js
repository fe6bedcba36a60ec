// Pieces of the stop and check-in screens: a signature pad on a canvas, photos downscaled on
// the phone before they are queued, and a questionnaire form for every answer type.

import { h } from './html.js';

/** The longer side of a photo as uploaded: enough to read a label, a fraction of the bytes. */
export const PHOTO_MAX_SIDE = 1600;
const PHOTO_QUALITY = 0.8;

/** A camera photo scaled to at most PHOTO_MAX_SIDE pixels on its longer side, as JPEG. */
export async function downscale(file) {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, PHOTO_MAX_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the photo could not be encoded'))),
      'image/jpeg', PHOTO_QUALITY));
}

/** A photo input that opens the camera (`capture`). */
export function photoInput(label, multiple = true) {
  return h('input', { type: 'file', accept: 'image/*', capture: 'environment', multiple, 'aria-label': label });
}

export async function downscaleAll(input) {
  return Promise.all([...input.files].map(downscale));
}

/**
 * A signature pad: pointer (finger, pen or mouse) strokes on a canvas. `element` is the
 * canvas; `blob()` its PNG, `empty` whether nothing was drawn.
 */
export function signaturePad(label) {
  const canvas = h('canvas', { width: 600, height: 240, class: 'pad', role: 'img', 'aria-label': label });
  const ctx = canvas.getContext('2d');
  const clear = () => {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    pad.empty = true;
  };
  let last = null;
  const at = (e) => {
    const box = canvas.getBoundingClientRect();
    return [(e.clientX - box.left) * (canvas.width / box.width), (e.clientY - box.top) * (canvas.height / box.height)];
  };
  canvas.addEventListener('pointerdown', (e) => {
    canvas.setPointerCapture(e.pointerId);
    last = at(e);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!last) return;
    const next = at(e);
    ctx.strokeStyle = '#111';
    ctx.lineWidth = 4;
    ctx.lineCap = 'round';
    ctx.beginPath();
    ctx.moveTo(...last);
    ctx.lineTo(...next);
    ctx.stroke();
    last = next;
    pad.empty = false;
  });
  const end = () => {
    last = null;
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  const pad = {
    element: canvas,
    empty: true,
    clear,
    blob: () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png')),
  };
  clear();
  return pad;
}

const dataUrl = (blob) => new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(reader.result);
  reader.onerror = () => reject(reader.error);
  reader.readAsDataURL(blob);
});

/**
 * A questionnaire as a form: one field per question, labelled with the question. `answers()`
 * resolves to the submission's `answers` (images as data: URLs), or throws the first missing
 * required answer.
 */
export function questionnaireForm(questionnaire) {
  const fields = questionnaire.questions.map((q, i) => {
    const id = `q${questionnaire.id}-${q.id}`;
    const title = `${q.question}${q.required ? ' (required)' : ''}`;
    switch (q.type) {
      case 'CHECKBOX': {
        const input = h('input', { type: 'checkbox', id });
        return { q, node: h('div', { class: 'field check' }, input, h('label', { for: id }, title)),
          value: () => input.checked };
      }
      case 'TEXT': {
        const input = h('textarea', { id, rows: 2, maxlength: 10000 });
        return { q, node: h('div', { class: 'field' }, h('label', { for: id }, title), input),
          value: () => (input.value.trim() ? input.value : undefined) };
      }
      case 'SELECT': {
        const select = h('select', { id }, h('option', { value: '' }, 'Choose…'),
          ...q.options.map((o) => h('option', { value: o }, o)));
        return { q, node: h('div', { class: 'field' }, h('label', { for: id }, title), select),
          value: () => select.value || undefined };
      }
      case 'MULTI_SELECT': {
        const boxes = q.options.map((o, j) => {
          const input = h('input', { type: 'checkbox', id: `${id}-${j}`, value: o });
          return { o, input, node: h('div', { class: 'check' }, input, h('label', { for: `${id}-${j}` }, o)) };
        });
        return { q, node: h('fieldset', { class: 'field' }, h('legend', {}, title), ...boxes.map((b) => b.node)),
          value: () => boxes.filter((b) => b.input.checked).map((b) => b.o) };
      }
      case 'SIGNATURE': {
        const pad = signaturePad(`${q.question}: signature pad`);
        const name = h('input', { type: 'text', id: `${id}-by`, autocomplete: 'name' });
        return { q, node: h('fieldset', { class: 'field' }, h('legend', {}, title), pad.element,
          h('button', { type: 'button', onclick: () => pad.clear() }, `Clear ${q.question}`),
          h('label', { for: `${id}-by` }, `${q.question}: signed by`), name),
          empty: () => pad.empty,
          value: () => name.value.trim() || undefined,
          images: async () => (pad.empty ? [] : [await dataUrl(await pad.blob())]) };
      }
      case 'PHOTO': {
        const input = photoInput(q.question);
        const caption = h('input', { type: 'text', id: `${id}-caption` });
        return { q, node: h('fieldset', { class: 'field' }, h('legend', {}, title), input,
          h('label', { for: `${id}-caption` }, `${q.question}: caption`), caption),
          empty: () => input.files.length === 0,
          value: () => caption.value.trim() || undefined,
          images: async () => Promise.all((await downscaleAll(input)).slice(0, 5).map(dataUrl)) };
      }
      default:
        return { q, node: h('p', {}, `${title}: this app cannot answer ${q.type} questions`), value: () => undefined };
    }
  });
  const node = h('div', { class: 'questions' }, ...fields.map((f) => f.node));
  async function answers() {
    const out = [];
    for (const f of fields) {
      const value = f.value();
      const hasImages = f.images && !f.empty();
      const answered = f.q.type === 'CHECKBOX' || f.q.type === 'MULTI_SELECT' || value !== undefined || hasImages;
      if (f.q.required && !(hasImages || (f.q.type === 'CHECKBOX' ? true : value !== undefined && value.length !== 0))) {
        throw new Error(`Please answer “${f.q.question}”.`);
      }
      if (f.images && !hasImages) {
        if (value !== undefined) throw new Error(`“${f.q.question}” needs its image.`);
        continue;
      }
      if (!answered) continue;
      const answer = { question_id: f.q.id };
      if (value !== undefined) answer.value = value;
      if (hasImages) answer.images = await f.images();
      out.push(answer);
    }
    return out;
  }
  return { node, answers };
}
