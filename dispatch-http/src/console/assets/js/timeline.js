// The timeline (a Gantt chart): one lane per route on a shared clock of the day. Behind each
// lane the vehicle's shift and break window; on it the drive from the start, each stop's
// time window (a thin bar), the wait until service may start, the service itself as a block
// at its planned time, the drives between, the drive back, and the break where the plan has
// the driver take it. Late stops and stops outside their window are marked; what the driver
// reported (arrived, delivered, failed) colours the block, and a live estimate shows as a tick.
//
// Nothing is measured while drawing: on each track, a frame of two days (routes may run past
// midnight) holds everything at percentages of those 48 hours, and only the frame is placed
// and sized to show the day's span. When a move stretches the day, the frames of the lanes
// it did not touch are moved, not their contents.

import { clock, el, now } from "./format.js";

/** Minutes a track's frame holds. */
const FRAME = 2880;

/** A time (minutes) as a position in the frame. */
const at = (t) => `${(Math.min(Math.max(t, 0), FRAME) / FRAME) * 100}%`;

function span(board) {
  let from = Infinity;
  let to = -Infinity;
  for (const r of board.routes) {
    const times = [r.start, r.end, ...r.stops.flatMap((s) => [s.arrival, s.departure, s.eta])]
      .filter(Number.isFinite);
    for (const t of times) { from = Math.min(from, t); to = Math.max(to, t); }
    if (r.shift && r.shift[1] - r.shift[0] < 1440) { from = Math.min(from, r.shift[0]); to = Math.max(to, r.shift[1]); }
  }
  if (!Number.isFinite(from)) return [480, 1080];
  return [Math.floor(from / 60) * 60, Math.max(Math.ceil(to / 60) * 60, Math.floor(from / 60) * 60 + 120)];
}

export class Timeline {
  /** @param {HTMLElement} element the timeline's section */
  constructor(element) {
    this.element = element;
    this.blocks = new Map();
    this.lanes = new Map();
  }

  /**
   * Draws a board. `on.stop(s)` runs when a stop block is chosen, `on.hover(r|null)` when the
   * pointer enters or leaves a lane; `decorate(lane, r)` and `decorateStop(block, s)` let the
   * caller make lanes drop targets and blocks draggable.
   */
  show(board, on, decorate = () => {}, decorateStop = () => {}) {
    this.blocks.clear();
    this.lanes.clear();
    Object.assign(this, { on, decorate, decorateStop });
    if (!board || board.routes.length === 0) {
      this.span = null;
      this.board = null;
      this.element.replaceChildren(el("p", { class: "empty" }, board ? "No routes on this date." : ""));
      return;
    }
    this.board = board;
    this.now = this.nowOn(board);
    this.header = null;
    this.span = span(board);
    this.element.replaceChildren(this.axis(), ...board.routes.map((r) => this.lane(r)));
  }

  /**
   * Redraws only the lanes of `routes` (models already in `board`); when a move stretched the
   * day, the clock grows (it does not shrink until the day is drawn afresh, so lanes do not
   * jump back and forth). False when a lane is not drawn: then the whole timeline is to be.
   */
  update(board, routes) {
    if (!this.span || routes.some((r) => !this.lanes.has(r.route.id))) return false;
    this.board = board;
    const wanted = span(board);
    if (wanted[0] < this.span[0] || wanted[1] > this.span[1]) {
      this.span = [Math.min(wanted[0], this.span[0]), Math.max(wanted[1], this.span[1])];
      for (const frame of this.element.querySelectorAll(".tl-frame")) this.fit(frame);
      this.axis();
    }
    for (const r of routes) {
      const old = this.lanes.get(r.route.id);
      for (const block of old.querySelectorAll(".tl-stop")) this.blocks.delete(Number(block.dataset.stopId));
      old.replaceWith(this.lane(r));
    }
    return true;
  }

  /** The service's time of day in minutes when `board` shows today, else null. */
  nowOn(board) {
    return board.zone.today() === board.date ? board.zone.local(now()).minutes : null;
  }

  /** Moves the "now" line of every lane to the service's time (a clock that runs on). */
  tick() {
    if (!this.board || this.now === null) return;
    const minutes = this.nowOn(this.board);
    if (minutes === null || minutes === this.now) return;
    this.now = minutes;
    for (const line of this.element.querySelectorAll(".tl-now")) {
      line.style.left = at(minutes);
      line.title = `Now ${clock(minutes)}`;
    }
  }

  /** The row of hours for the drawn span (replacing the one drawn before). */
  axis() {
    const frame = this.fit(el("div", { class: "tl-frame tl-axis", "aria-hidden": "true" }));
    for (let t = this.span[0] + 60; t < this.span[1]; t += 60) {
      const tick = el("span", { class: "tl-tick" }, clock(t));
      tick.style.left = at(t);
      frame.append(tick);
    }
    const header = el("div", { class: "tl-row tl-header" }, el("div", { class: "tl-head" }, "Route"), el("div", { class: "tl-track" }, frame));
    this.header?.replaceWith(header);
    this.header = header;
    return header;
  }

  /** Places and sizes a track's frame so that the drawn span fills the track. */
  fit(frame) {
    const [t0, t1] = this.span;
    frame.style.left = `${(-t0 / (t1 - t0)) * 100}%`;
    frame.style.width = `${(FRAME / (t1 - t0)) * 100}%`;
    return frame;
  }

  /** `node` from `from` to `to` (minutes) on the frame, at least `minWidth` pixels wide. */
  place(node, from, to, minWidth = 0) {
    const width = `${((Math.max(to, from) - from) / FRAME) * 100}%`;
    node.style.left = at(from);
    node.style.width = minWidth ? `max(${minWidth}px, ${width})` : width;
    return node;
  }

  /** One route's lane: its head (name, status) and its track. */
  lane(r) {
    const track = this.fit(el("div", { class: "tl-frame" }));
    if (r.shift) track.append(this.place(el("div", { class: "tl-shift", title: `Shift ${clock(r.shift[0])}–${clock(r.shift[1])}` }), r.shift[0], r.shift[1]));
    if (r.pause) {
      track.append(this.place(el("div", { class: "tl-break", title: `Break of ${r.pause.minutes} min between ${clock(r.pause.from)} and ${clock(r.pause.to)}` }), r.pause.from, r.pause.to));
    }
    let previous = r.start;
    for (const s of r.stops) {
      for (const [from, to] of s.windows) {
        track.append(this.place(el("div", { class: "tl-window", title: `Window ${clock(from)}–${clock(to)}` }), from, to));
      }
      if (Number.isFinite(previous)) track.append(this.place(el("div", { class: "tl-drive" }), previous, s.arrival));
      if (s.start > s.arrival) track.append(this.place(el("div", { class: "tl-wait", title: `Waiting ${Math.round(s.start - s.arrival)} min` }), s.arrival, s.start));
      const block = this.place(el("button", {
        type: "button",
        class: `tl-stop status-${s.status.replace(" ", "-")}${s.late ? " late" : ""}${s.liveLate ? " running-late" : ""}${s.pending ? " pending" : ""}`,
        "data-stop-id": s.stop.id,
        "aria-label": stopLabel(s),
      }, String(s.n)), s.start, s.departure, 8);
      block.style.setProperty("--route", r.colour);
      block.addEventListener("click", () => this.on.stop(s));
      if (!s.pending) this.decorateStop(block, s);
      this.blocks.set(s.stop.id, block);
      track.append(block);
      if (s.liveStart !== null) {
        const tick = el("div", { class: `tl-eta${s.liveLate ? " running-late" : ""}`, title: `Now expected ${clock(s.liveStart)}` });
        tick.style.left = at(s.liveStart);
        track.append(tick);
      }
      previous = s.departure;
    }
    if (Number.isFinite(previous) && Number.isFinite(r.end) && r.stops.length > 0) {
      track.append(this.place(el("div", { class: "tl-drive tl-return" }), previous, r.end));
    }
    for (const b of r.breaks) {
      const name = `${r.route.name} break ${clock(b.from)}–${clock(b.to)}`;
      track.append(this.place(el("div", { class: "tl-break-taken", role: "img", "aria-label": name, title: name }), b.from, b.to, 4));
    }
    if (this.now !== null) {
      const line = el("div", { class: "tl-now", title: `Now ${clock(this.now)}` });
      line.style.left = at(this.now);
      track.append(line);
    }
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = r.colour;
    const head = el("div", { class: "tl-head" }, swatch,
      el("span", { class: "tl-name" }, r.route.name),
      el("span", { class: `badge ${r.status.replace(" ", "-")}` }, r.status),
      r.runningLate ? el("span", { class: "badge late" }, "running late") : null,
      r.route.is_locked ? el("span", { class: "badge", title: "Locked" }, "locked") : null);
    const lane = el("div", { class: "tl-row tl-lane", role: "group", "aria-label": `Timeline of ${r.route.name}`, "data-route-id": r.route.id },
      head, el("div", { class: "tl-track" }, track));
    lane.addEventListener("mouseenter", () => this.on.hover(r));
    lane.addEventListener("mouseleave", () => this.on.hover(null));
    this.decorate(lane, r);
    this.lanes.set(r.route.id, lane);
    return lane;
  }

  /** Marks one stop's block (null: none) and scrolls it into view. */
  select(stopId) {
    for (const [id, block] of this.blocks) block.classList.toggle("selected", id === stopId);
    this.blocks.get(stopId)?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  /** Marks one route's lane (null: none). */
  highlight(routeId) {
    for (const [id, lane] of this.lanes) lane.classList.toggle("highlighted", id === routeId);
  }
}

/** What a stop block says to a screen reader (and on hover). */
export function stopLabel(s) {
  const windows = s.windows.length ? s.windows.map(([a, b]) => `${clock(a)}–${clock(b)}`).join(", ") : "any time";
  const parts = [
    `${s.r.route.name} stop ${s.n}: ${s.numbers}`,
    `service ${clock(s.start)}–${clock(s.departure)}`,
    `window ${windows}`,
    s.status === "failed" && s.reason ? `failed (${s.reason})` : s.status,
  ];
  if (s.pending) parts.push("waiting for the service");
  if (s.late) parts.push("outside its window");
  if (s.liveStart !== null) parts.push(`now expected ${clock(s.liveStart)}${s.liveLate ? ", late" : ""}`);
  return parts.join(", ");
}
