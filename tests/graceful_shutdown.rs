//! SIGTERM on the real binary while a request is in flight: the server stops accepting at once,
//! lets the request finish (its response is sent and its effect kept), then exits 0.
//! (Jobs across SIGTERM and kill -9: `tests/plans_binary.rs`.)

#![cfg(unix)]

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{send, serve_command, Fixture, Request, Serving};

#[test]
fn sigterm_drains_a_request_in_flight_and_refuses_new_connections() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("drain.db");
    let fixture = Fixture::seed(&db);
    let mut serving = Serving::start(
        serve_command(&db)
            .args(["--rate-limits", "off"])
            .stderr(Stdio::null()),
    );
    let addr = serving.addr.clone();

    // A request whose body is still arriving when the signal comes.
    let body = json!({"name": "In flight", "availability": "full_day",
                      "start_location": "depot", "end_location": "depot"})
    .to_string();
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /v2/vehicles HTTP/1.1\r\nHost: {addr}\r\nx-access-key: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nConnection: close\r\n\r\n",
        fixture.key,
        body.len()
    )
    .unwrap();
    stream.write_all(first).unwrap();
    stream.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    assert!(Command::new("kill")
        .args(["-TERM", &serving.child.id().to_string()])
        .status()
        .unwrap()
        .success());

    // Soon no new connection is served.
    let refused_by = Instant::now() + Duration::from_secs(10);
    loop {
        match TcpStream::connect(&addr) {
            Err(_) => break,
            Ok(_) => {
                assert!(Instant::now() < refused_by, "still accepting after SIGTERM");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    // The request in flight completes and is answered.
    stream.write_all(rest).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let reply = support::parse_reply(&raw);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["vehicle"]["name"], "In flight");

    let status = serving.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(signalled.elapsed() < Duration::from_secs(25));

    // Its effect was kept.
    let server = support::Server::start(&db);
    let vehicles = send(
        &server.addr,
        Request::new("GET", "/v2/vehicles", Some(&fixture.key)),
    );
    assert_eq!(vehicles.json()["vehicles"][0]["name"], "In flight");
}
