//! Conformance, black-box: requests that are not valid HTTP/1.1, sent as raw bytes to the real
//! binary. hyper refuses them before any route sees them; every answer must still be the
//! spec's envelope (`{name, statusCode, description, details}`), never an empty body, and the
//! server keeps serving.

use crate::support;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use support::{assert_envelope_shape, parse_reply, seeded_server, Reply};

/// Sends `bytes` as they are on a fresh connection and returns what came back (the server
/// closes after these answers). The bytes go out on their own thread: the server may answer
/// and close before it has read all of them.
fn raw(addr: &str, bytes: Vec<u8>) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sending = std::thread::spawn(move || {
        let _ = writer.write_all(&bytes);
    });
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    let _ = stream.shutdown(Shutdown::Both);
    let _ = sending.join();
    out
}

/// The answer to `bytes` sent as they are: 400 INVALID_INPUT in the spec's envelope.
fn invalid(addr: &str, what: &str, bytes: Vec<u8>) -> Reply {
    let answer = raw(addr, bytes);
    assert!(!answer.is_empty(), "{what}: no answer at all");
    let reply = parse_reply(&answer);
    assert_eq!(
        reply.status,
        400,
        "{what}: {}",
        String::from_utf8_lossy(&answer)
    );
    assert_envelope_shape(&reply);
    let body = reply.json();
    assert_eq!(body["name"], "INVALID_INPUT", "{what}: {body}");
    reply
}

/// [`invalid`], its first validation issue of `code`.
fn refused(addr: &str, what: &str, bytes: Vec<u8>, code: &str) -> Reply {
    let reply = invalid(addr, what, bytes);
    let body = reply.json();
    assert_eq!(
        body["details"]["validationErrors"][0]["code"], code,
        "{what}: {body}"
    );
    reply
}

fn get(target: &str, extra: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: x\r\n{extra}\r\n").into_bytes()
}

#[test]
fn a_request_head_hyper_cannot_parse_is_answered_with_the_envelope() {
    let (_dir, server, fx) = seeded_server();
    let key = format!("x-access-key: {}\r\n", fx.key);
    let post = |extra: &str, body: &str| {
        format!("POST /v2/order-statuses HTTP/1.1\r\nHost: x\r\n{key}content-type: application/json\r\n{extra}\r\n{body}")
            .into_bytes()
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "a Content-Length that is not a number",
            post("content-length: abc\r\n", "{}"),
        ),
        (
            "two different Content-Lengths",
            post("content-length: 2\r\ncontent-length: 3\r\n", "{}"),
        ),
        (
            "a negative Content-Length",
            post("content-length: -2\r\n", "{}"),
        ),
        (
            "a Transfer-Encoding that does not end in chunked",
            post("transfer-encoding: gzip\r\n", "{}"),
        ),
        (
            "an invalid method token",
            b"G(T /v2/depots HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        (
            "a header name with a space",
            get("/v2/depots", "Bad Name: x\r\n"),
        ),
        (
            "a header line without a colon",
            get("/v2/depots", "no-colon\r\n"),
        ),
        (
            "a header value with a NUL",
            get("/v2/depots", "x-a: a\0b\r\n"),
        ),
        (
            "an unknown HTTP version",
            b"GET /v2/depots HTTP/9.9\r\nHost: x\r\n\r\n".to_vec(),
        ),
        (
            "a request target with bytes that are not ASCII",
            b"GET /v2/orders/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        ),
        ("a request target with a space", get("/v2/de pots", "")),
    ];
    for (what, bytes) in cases {
        refused(&server.addr, what, bytes, "custom");
    }
    let long_target = format!("/v2/orders?status={}", "a".repeat(70_000));
    let reply = refused(
        &server.addr,
        "a request target over 64 KiB",
        get(&long_target, ""),
        "too_big",
    );
    assert!(
        reply.json()["description"]
            .as_str()
            .unwrap()
            .contains("request target"),
        "{}",
        reply.json()
    );
    let many: String = (0..150).map(|i| format!("x-h{i}: v\r\n")).collect();
    refused(
        &server.addr,
        "150 header fields",
        get("/v2/depots", &many),
        "too_big",
    );
    let huge = format!("x-big: {}\r\n", "v".repeat(500 * 1024));
    refused(
        &server.addr,
        "a 500 KiB header field",
        get("/v2/depots", &huge),
        "too_big",
    );
    // Still serving, and a request within the bounds is answered by the routes.
    let fine: String = (0..90).map(|i| format!("x-h{i}: v\r\n")).collect();
    let answer = raw(
        &server.addr,
        get("/v2/depots", &format!("{key}{fine}connection: close\r\n")),
    );
    assert_eq!(
        parse_reply(&answer).status,
        200,
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[test]
fn a_malformed_chunked_body_is_answered_with_the_envelope() {
    let (_dir, server, fx) = seeded_server();
    for (what, body) in [
        (
            "a chunk size that is not hexadecimal",
            "zz\r\n{}\r\n0\r\n\r\n",
        ),
        ("a chunk longer than its size", "1\r\n{}\r\n0\r\n\r\n"),
        (
            "a chunk size beyond u64",
            "fffffffffffffffffff\r\n{}\r\n0\r\n\r\n",
        ),
    ] {
        let request = format!(
            "POST /v2/order-statuses HTTP/1.1\r\nHost: x\r\nx-access-key: {}\r\n\
             content-type: application/json\r\ntransfer-encoding: chunked\r\n\
             connection: close\r\n\r\n{body}",
            fx.key
        );
        invalid(&server.addr, what, request.into_bytes());
    }
    let statuses = support::send(
        &server.addr,
        support::Request::new("GET", "/v2/order-statuses", Some(&fx.key)),
    );
    assert_eq!(statuses.status, 200);
    assert!(
        !statuses.text().contains("\"{}\""),
        "nothing was created: {}",
        statuses.text()
    );
}

#[test]
fn an_http_1_0_request_without_host_is_served() {
    let (_dir, server, fx) = seeded_server();
    let answer = raw(
        &server.addr,
        format!(
            "GET /v2/depots HTTP/1.0\r\nx-access-key: {}\r\n\r\n",
            fx.key
        )
        .into_bytes(),
    );
    let reply = parse_reply(&answer);
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&answer));
    assert!(reply.json()["depots"].is_array(), "{}", reply.text());
    let answer = raw(&server.addr, b"GET /v2/nowhere HTTP/1.0\r\n\r\n".to_vec());
    let reply = parse_reply(&answer);
    assert_eq!(reply.status, 404);
    assert_envelope_shape(&reply);
}
