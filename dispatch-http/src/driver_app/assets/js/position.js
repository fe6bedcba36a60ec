// Position reports while a route runs: the Geolocation API's fixes, sampled every
// SAMPLE_SECONDS or SAMPLE_METRES (whichever comes first), sent as one batch every BATCH_SECONDS (and with each stop action, so a stop's
// report carries the way there). Batches go through the outbox like every action, so positions
// taken offline are sent later with their own times.

import { enqueue } from './outbox.js';

export const SAMPLE_SECONDS = 10;
export const SAMPLE_METRES = 50;
export const BATCH_SECONDS = 30;

/** The distance between two fixes, near enough for sampling (equirectangular). */
function metres(a, b) {
  const rad = Math.PI / 180;
  const x = (b.lng - a.lng) * rad * Math.cos(((a.lat + b.lat) / 2) * rad);
  const y = (b.lat - a.lat) * rad;
  return Math.sqrt(x * x + y * y) * 6371008.8;
}

let watch = null;
let fix = null;
let routeId = null;
let batch = [];
let lastSample = { at: 0, lat: 0, lng: 0 };
let timer = null;

/** The latest fix, `{lat, lng}`, if one is less than two minutes old. */
export function latest() {
  return fix && Date.now() - fix.at < 120000 ? fix : null;
}

/** Whether the phone can report positions at all (a secure context and the API). */
export function available() {
  return window.isSecureContext && 'geolocation' in navigator;
}

/** Reports positions for `route` (a started route); `null` stops. */
export function follow(route) {
  if (route === routeId) return;
  if (routeId !== null) flush();
  routeId = route;
  if (watch !== null) navigator.geolocation.clearWatch(watch);
  clearInterval(timer);
  watch = null;
  if (route === null || !available()) return;
  watch = navigator.geolocation.watchPosition((p) => {
    fix = { lat: p.coords.latitude, lng: p.coords.longitude, at: p.timestamp || Date.now() };
    if (fix.at - lastSample.at >= SAMPLE_SECONDS * 1000 || metres(lastSample, fix) >= SAMPLE_METRES) {
      lastSample = fix;
      batch.push({ lat: fix.lat, lng: fix.lng, time: new Date(fix.at).toISOString() });
    }
  }, () => {}, { enableHighAccuracy: true, maximumAge: 5000 });
  timer = setInterval(flush, BATCH_SECONDS * 1000);
}

/** Queues the positions gathered so far. */
export async function flush() {
  if (routeId === null || !batch.length) return;
  const positions = batch.splice(0, 1000);
  await enqueue('positions', { route_id: routeId, label: `${positions.length} position(s)`, body: { positions } });
}
