//! SIGTERM on the real binary while a request is in flight: the server stops accepting at once,
//! lets the request finish (its response is sent and its effect kept), then exits 0.
//! (Jobs across SIGTERM and kill -9: `tests/e2e/plans_binary.rs`.)

#![cfg(unix)]

use crate::support;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use support::{send, serve_command, Fixture, Request, Serving};

#[test]
fn sigterm_drains_a_request_in_flight_and_refuses_new_connections() {
    let Started {
        dir: _dir,
        db,
        fixture,
        mut serving,
        mut stream,
    } = Started::new("drain.db");
    let addr = serving.addr.clone();

    // A request whose body is still arriving when the signal comes.
    let body = vehicle_body("In flight");
    let (first, rest) = body.as_bytes().split_at(body.len() / 2);
    write!(
        stream,
        "POST /v2/vehicles HTTP/1.1\r\nHost: {addr}\r\nx-access-key: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nexpect: 100-continue\r\nConnection: close\r\n\r\n",
        fixture.key,
        body.len()
    )
    .unwrap();
    // The interim 100 Continue comes when the handler starts reading the body: from then on
    // the request is surely in flight, whatever the machine's load.
    let interim = read_head(&mut stream);
    assert!(
        interim.starts_with(b"HTTP/1.1 100"),
        "{}",
        String::from_utf8_lossy(&interim)
    );
    stream.write_all(first).unwrap();
    stream.flush().unwrap();
    let signalled = Instant::now();
    sigterm(&serving);

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

#[test]
fn sigterm_still_answers_a_request_sent_on_an_open_connection_just_after_it() {
    let Started {
        dir: _dir,
        fixture,
        mut serving,
        mut stream,
        ..
    } = Started::new("settle.db");
    let addr = serving.addr.clone();
    sigterm(&serving);
    // The client's next request leaves it as the signal is handled: already on its way (or in
    // the server's socket buffer, unread), it must be answered, not reset.
    std::thread::sleep(Duration::from_millis(50));
    let body = vehicle_body("Just after");
    write!(
        stream,
        "POST /v2/vehicles HTTP/1.1\r\nHost: {addr}\r\nx-access-key: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        fixture.key,
        body.len()
    )
    .unwrap();
    let reply = read_one_reply(&mut stream);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["vehicle"]["name"], "Just after");
    let status = serving.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// A seeded database and the real server on it, with one connection the server has surely
/// taken: a request on it was answered (one still in the listen backlog at the signal is not
/// in flight, and is dropped with the listener).
struct Started {
    /// Holds the database: bind it for the whole test (the directory goes when it drops).
    dir: tempfile::TempDir,
    db: std::path::PathBuf,
    fixture: Fixture,
    serving: Serving,
    stream: TcpStream,
}

impl Started {
    fn new(db_name: &str) -> Started {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(db_name);
        let fixture = Fixture::seed(&db);
        let serving = Serving::start(
            serve_command(&db)
                .args(["--rate-limits", "off"])
                .stderr(Stdio::null()),
        );
        let addr = &serving.addr;
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(stream, "GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        assert_eq!(read_one_reply(&mut stream).status, 200);
        Started {
            dir,
            db,
            fixture,
            serving,
            stream,
        }
    }
}

/// A POST /vehicles body.
fn vehicle_body(name: &str) -> String {
    json!({"name": name, "availability": "full_day",
           "start_location": "depot", "end_location": "depot"})
    .to_string()
}

fn sigterm(serving: &Serving) {
    assert!(Command::new("kill")
        .args(["-TERM", &serving.child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

/// Reads exactly one response (headers and a `content-length` body) from a kept-alive stream.
fn read_one_reply(stream: &mut TcpStream) -> support::Reply {
    let mut raw = read_head(stream);
    let head = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    raw.extend(body);
    support::parse_reply(&raw)
}

/// Reads a response head (status line and headers, through the blank line) byte by byte, so
/// nothing after it is taken from the stream.
fn read_head(stream: &mut TcpStream) -> Vec<u8> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    head
}
