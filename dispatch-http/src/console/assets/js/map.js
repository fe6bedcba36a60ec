// The map: one coloured line per route from its start (the depot, usually) through its stops
// in visiting order and back (along the roads when the service knows them, else straight), numbered stop markers, the depot, the unassigned orders and the
// vans' last reported positions. Leaflet draws it (SVG). Without a configured tile URL there
// is no base map: a grid and a scale bar give the distances, so the page works offline.
//
// Linked with the timeline: `select` and `highlight` mark a stop or a route here when it is
// chosen there, and the handlers report choices made here.

import * as L from "../vendor/leaflet/leaflet-src.esm.js";

/** More stops than this on a day are drawn as dots on a canvas (see `show`). */
const MANY_STOPS = 300;

const located = (p) => Number.isFinite(p?.lat) && Number.isFinite(p?.lng);

function badge(className, text, colour, size) {
  const span = document.createElement("span");
  span.textContent = text;
  // Set through the DOM (not markup), which the page's style policy allows.
  if (colour) span.style.background = colour;
  return L.divIcon({ className, html: span, iconSize: [size, size], iconAnchor: [size / 2, size / 2] });
}

/** Adds `marker` to `group` and names it: a marker's own text is only its number. */
function labelled(marker, group, name) {
  marker.addTo(group);
  marker.getElement()?.setAttribute("aria-label", name);
  return marker;
}

/** A grid of thin lines on every tile: distances read against the scale bar, offline. */
const Grid = L.GridLayer.extend({
  createTile() {
    const tile = document.createElement("canvas");
    const size = this.getTileSize();
    tile.width = size.x;
    tile.height = size.y;
    const g = tile.getContext("2d");
    g.strokeStyle = "#c9ced8";
    g.lineWidth = 1;
    g.strokeRect(0.5, 0.5, size.x, size.y);
    g.strokeStyle = "#e1e4ea";
    g.beginPath();
    g.moveTo(size.x / 2, 0); g.lineTo(size.x / 2, size.y);
    g.moveTo(0, size.y / 2); g.lineTo(size.x, size.y / 2);
    g.stroke();
    return tile;
  },
});

/** Where a route starts and ends, from its vehicle (the depot unless set elsewhere). */
function endsOf(r, depotAt) {
  const v = r.vehicle;
  const start = v?.start_location === "other" && Number.isFinite(v.start_lat) ? [v.start_lat, v.start_lng] : depotAt;
  let end = depotAt;
  if (v?.end_location === "none") end = null;
  else if (v?.end_location === "other" && Number.isFinite(v.end_lat)) end = [v.end_lat, v.end_lng];
  return { start, end };
}

export class DayMap {
  /** @param {HTMLElement} element @param {{url: string, attribution: string}} tiles */
  constructor(element, tiles) {
    this.map = L.map(element, { zoomSnap: 0.25 }).setView([51.5, -0.12], 3);
    if (tiles.url) {
      L.tileLayer(tiles.url, { attribution: tiles.attribution, maxZoom: 19 }).addTo(this.map);
    } else {
      element.classList.add("plain");
      new Grid({ className: "grid-layer" }).addTo(this.map);
    }
    L.control.scale({ imperial: false, maxWidth: 160 }).addTo(this.map);
    this.layers = L.layerGroup().addTo(this.map);
    this.canvas = L.canvas({ padding: 0.2 });
    this.lines = new Map();
    this.markers = new Map();
    /** Lines along the roads by route id ({stop_ids, points, roads}), from `GET /console/roads`. */
    this.roads = new Map();
    this.fitted = null;
  }

  /**
   * Draws a board (model.js). `on.stop(stopModel)` and `on.order(order)` report a click on a
   * stop or unassigned marker, `on.route(r)` on a route line. The view is fitted to the day the
   * first time a date is shown, and kept on later redraws of the same date.
   */
  show(board, on) {
    this.layers.clearLayers();
    this.lines.clear();
    this.markers.clear();
    this.routeLayers = new Map();
    this.unserved = null;
    this.on = on;
    if (!board) return;
    const bounds = L.latLngBounds([]);
    // Past a few hundred stops, numbered markers (one element each) cost most of a redraw:
    // stops become dots on one canvas, and the timeline's blocks stay the way to reach each.
    this.many = board.routes.reduce((n, r) => n + r.stops.length, 0) > MANY_STOPS;
    const depot = board.depot;
    this.depotAt = located(depot) ? [depot.lat, depot.lng] : null;
    if (this.depotAt) {
      labelled(L.marker(this.depotAt, { icon: badge("depot-marker", "D", null, 26), title: `Depot: ${depot.name}`, zIndexOffset: 1000, keyboard: false }),
        this.layers, `Depot: ${depot.name}`);
      bounds.extend(this.depotAt);
    }
    for (const r of board.routes) this.route(board, r, bounds);
    this.showUnassigned(board, bounds);
    if (bounds.isValid() && this.fitted !== board.date) {
      this.map.fitBounds(bounds, { padding: [30, 30], maxZoom: 16 });
      this.fitted = board.date;
    }
  }

  /** Redraws only the layers of `routes` and the unassigned orders (after a move). */
  update(board, routes) {
    for (const r of routes) {
      const old = this.routeLayers.get(r.route.id);
      if (old) {
        this.layers.removeLayer(old.group);
        for (const id of old.stops) this.markers.delete(id);
      }
      this.route(board, r, L.latLngBounds([]));
    }
    this.showUnassigned(board, L.latLngBounds([]));
  }

  /** A route's layer: its line from the start through the stops and back, its stop markers and its van. */
  route(board, r, bounds) {
    const group = L.layerGroup().addTo(this.layers);
    const stops = [];
    this.routeLayers.set(r.route.id, { group, stops });
    const { start, end } = endsOf(r, this.depotAt);
    const points = start ? [start] : [];
    for (const s of r.stops) {
      if (!located(s.stop)) continue;
      const here = [s.stop.lat, s.stop.lng];
      points.push(here);
      bounds.extend(here);
      this.markers.set(s.stop.id, this.stopMarker(r, s, this.many, this.on, group));
      stops.push(s.stop.id);
    }
    if (end && r.stops.length > 0) points.push(end);
    this.lines.delete(r.route.id);
    if (points.length > 1) {
      const road = this.roadOf(r);
      const line = L.polyline(road ?? points, { color: r.colour, weight: 4, opacity: 0.85, className: road ? "route-line on-roads" : "route-line" })
        .bindTooltip(r.route.name, { sticky: true })
        .on("click", () => this.on.route(r))
        .addTo(group);
      this.lines.set(r.route.id, line);
    }
    if (located(r.position) && r.status !== "completed") {
      const title = `${r.route.name}: reported at ${board.zone.show(r.position.time, board.date)}`;
      labelled(L.marker([r.position.lat, r.position.lng], {
        icon: badge("vehicle-marker", "▶", r.colour, 24), title, zIndexOffset: 2000, keyboard: false,
      }), group, title);
      bounds.extend([r.position.lat, r.position.lng]);
    }
  }

  /** The route's line along the roads, when the one known goes through its stops as they are. */
  roadOf(r) {
    const road = this.roads.get(r.route.id);
    if (!road?.roads || road.stop_ids.length !== r.stops.length) return null;
    return road.stop_ids.every((id, i) => r.stops[i].stop.id === id) ? road.points : null;
  }

  /** Takes lines along the roads (a Map route id -> line) and redraws the routes they fit. */
  setRoads(board, lines) {
    for (const [id, line] of lines) this.roads.set(id, line);
    for (const r of board?.routes ?? []) {
      const drawn = this.lines.get(r.route.id);
      const road = this.roadOf(r);
      if (drawn && road) {
        drawn.setLatLngs(road);
        drawn.getElement()?.classList.add("on-roads");
      }
    }
  }

  /** The unassigned orders' markers (a layer of their own, redrawn after each move). */
  showUnassigned(board, bounds) {
    if (this.unserved) this.layers.removeLayer(this.unserved);
    this.unserved = L.layerGroup().addTo(this.layers);
    for (const u of board.unassigned) {
      if (!located(u.order)) continue;
      const at = [u.order.lat, u.order.lng];
      bounds.extend(at);
      const title = `Unassigned: ${u.order.order_number}`;
      if (board.unassigned.length > MANY_STOPS) {
        L.circleMarker(at, { renderer: this.canvas, radius: 4, color: "#c0392b", weight: 2, fillColor: "#fff", fillOpacity: 1 })
          .bindTooltip(title).on("click", () => this.on.order(u.order)).addTo(this.unserved);
      } else {
        labelled(L.marker(at, { icon: badge("unserved-marker", "✕", null, 20), title }).on("click", () => this.on.order(u.order)), this.unserved, title);
      }
    }
  }

  /** A stop's marker: numbered (an element of its own), or a dot on the canvas on a large day. */
  stopMarker(r, s, many, on, group) {
    const here = [s.stop.lat, s.stop.lng];
    const title = `${r.route.name}: stop ${s.n}, ${s.numbers}, ${s.status}`;
    if (many) {
      const late = s.late || s.liveLate;
      return L.circleMarker(here, {
        renderer: this.canvas, radius: 5, color: late ? "#c0392b" : "#fff", weight: late ? 3 : 1.5,
        fillColor: r.colour, fillOpacity: s.status === "planned" ? 0.95 : 0.45,
      }).bindTooltip(title).on("click", () => on.stop(s)).addTo(group);
    }
    return labelled(L.marker(here, {
      icon: badge(`stop-marker status-${s.status.replace(" ", "-")}${s.late || s.liveLate ? " late" : ""}`, String(s.n), r.colour, 22),
      title,
    }).on("click", () => on.stop(s)), group, title);
  }

  /** Marks one route's line (null: none). */
  highlight(routeId) {
    for (const [id, line] of this.lines) {
      line.setStyle({ weight: id === routeId ? 8 : 4, opacity: routeId === null || id === routeId ? 0.9 : 0.35 });
      if (id === routeId) line.bringToFront();
    }
  }

  /** Marks one stop's marker (null: none) and brings it into view. */
  select(stopId) {
    for (const [id, marker] of this.markers) {
      if (marker instanceof L.CircleMarker) {
        if (id === stopId || marker.options.radius !== 5) marker.setRadius(id === stopId ? 10 : 5);
        continue;
      }
      const icon = marker.getElement();
      if (icon) icon.classList.toggle("selected", id === stopId);
    }
    const marker = this.markers.get(stopId);
    if (marker && !this.map.getBounds().contains(marker.getLatLng())) this.map.panTo(marker.getLatLng());
  }

  /** Leaflet measures its container once; call when the layout changed. */
  resize() {
    this.map.invalidateSize();
  }
}
