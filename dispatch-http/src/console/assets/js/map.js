// The map: one coloured line per route through its stops in visiting order, numbered stop
// markers, the depot, and the orders the optimiser could not place. Leaflet draws it (SVG);
// without a configured tile URL there is no base layer and the routes draw on a plain
// background, so the page works offline.

import * as L from "../vendor/leaflet/leaflet-src.esm.js";

/** Route colours, told apart also by people with the common colour-vision deficiencies. */
export const COLOURS = [
  "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#637939",
];

export function colourOf(index) {
  return COLOURS[index % COLOURS.length];
}

const located = (p) => Number.isFinite(p?.lat) && Number.isFinite(p?.lng);

function badge(className, text, colour, size) {
  const span = document.createElement("span");
  span.textContent = text;
  // Set through the DOM (not markup), which the page's style policy allows.
  if (colour) span.style.background = colour;
  return L.divIcon({ className, html: span, iconSize: [size, size], iconAnchor: [size / 2, size / 2] });
}

export class DayMap {
  /** @param {HTMLElement} element @param {{url: string, attribution: string}} tiles */
  constructor(element, tiles) {
    this.map = L.map(element, { zoomSnap: 0.25 }).setView([51.5, -0.12], 3);
    if (tiles.url) {
      L.tileLayer(tiles.url, { attribution: tiles.attribution, maxZoom: 19 }).addTo(this.map);
    } else {
      element.classList.add("plain");
    }
    this.layers = L.layerGroup().addTo(this.map);
  }

  /**
   * Draws a day. `routes` are [{route, colour}]; `onStop(route, stop, number)` is called when a
   * stop marker is clicked.
   */
  show(depot, routes, unserved, onStop) {
    this.layers.clearLayers();
    const bounds = L.latLngBounds([]);
    const depotAt = located(depot) ? [depot.lat, depot.lng] : null;
    if (depotAt) {
      L.marker(depotAt, { icon: badge("depot-marker", "D", null, 26), title: `Depot: ${depot.name}`, zIndexOffset: 1000 })
        .addTo(this.layers);
      bounds.extend(depotAt);
    }
    for (const { route, colour } of routes) {
      const points = [];
      route.stops.forEach((stop, i) => {
        if (!located(stop)) return;
        const at = [stop.lat, stop.lng];
        points.push(at);
        bounds.extend(at);
        L.marker(at, { icon: badge("stop-marker", String(i + 1), colour, 22), title: `${route.name}: stop ${i + 1}` })
          .on("click", () => onStop(route, stop, i + 1))
          .addTo(this.layers);
      });
      if (points.length > 0) {
        L.polyline(points, { color: colour, weight: 4, opacity: 0.85, className: "route-line" })
          .bindTooltip(route.name, { sticky: true })
          .addTo(this.layers);
      }
    }
    for (const order of unserved.filter(located)) {
      const at = [order.lat, order.lng];
      bounds.extend(at);
      L.marker(at, { icon: badge("unserved-marker", "✕", null, 20), title: `Not placed: ${order.address ?? order.id}` })
        .addTo(this.layers);
    }
    if (bounds.isValid()) this.map.fitBounds(bounds, { padding: [30, 30], maxZoom: 16 });
  }

  /** Leaflet measures its container once; call when the layout changed. */
  resize() {
    this.map.invalidateSize();
  }
}
