//! Connection bounds of `dispatch serve`: a client that stalls in its headers or its
//! body is cut off after the configured timeout, while other clients are served; beyond
//! `--max-connections` new connections wait until one closes.

use crate::support;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;
use support::{Fixture, Server};

fn start(flags: &[&str]) -> (tempfile::TempDir, Server, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("conn.db");
    let fx = Fixture::seed(&db);
    let mut all = vec!["--rate-limits", "off"];
    all.extend_from_slice(flags);
    let server = Server::start_with(&db, &all);
    (dir, server, fx)
}

/// Writes `bytes` on a new connection and returns it.
fn stalled(server: &Server, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream.write_all(bytes).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

/// Seconds until the server closes `stream` (reading whatever it sends first).
fn seconds_until_closed(mut stream: TcpStream, started: Instant) -> f64 {
    let mut sink = Vec::new();
    let _ = stream.read_to_end(&mut sink);
    started.elapsed().as_secs_f64()
}

#[test]
fn a_client_stalled_in_its_headers_is_cut_off_while_others_are_served() {
    let (_dir, server, fx) = start(&["--header-read-timeout", "1"]);
    let started = Instant::now();
    let idle = stalled(&server, b"");
    let partial = stalled(&server, b"GET /v2/vehicles HTTP/1.1\r\nHost: x\r\n");
    // Meanwhile a normal client is served.
    assert_eq!(server.get("/v2/vehicles", &fx.key).status, 200);
    for stream in [idle, partial] {
        let waited = seconds_until_closed(stream, started);
        assert!(
            (0.9..5.0).contains(&waited),
            "closed after {waited:.1} s, not about 1 s"
        );
    }
}

#[test]
fn a_client_stalled_in_its_body_is_cut_off_while_others_are_served() {
    let (_dir, server, fx) = start(&["--body-read-timeout", "1"]);
    let started = Instant::now();
    let head = format!(
        "POST /v2/vehicles HTTP/1.1\r\nHost: x\r\nx-access-key: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"name\"",
        fx.key
    );
    let stream = stalled(&server, head.as_bytes());
    let van = json!({"name": "Van", "availability": "always", "start_location": "depot", "end_location": "depot"});
    assert_eq!(server.post("/v2/vehicles", &fx.key, &van).status, 200);
    let waited = seconds_until_closed(stream, started);
    assert!(
        (0.9..5.0).contains(&waited),
        "closed after {waited:.1} s, not about 1 s"
    );
    let listed = server.get("/v2/vehicles", &fx.key).json();
    assert_eq!(listed["vehicles"].as_array().unwrap().len(), 1);
}

#[test]
fn beyond_max_connections_a_new_client_waits_for_a_free_slot() {
    let (_dir, server, fx) = start(&["--max-connections", "2", "--header-read-timeout", "2"]);
    let started = Instant::now();
    let _held = [stalled(&server, b""), stalled(&server, b"")];
    assert_eq!(server.get("/v2/vehicles", &fx.key).status, 200);
    let waited = started.elapsed().as_secs_f64();
    assert!(
        waited >= 1.5,
        "served after {waited:.1} s, before a held connection timed out"
    );
}

#[test]
fn a_client_that_stops_reading_its_response_is_cut_off_and_its_connection_freed() {
    let (_dir, server, fx) = start(&["--write-timeout", "1", "--max-connections", "1"]);
    // 100 orders with 200 KB of notes each: a listing of about 20 MB, far more than the
    // socket buffers between the server and a client that reads nothing can take.
    let notes = "n".repeat(200_000);
    let batch: Vec<_> = (0..100)
        .map(|i| json!({"order_number": format!("W{i}"), "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1, "delivery_notes": notes}))
        .collect();
    assert_eq!(
        server.post("/v2/orders", &fx.key, &json!(batch)).status,
        200
    );
    let started = Instant::now();
    let head = format!(
        "GET /v2/orders?limit=100 HTTP/1.1\r\nHost: x\r\nx-access-key: {}\r\n\r\n",
        fx.key
    );
    let mut reader = stalled(&server, head.as_bytes());
    // The only connection slot is the stalled reader's until it is cut off; then a normal
    // client is served.
    assert_eq!(server.get("/v2/vehicles", &fx.key).status, 200);
    let waited = started.elapsed().as_secs_f64();
    assert!(
        (0.9..15.0).contains(&waited),
        "served after {waited:.1} s, not about 1 s"
    );
    // What the stalled client gets when it reads at last: part of the listing, then the end.
    let mut received = Vec::new();
    let _ = reader.read_to_end(&mut received);
    assert!(
        received.len() < 20_000_000,
        "the whole listing ({} bytes) was kept for the client",
        received.len()
    );
}
