// The board's model of a day, derived from what the API answered: per route its status, its
// stops on a minute scale (arrival, waiting, service, windows), what the driver reported and
// what runs late; and the orders no route serves, with why.
//
// Minutes count from midnight of the route's date in the depot's time zone (a stop after
// midnight is past 1440), the scale of the plan's `HH:mm` times.

import { daysBetween, minutesOf } from "./format.js";

/** Route colours, told apart also by people with the common colour-vision deficiencies. */
export const COLOURS = [
  "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#637939",
];

const COMPLETED = /^(DELIVERED|UNDELIVERED|PARTIALLY_)/;

/** A route's state: planned, dispatched, in progress or completed. */
export function routeStatus(route) {
  if (route.completed_ts) return "completed";
  if (route.started_ts) return "in progress";
  return route.dispatched ? "dispatched" : "planned";
}

/** What the driver side reported of a stop: planned, arrived, delivered, partly delivered, failed. */
export function stopStatus(stop, orders) {
  if (stop.failed_reason) return "failed";
  if (stop.actual_completed_ts) {
    const items = (stop.orders ?? []).flatMap((o) => o.line_items ?? []);
    const short = items.some((i) => i.status === "UNDELIVERED"
      || (Number.isFinite(i.delivered_quantity) && i.delivered_quantity < i.quantity));
    const partial = orders.some((o) => /^PARTIALLY_/.test(o?.status ?? ""));
    return short || partial ? "partly delivered" : "delivered";
  }
  return stop.actual_arrival_time ? "arrived" : "planned";
}

function at(date, routeDate, hhmm) {
  const m = minutesOf(hhmm);
  return m === null ? null : daysBetween(routeDate, date ?? routeDate) * 1440 + m;
}

/** Windows as [from, to] minutes (a window past midnight ends after 1440). */
export function windowsOf(order) {
  return (order?.time_windows ?? []).map((w) => {
    const from = minutesOf(w.from);
    let to = minutesOf(w.to);
    if (to <= from) to += 1440;
    return [from, to];
  });
}

/** Whether a service start (minutes) lies inside one of the windows (or there are none). */
export function inWindow(start, windows) {
  if (windows.length === 0) return true;
  return windows.some(([from, to]) => (start >= from && start <= to)
    || (start - 1440 >= from && start - 1440 <= to));
}

/** When service can start at `arrival`: then, or when the next window opens. */
function serviceFrom(arrival, windows) {
  if (inWindow(arrival, windows)) return arrival;
  const opens = windows.map(([from]) => from).filter((from) => from > arrival);
  return opens.length > 0 ? Math.min(...opens) : arrival;
}

function shiftOf(vehicle) {
  if (!vehicle) return null;
  if (vehicle.availability === "shift" && vehicle.shift_start && vehicle.shift_end) {
    return [minutesOf(vehicle.shift_start), minutesOf(vehicle.shift_end)];
  }
  if (vehicle.availability === "full_day") return [0, 1440];
  return null;
}

function breakOf(vehicle) {
  if (!vehicle?.break || !vehicle.break_start || !vehicle.break_end) return null;
  return { from: minutesOf(vehicle.break_start), to: minutesOf(vehicle.break_end), minutes: vehicle.break_duration ?? 0 };
}

function stopModel(stop, n, r, board) {
  const orders = (stop.orders ?? []).map((o) => board.orders.get(o.id) ?? { id: o.id, order_number: o.order_number, time_windows: [], service_seconds: 0 });
  const date = r.route.date;
  let arrival = at(stop.arrival_date, date, stop.estimated_arrival_time);
  let departure = at(stop.departure_date, date, stop.estimated_departure_time);
  const service = orders.reduce((s, o) => s + (o.service_seconds ?? 0), 0) / 60;
  let start = Math.max(arrival, departure - service);
  const windows = windowsOf(orders[0]);
  const status = stopStatus(stop, orders);
  const pending = status === "planned" || status === "arrived";
  const eta = r.live && pending && stop.eta ? board.zone.minutesOn(date, stop.eta) : null;
  const liveStart = eta === null ? null : serviceFrom(eta, windows);
  const done = !pending;
  const doneAt = done ? board.zone.minutesOn(date, stop.actual_completed_ts) : null;
  if (doneAt !== null) {
    // A finished stop is drawn as it happened: from the driver's arrival to the outcome.
    const arrived = board.zone.minutesOn(date, stop.actual_arrival_time) ?? doneAt;
    arrival = arrived;
    start = arrived;
    departure = Math.max(doneAt, arrived + 1);
  }
  const late = !inWindow(start, windows);
  const liveLate = liveStart !== null && !inWindow(liveStart, windows);
  return {
    stop, n, r, orders, arrival, start, departure, windows, status, eta, liveStart,
    late: late && !stop.pending, liveLate, doneAt, reason: stop.failed_reason?.reason ?? null, pending: Boolean(stop.pending),
    numbers: orders.map((o) => o.order_number).join(", "),
  };
}

/** Builds the board's model from a loaded day (see day.js) and the depot's Zone. */
export function buildBoard(day, zone) {
  const board = { ...day, zone, routes: [], byRoute: new Map(), onRoutes: new Set() };
  board.readOnly = day.permission !== "all";
  let i = 0;
  for (const plan of day.plans) {
    for (const route of plan.routes) {
      const r = routeModel(board, route, plan, i);
      board.routes.push(r);
      board.byRoute.set(route.id, r);
      i += 1;
    }
  }
  settle(board);
  return board;
}

/** One route's model: its status, colour, shift and break, and its stops. */
function routeModel(board, route, plan, index) {
  const vehicle = route.vehicle ? board.vehicles.get(String(route.vehicle.vehicle_id)) : null;
  const status = routeStatus(route);
  const r = {
    route, plan, vehicle, status, colour: COLOURS[index % COLOURS.length], index,
    live: status === "in progress", position: board.positions.get(route.id) ?? null,
    start: minutesOf(route.start_time), end: minutesOf(route.end_time),
    shift: shiftOf(vehicle), pause: breakOf(vehicle),
  };
  if (r.end !== null && r.end < r.start) r.end += 1440;
  r.stops = route.stops.map((s, n) => stopModel(s, n + 1, r, board));
  r.late = r.stops.some((s) => s.late);
  r.runningLate = r.stops.some((s) => s.liveLate);
  r.breaks = breaksOf(board, route);
  return r;
}

/** Where the plan has the driver take breaks (`GET /console/breaks`), as [{from, to}] minutes. */
function breaksOf(board, route) {
  return (board.breaks?.get(route.id) ?? []).map((b) => ({
    from: at(b.start_date, route.date, b.start_time),
    to: at(b.end_date, route.date, b.end_time),
  })).filter((b) => Number.isFinite(b.from) && Number.isFinite(b.to));
}

/** What depends on every route: the orders on routes and the unassigned list. */
function settle(board) {
  board.onRoutes = new Set(board.routes.flatMap((r) => r.stops.flatMap((s) => s.orders.map((o) => o.id))));
  board.unassigned = unassignedOf(board);
}

/**
 * Puts new versions of some routes (`routes`: API route objects, each replacing the one with
 * its id) into the board without rebuilding the others: a move redraws only what it touched.
 * Returns the models of the replaced routes.
 */
export function replaceRoutes(board, routes) {
  const changed = [];
  for (const route of routes) {
    const old = board.byRoute.get(route.id);
    if (!old) continue;
    const i = old.plan.routes.findIndex((x) => x.id === route.id);
    if (i >= 0) old.plan.routes[i] = route;
    const r = routeModel(board, route, old.plan, old.index);
    board.routes[board.routes.indexOf(old)] = r;
    board.byRoute.set(route.id, r);
    changed.push(r);
  }
  settle(board);
  return changed;
}

/** The orders of the day no shown route serves and that are not finished, with why. */
function unassignedOf(board) {
  const reasons = new Map();
  for (const plan of board.plans) {
    for (const u of plan.unserved) reasons.set(u.id, { reason: u.reason, description: u.reason_description, plan: plan.id });
  }
  const list = [];
  for (const order of board.orders.values()) {
    if (board.onRoutes.has(order.id)) continue;
    const why = reasons.get(order.id);
    const due = order.delivery_date === board.date;
    if (!due && !why) continue;
    if (COMPLETED.test(order.status)) continue;
    list.push({ order, reason: why?.reason ?? null, description: why?.description ?? null });
  }
  list.sort((a, b) => a.order.order_number.localeCompare(b.order.order_number, undefined, { numeric: true }));
  return list;
}

/** Counts over a day, for the status line. */
export function dayCounts(board) {
  return {
    plans: board.plans.length,
    routes: board.routes.length,
    stops: board.routes.reduce((n, r) => n + r.stops.length, 0),
    unassigned: board.unassigned.length,
  };
}
