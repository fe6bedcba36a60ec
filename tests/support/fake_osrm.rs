//! A fake OSRM server on loopback for whole-service tests: `/table` (durations and distances)
//! and `/route` (the line through waypoints, `overview=full`, GeoJSON) in OSRM 5's shapes, on a
//! grid of roads — every trip runs east-west first, then north-south — at 40 km/h, so the
//! matrix and the lines agree. It counts the `/table` requests and keeps each `/route` one's
//! waypoints. Only std and serde_json.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{json, Value};

/// Metres per degree of latitude.
const METRES_PER_DEGREE: f64 = 111_320.0;
/// 40 km/h in metres per second.
const SPEED: f64 = 40_000.0 / 3600.0;

/// The running fake; it serves until the test process ends.
#[derive(Clone)]
pub struct FakeOsrm {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    tables: Arc<AtomicUsize>,
    routes: Arc<Mutex<Vec<String>>>,
}

impl FakeOsrm {
    /// Starts a fake on a free loopback port.
    pub fn start() -> FakeOsrm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let fake = FakeOsrm {
            url,
            tables: Arc::default(),
            routes: Arc::default(),
        };
        let serving = fake.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let serving = serving.clone();
                thread::spawn(move || serving.serve(stream));
            }
        });
        fake
    }

    /// How many `/table` requests came.
    pub fn tables(&self) -> usize {
        self.tables.load(Ordering::SeqCst)
    }

    /// The waypoints of each `/route` request, in the order they came.
    pub fn routes(&self) -> Vec<String> {
        self.routes.lock().unwrap().clone()
    }

    fn serve(&self, mut stream: TcpStream) {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).is_err() {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                break;
            }
        }
        let target = request_line.split_whitespace().nth(1).unwrap_or("/");
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let (status, body) = if let Some(coords) = path.strip_prefix("/table/v1/driving/") {
            self.tables.fetch_add(1, Ordering::SeqCst);
            (200, table(&points(coords), query))
        } else if let Some(coords) = path.strip_prefix("/route/v1/driving/") {
            self.routes.lock().unwrap().push(coords.to_owned());
            (200, route(&points(coords)).to_string())
        } else {
            (
                400,
                json!({"code": "InvalidUrl", "message": "URL string malformed"}).to_string(),
            )
        };
        let _ = write!(
            stream,
            "HTTP/1.1 {status} OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    }
}

fn points(coords: &str) -> Vec<(f64, f64)> {
    coords
        .split(';')
        .filter_map(|c| {
            let (x, y) = c.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

/// Metres along the grid from `a` to `b` (longitude, latitude).
fn metres(a: (f64, f64), b: (f64, f64)) -> f64 {
    let east = (a.0 - b.0).abs() * METRES_PER_DEGREE * a.1.to_radians().cos();
    let north = (a.1 - b.1).abs() * METRES_PER_DEGREE;
    east + north
}

fn indices(query: &str, name: &str, n: usize) -> Vec<usize> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .map(|v| v.split(';').filter_map(|i| i.parse().ok()).collect())
        .unwrap_or_else(|| (0..n).collect())
}

/// A `/table` answer, written out directly: the large day's is a million cells each way.
fn table(points: &[(f64, f64)], query: &str) -> String {
    let (sources, destinations) = (
        indices(query, "sources", points.len()),
        indices(query, "destinations", points.len()),
    );
    let mut out = String::with_capacity(sources.len() * destinations.len() * 12 + 64);
    out.push_str(r#"{"code":"Ok""#);
    for (name, per_metre) in [("durations", 1.0 / SPEED), ("distances", 1.0)] {
        let _ = write!(out, r#","{name}":["#);
        for (r, &i) in sources.iter().enumerate() {
            out.push_str(if r == 0 { "[" } else { ",[" });
            for (c, &j) in destinations.iter().enumerate() {
                let value = (metres(points[i], points[j]) * per_metre).round() as i64;
                let _ = write!(out, "{}{value}", if c == 0 { "" } else { "," });
            }
            out.push(']');
        }
        out.push(']');
    }
    out.push('}');
    out
}

fn route(points: &[(f64, f64)]) -> Value {
    let mut line = vec![[points[0].0, points[0].1]];
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        // East-west first: the corner is only drawn where the road turns.
        if a.0 != b.0 && a.1 != b.1 {
            line.push([b.0, a.1]);
        }
        line.push([b.0, b.1]);
    }
    let distance: f64 = points.windows(2).map(|p| metres(p[0], p[1])).sum();
    json!({"code": "Ok", "routes": [{
        "geometry": {"type": "LineString", "coordinates": line},
        "distance": distance, "duration": distance / SPEED, "weight": distance / SPEED,
        "weight_name": "duration", "legs": []
    }], "waypoints": []})
}
