// A reusable harness for browser tests of the service's pages: Debian's Chromium driven by
// playwright-core (no browser download), a phone-sized touch context, screenshots by name,
// touch strokes, a dispatcher's API client and timed steps. Scenarios import it and locate
// elements by their accessible names (roles and labels), as a person finds them.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';

/** Chromium's flags for a quiet, sandbox-free headless run (as tests/browser/mod.rs uses). */
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-pings', '--disable-domain-reliability', '--disable-client-side-phishing-detection',
  '--disable-default-apps', '--disable-extensions',
  '--disable-features=OptimizationHints,OptimizationHintsFetching,OptimizationGuideModelDownloading,' +
    'AutofillServerCommunication,NetworkTimeServiceQuerying,Translate,MediaRouter',
];

/**
 * Headless Chromium (`CHROMIUM` or /usr/bin/chromium) with a fresh profile; with `PROXY` set
 * (an `http://host:port`), every request beyond loopback goes there (a test's recorder of what
 * a page loads from elsewhere).
 */
export async function launch() {
  const proxy = process.env.PROXY ? [`--proxy-server=${process.env.PROXY}`] : [];
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_ARGS, ...proxy],
  });
}

/** A phone: 360x640 CSS pixels, touch, a mobile viewport, geolocation granted at `at`. */
export async function phone(browser, { at = { latitude: 51.5, longitude: -0.12 }, origin } = {}) {
  const context = await browser.newContext({
    viewport: { width: 360, height: 640 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    geolocation: at,
    permissions: ['geolocation'],
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  if (origin) await context.grantPermissions(['geolocation'], { origin });
  return context;
}

/** Saves screenshots as `dir/NN-name.png`, numbered in the order taken. */
export function screenshots(dir) {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const taken = [];
  const shoot = async (page, name) => {
    n += 1;
    const path = join(dir, `${String(n).padStart(2, '0')}-${name}.png`);
    // From the top: a sticky header would otherwise be drawn mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path, fullPage: true });
    taken.push(path);
    return path;
  };
  shoot.taken = taken;
  return shoot;
}

/** A finger stroke through `points` (fractions of the element's box) on `locator`. */
export async function stroke(page, locator, points) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  const at = ([fx, fy]) => ({ x: box.x + fx * box.width, y: box.y + fy * box.height, id: 1, radiusX: 2, radiusY: 2, force: 1 });
  const cdp = await page.context().newCDPSession(page);
  // The stroke ends when the page has seen its touchend: a tap sent before that would be taken
  // as a second finger (no click).
  // The listener is in place before the first touch (an evaluate not awaited could land after).
  await locator.evaluate((el) => {
    el.strokeEnded = new Promise((resolve) => {
      el.addEventListener('touchend', () => resolve(true), { once: true });
      setTimeout(() => resolve(false), 5000);
    });
  });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(points[0])] });
  for (const p of points.slice(1)) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(p)] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  if (!(await locator.evaluate((el) => el.strokeEnded))) throw new Error('the page saw no touchend for the stroke');
  await cdp.detach();
}

/**
 * Taps `target` until `shown` (a locator) appears, as a person taps again when nothing
 * happened: on a loaded machine the touch's end can reach Chromium so late after its start
 * that the gesture reads as a long press, which sends no click. A tap that never takes effect
 * still fails, after `timeout` ms.
 */
export async function tapUntil(target, shown, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    await target.tap({ timeout: Math.max(1000, end - Date.now()) });
    const wait = Math.min(5000, end - Date.now());
    if (await shown.waitFor({ timeout: Math.max(1, wait) }).then(() => true, () => false)) return;
    if (Date.now() >= end || !(await target.isVisible())) {
      await shown.waitFor({ timeout: Math.max(1, end - Date.now()) });
      return;
    }
  }
}

/** A PNG of noise, `width` x `height` (a camera photo compresses about as badly). */
export function noisePng(width, height, seed = 7) {
  let s = seed >>> 0 || 1;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    raw[row] = 0;
    for (let i = 1; i <= width * 3; i += 1) {
      s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
      raw[row + i] = s & 0xff;
    }
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const sum = Buffer.alloc(4); sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const head = Buffer.alloc(13);
  head.writeUInt32BE(width, 0); head.writeUInt32BE(height, 4);
  head[8] = 8; head[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', head), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * The service's API with a key (a depot's access key or a driver credential). A rate limit's
 * refusal (the spec's 403 with `retry_after_seconds`) is waited out and the call made again.
 */
export function api(base, key) {
  const call = async (method, path, body) => {
    for (let attempt = 1; ; attempt += 1) {
      const response = await fetch(new URL(path, base), {
        method,
        headers: { 'x-access-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      const data = text ? JSON.parse(text) : null;
      const wait = data?.details?.retry_after_seconds;
      if ((response.status === 403 || response.status === 429) && wait && attempt < 5) {
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        continue;
      }
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return data;
    }
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    del: (path) => call('DELETE', path),
  };
}

/** Logs steps with the seconds since the scenario started (on stderr: stdout is the result). */
export function steps() {
  const started = Date.now();
  return (what) => console.error(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${what}`);
}

/** Fails with `message` unless `ok`. */
export function check(ok, message) {
  if (!ok) throw new Error(`check failed: ${message}`);
}
