//! A fake Nominatim-style geocoder on loopback, for tests: `GET /search?q=...` answered in
//! Nominatim's `jsonv2` shape from a table of known addresses (or, when told, a made-up but
//! stable position near a centre for any address), with switchable failures (an HTTP status,
//! a slow answer). It records every request (its query parameters, User-Agent and arrival
//! time). Only std and serde_json, so any test crate can include it with `#[path]`.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

/// How the fake answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Behaviour {
    /// Results from the table (an empty list for an unknown address).
    Answer,
    /// This HTTP status with a short text body (`Retry-After: 1` on a 429).
    Status(u16),
    /// The usual answer, after this long.
    Slow(Duration),
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The path without the query.
    pub path: String,
    /// The decoded query parameters.
    pub params: HashMap<String, String>,
    /// The User-Agent header.
    pub user_agent: Option<String>,
    /// When it arrived.
    pub at: Instant,
}

#[derive(Default)]
struct Shared {
    places: HashMap<String, (f64, f64)>,
    anywhere: Option<(f64, f64)>,
    behaviour: Option<Behaviour>,
    received: Vec<Received>,
}

/// The running fake; it serves until the test process ends.
#[derive(Clone)]
pub struct FakeGeocoder {
    url: String,
    shared: Arc<Mutex<Shared>>,
}

impl FakeGeocoder {
    /// Starts a fake on a free loopback port.
    pub fn start() -> FakeGeocoder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Mutex::new(Shared::default()));
        let serving = shared.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = serving.clone();
                thread::spawn(move || serve(stream, &shared));
            }
        });
        FakeGeocoder { url, shared }
    }

    /// The base URL to give `--geocoder-url`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Places `address` (the whole `q`, or its part before a comma) at `lat`, `lng`.
    pub fn add(&self, address: &str, lat: f64, lng: f64) {
        self.lock().places.insert(key(address), (lat, lng));
    }

    /// Answers every address not in the table too, with a position within about 10 km of
    /// (`lat`, `lng`) that depends only on the address.
    pub fn answer_every_address_near(&self, lat: f64, lng: f64) {
        self.lock().anywhere = Some((lat, lng));
    }

    /// How the next requests are answered.
    pub fn set(&self, behaviour: Behaviour) {
        self.lock().behaviour = Some(behaviour);
    }

    /// Every request so far, in arrival order.
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// How many requests arrived so far.
    pub fn count(&self) -> usize {
        self.lock().received.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn key(address: &str) -> String {
    address
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `%XX` and `+` decoded.
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn serve(stream: TcpStream, shared: &Mutex<Shared>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone the stream"));
    let mut head = String::new();
    if reader.read_line(&mut head).is_err() {
        return;
    }
    let mut user_agent = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("user-agent") {
                user_agent = Some(value.trim().to_owned());
            }
        }
    }
    let target = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let params: HashMap<String, String> = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect();
    let (behaviour, found) = {
        let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
        s.received.push(Received {
            path: path.to_owned(),
            params: params.clone(),
            user_agent,
            at: Instant::now(),
        });
        let q = key(params.get("q").map_or("", String::as_str));
        let before_comma = key(q.split(',').next().unwrap_or_default());
        let found = s
            .places
            .get(&q)
            .or_else(|| s.places.get(&before_comma))
            .copied()
            .or_else(|| s.anywhere.map(|centre| near(centre, &q)));
        (s.behaviour.unwrap_or(Behaviour::Answer), found)
    };
    let (status, body) = match behaviour {
        Behaviour::Status(code) => (code, json!({"error": "fake failure"}).to_string()),
        Behaviour::Slow(pause) => {
            thread::sleep(pause);
            (200, results(path, found))
        }
        Behaviour::Answer => (200, results(path, found)),
    };
    let retry = if status == 429 {
        "Retry-After: 1\r\n"
    } else {
        ""
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} Fake\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Nominatim's jsonv2 list: `lat` and `lon` as strings, as the real service sends them.
fn results(path: &str, found: Option<(f64, f64)>) -> String {
    if !path.ends_with("/search") {
        return json!({"error": "unknown path"}).to_string();
    }
    match found {
        Some((lat, lng)) => json!([{
            "place_id": 1,
            "lat": lat.to_string(),
            "lon": lng.to_string(),
            "category": "building",
            "type": "yes",
            "display_name": "a fake place",
        }])
        .to_string(),
        None => "[]".to_owned(),
    }
}

/// A stable position within about 10 km of `centre` for `q` (FNV-1a of the text).
fn near(centre: (f64, f64), q: &str) -> (f64, f64) {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in q.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    let unit = |bits: u64| (bits & 0xffff) as f64 / 65535.0 * 2.0 - 1.0;
    (centre.0 + unit(h) * 0.09, centre.1 + unit(h >> 16) * 0.14)
}
