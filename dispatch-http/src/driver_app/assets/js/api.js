// The driver API (docs/driver-api.md), addressed relative to the app so that a proxy may mount
// the service under a path prefix: the app is at <prefix>/driver-app/, the API at <prefix>/driver/.

const BASE = new URL('../', document.baseURI);
const CREDENTIAL = 'dispatch.driver.credential';

/** The network could not be reached (or the browser is offline). */
export class Offline extends Error {}

/** The service answered with an error envelope `{name, statusCode, description, details}`. */
export class ApiError extends Error {
  constructor(status, body, headers) {
    super((body && body.description) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.retryAfter = Number(headers.get('retry-after')) || 0;
  }

  /** A missing, unknown or revoked credential. */
  get revoked() {
    return this.status === 401;
  }

  /** A refusal that says when to come back: rate limits (403/429) and keys still in progress. */
  get waitSeconds() {
    return this.retryAfter;
  }

  /** A stop that was completed or failed before (the service refuses finishing it again). */
  get alreadyFinished() {
    const issue = this.body.details?.validationErrors?.[0];
    return this.status === 400 && issue?.expected === 'an action the current state allows' &&
      (issue.received === 'completed' || issue.received === 'failed');
  }
}

export function credential() {
  return localStorage.getItem(CREDENTIAL);
}

export function setCredential(value) {
  if (value) localStorage.setItem(CREDENTIAL, value);
  else localStorage.removeItem(CREDENTIAL);
}

/** A driver credential as the depot hands it out: `drv_` and 64 hex digits. */
export function isCredential(text) {
  return /^drv_[0-9a-f]{64}$/.test(text);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The rate tiers per credential (docs/driver-api.md): Standard 5 / s, Upload 1 / s. */
const STANDARD_GAP_MS = 220;
const UPLOAD_GAP_MS = 1100;
let lastCall = 0;
let lastUpload = 0;

/** Waits for this app's turn, so its calls (reads, feed, outbox) stay inside the tiers. */
async function pace(upload) {
  for (;;) {
    const now = Date.now();
    const wait = Math.max(lastCall + STANDARD_GAP_MS - now, upload ? lastUpload + UPLOAD_GAP_MS - now : 0);
    if (wait <= 0) break;
    await sleep(wait);
  }
  lastCall = Date.now();
  if (upload) lastUpload = lastCall;
}

/**
 * One call. `json` is sent as a JSON body, `form` as multipart; `key` as `idempotency-key`.
 * `upload` marks the Upload tier. Reads refused with `Retry-After` are tried again after it.
 * Resolves to the parsed answer; rejects with Offline or ApiError.
 */
export async function call(method, path, { json, form, key, signal, upload = false } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await once(method, path, { json, form, key, signal, upload });
    } catch (e) {
      if (!(e instanceof ApiError) || method !== 'GET' || !e.waitSeconds || attempt >= 3) throw e;
      await sleep(e.waitSeconds * 1000);
    }
  }
}

async function once(method, path, { json, form, key, signal, upload }) {
  const headers = { 'x-access-key': credential() || '' };
  let body;
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form) {
    body = form;
  }
  if (key) headers['idempotency-key'] = key;
  await pace(upload);
  let response;
  try {
    response = await fetch(new URL(path, BASE), { method, headers, body, signal, cache: 'no-store' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new Offline(String(e));
  }
  let data = null;
  try {
    const text = await response.text();
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    // A proxy's HTML error page: the status tells enough.
  }
  if (!response.ok) throw new ApiError(response.status, data, response.headers);
  return data;
}
