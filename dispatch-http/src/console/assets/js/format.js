// Formatting and DOM building. Values from the API only ever go into text nodes.
//
// Times of day on plans and routes (`HH:mm`) are already in the depot's time zone; timestamps
// (`eta`, `started_ts`, positions) are UTC and are shown in the depot's zone with Intl, which
// the browser carries offline.

/** An element with attributes (`class`, `data-*`, ...) and children (nodes or text). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Metres as kilometres with one decimal. */
export function km(metres) {
  return `${(Number(metres ?? 0) / 1000).toFixed(1)} km`;
}

/** Seconds as "2 h 05 min" or "45 min". */
export function duration(seconds) {
  const minutes = Math.round(Number(seconds ?? 0) / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, "0")} min` : `${m} min`;
}

/**
 * The service's clock: the wall clock, or under `serve --simulate` the simulated one, read
 * from `GET /healthz` and followed at its speed from the moment it was read.
 */
const serviceClock = { read: Date.now(), at: Date.now(), speed: 1 };

/** Reads the service's clock again (a service not simulating keeps the wall clock). */
export async function syncClock() {
  try {
    const response = await fetch("healthz", { headers: { accept: "application/json" } });
    const { clock: simulated } = await response.json();
    const at = Date.parse(simulated?.now ?? "");
    Object.assign(serviceClock, Number.isFinite(at)
      ? { read: Date.now(), at, speed: simulated.speed > 0 ? simulated.speed : 1 }
      : { read: Date.now(), at: Date.now(), speed: 1 });
  } catch {
    // Unreachable for the moment: the clock keeps going as last read.
  }
}

/** The service's "now". */
export function now() {
  return new Date(serviceClock.at + (Date.now() - serviceClock.read) * serviceClock.speed);
}

/** How many wall-clock milliseconds a minute of the service's clock lasts. */
export const minuteMs = () => 60000 / serviceClock.speed;

/** Today in the browser's time zone (on the service's clock), YYYY-MM-DD. */
export function today() {
  const d = now();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Plural helper: "1 stop", "3 stops". */
export function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "HH:mm" as minutes after midnight (null when absent). */
export function minutesOf(hhmm) {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm ?? "");
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Minutes after the plan date's midnight as "HH:mm" (a later day as "+1 HH:mm"). */
export function clock(minutes) {
  if (!Number.isFinite(minutes)) return "—";
  const whole = Math.round(minutes);
  const day = Math.floor(whole / 1440);
  const m = ((whole % 1440) + 1440) % 1440;
  const text = `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
  return day > 0 ? `+${day} ${text}` : text;
}

/** Days between two YYYY-MM-DD dates (b - a). */
export function daysBetween(a, b) {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86400000);
}

/** A UTC timestamp (with or without zone suffix) as a Date. */
export function instant(ts) {
  if (!ts) return null;
  const text = /[zZ]|[+-]\d{2}:?\d{2}$/.test(ts) ? ts : `${ts}Z`;
  const t = Date.parse(text);
  return Number.isFinite(t) ? new Date(t) : null;
}

/** Clocks in one IANA time zone: a timestamp's local date and minutes after its midnight. */
export class Zone {
  constructor(timeZone) {
    this.name = timeZone || "UTC";
    try {
      this.parts = new Intl.DateTimeFormat("en-GB", {
        timeZone: this.name, year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", hourCycle: "h23",
      });
    } catch {
      this.name = "UTC";
      this.parts = new Intl.DateTimeFormat("en-GB", {
        timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", hourCycle: "h23",
      });
    }
  }

  /** { date: "YYYY-MM-DD", minutes } of a Date in this zone. */
  local(date) {
    const p = Object.fromEntries(this.parts.formatToParts(date).map((x) => [x.type, x.value]));
    return { date: `${p.year}-${p.month}-${p.day}`, minutes: Number(p.hour) * 60 + Number(p.minute) };
  }

  /** Minutes after `planDate`'s midnight in this zone of a UTC timestamp (null if absent). */
  minutesOn(planDate, ts) {
    const d = instant(ts);
    if (!d) return null;
    const { date, minutes } = this.local(d);
    return daysBetween(planDate, date) * 1440 + minutes;
  }

  /** A UTC timestamp as "HH:mm" in this zone (with the date when it is not `planDate`). */
  show(ts, planDate) {
    const d = instant(ts);
    if (!d) return "—";
    const { date, minutes } = this.local(d);
    const text = clock(minutes);
    return planDate && date !== planDate ? `${date} ${text}` : text;
  }

  /** Today's date in this zone (on the service's clock). */
  today() {
    return this.local(now()).date;
  }
}
