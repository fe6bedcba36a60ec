// The console's entry point: the form (access key and date), loading a day, and the buttons.
//
// The access key lives only in this tab's sessionStorage and in the x-access-key header of
// the page's own API calls: never in a URL, a cookie or the page. The date is kept in the
// URL's fragment (#date=YYYY-MM-DD), so a reload shows the same day.
//
// body[data-state] says where the page is: idle, loading, ready or error.

import { Api, ApiError } from "./api.js";
import { dayCounts, loadDay } from "./day.js";
import { count, today } from "./format.js";
import { DayMap, colourOf } from "./map.js";
import { renderPanel, showHandOver, showStop } from "./panel.js";

const KEY_ITEM = "dispatch.console.access-key";

const $ = (id) => document.getElementById(id);
const form = $("day-form");
const keyInput = $("key");
const dateInput = $("date");
const message = $("message");
const details = $("details");

const map = new DayMap($("map"), {
  url: document.body.dataset.tileUrl,
  attribution: document.body.dataset.tileAttribution,
});

function say(text, isError = false) {
  message.textContent = text;
  message.classList.toggle("error", isError);
}

function storedKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

function reflectKey() {
  keyInput.placeholder = storedKey() ? "key kept for this tab" : "x-access-key";
}

function dateFromFragment() {
  const match = location.hash.match(/date=(\d{4}-\d{2}-\d{2})/);
  return match ? match[1] : null;
}

function fail(error) {
  document.body.dataset.state = "error";
  if (error instanceof ApiError) {
    if (error.statusCode === 401) {
      // A key the service refuses is of no further use: ask for another.
      sessionStorage.removeItem(KEY_ITEM);
      reflectKey();
      say(`The access key was refused: ${error.message}. Enter a valid key.`, true);
    } else {
      say(error.message, true);
    }
  } else {
    say(`Something went wrong: ${error.message}`, true);
  }
}

let shown = { date: null };

async function showDay(date) {
  const key = storedKey();
  if (!key) {
    say("Enter an access key.", true);
    document.body.dataset.state = "error";
    return;
  }
  document.body.dataset.state = "loading";
  say(`Loading ${date}…`);
  details.hidden = true;
  try {
    const api = new Api(key, say);
    const { depot, plans } = await loadDay(api, date);
    const colours = new Map();
    const routes = plans.flatMap((p) => p.routes).map((route, i) => {
      colours.set(route.id, colourOf(i));
      return { route, colour: colourOf(i) };
    });
    renderPanel($("panel"), plans, colours, (action, id, name) => act(api, action, id, name));
    map.resize();
    map.show(depot, routes, plans.flatMap((p) => p.unserved), (route, stop, n) => showStop(details, route, stop, n));
    const c = dayCounts(plans);
    shown = { date };
    if (c.plans === 0) {
      say(`No plans on ${date} in depot ${depot?.name ?? ""}.`, true);
    } else {
      say(`${depot?.name ?? "Depot"}, ${date}: ${count(c.plans, "plan")}, ${count(c.routes, "route")}, ${count(c.stops, "stop")}, ${c.unserved} not placed.`);
    }
    document.body.dataset.state = "ready";
  } catch (error) {
    fail(error);
  }
}

const ACTIONS = {
  "dispatch-plan": { path: (id) => `v2/plans/${id}/dispatch`, confirm: (n) => `Dispatch every route of ${n} to its driver? Dispatch cannot be undone.`, done: (n) => `${n} dispatched.` },
  "dispatch-route": { path: (id) => `v2/routes/${id}/dispatch`, confirm: (n) => `Dispatch ${n} to its driver? Dispatch cannot be undone.`, done: (n) => `${n} dispatched.` },
  "reverse-route": { path: (id) => `v2/routes/${id}/reverse`, confirm: null, done: (n) => `${n} reversed: its stops are now visited in the opposite order.` },
};

async function act(api, action, id, name) {
  if (action === "driver-app") return handOver(api, id, name);
  const what = ACTIONS[action];
  if (what.confirm && !window.confirm(what.confirm(name))) return;
  for (const b of document.querySelectorAll("button[data-action]")) b.disabled = true;
  document.body.dataset.state = "loading";
  say(`${name}: working…`);
  try {
    await api.post(what.path(id));
  } catch (error) {
    fail(error);
    await showDayKeepingMessage(shown.date);
    return;
  }
  await showDay(shown.date);
  if (document.body.dataset.state === "ready") say(what.done(name));
}

/** Makes a driver credential for the van and shows its app link as a QR code. */
async function handOver(api, vehicleId, name) {
  say(`${name}: making a driver credential…`);
  try {
    const { body } = await api.post(`v2/vehicles/${vehicleId}/driver-credentials`);
    showHandOver(details, name, body.driver_credential);
    say(`${name}: a new driver credential; scan its code with the driver's phone.`);
  } catch (error) {
    fail(error);
  }
}

/** Reloads the day after a failed action, leaving the action's error on screen. */
async function showDayKeepingMessage(date) {
  const text = message.textContent;
  await showDay(date);
  if (document.body.dataset.state === "ready") {
    say(text, true);
    document.body.dataset.state = "error";
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = keyInput.value.trim();
  if (typed) sessionStorage.setItem(KEY_ITEM, typed);
  // The key does not stay in the page once it is kept.
  keyInput.value = "";
  reflectKey();
  const date = dateInput.value;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    say("Pick a date.", true);
    return;
  }
  history.replaceState(null, "", `#date=${date}`);
  showDay(date);
});

$("forget").addEventListener("click", () => {
  sessionStorage.removeItem(KEY_ITEM);
  reflectKey();
  // What the key showed goes too: the page is left as for someone without it.
  $("panel").replaceChildren();
  details.hidden = true;
  map.show(null, [], [], () => {});
  document.body.dataset.state = "idle";
  say("The access key is forgotten in this tab.");
});

dateInput.value = dateFromFragment() ?? today();
reflectKey();
document.body.dataset.state = "idle";
if (storedKey() && dateFromFragment()) showDay(dateInput.value);
