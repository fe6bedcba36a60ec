// Formatting and DOM building. Values from the API only ever go into text nodes.

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

/** Today in the browser's time zone, YYYY-MM-DD. */
export function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Plural helper: "1 stop", "3 stops". */
export function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
