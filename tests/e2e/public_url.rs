//! `serve --public-url`: every absolute URL the service emits is built on the
//! configured public base URL (default: `http://` and the bound address), never on the
//! request's `Host` or `X-Forwarded-*` headers.

use crate::support;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use support::{binary, parse_reply, Fixture, Reply, Server};

fn start(flags: &[&str]) -> (tempfile::TempDir, Server, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("public-url.db");
    let fx = Fixture::seed(&db);
    let mut all = vec!["--rate-limits", "off"];
    all.extend_from_slice(flags);
    let server = Server::start_with(&db, &all);
    let batch = json!([
        {"order_number": "U-1", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12},
        {"order_number": "U-2", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}
    ]);
    assert_eq!(server.post("/v2/orders", &fx.key, &batch).status, 200);
    (dir, server, fx)
}

/// GET /v2/orders?limit=1 with the `Host` and proxy headers an attacker would plant.
fn list_with_planted_headers(server: &Server, key: &str) -> Reply {
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "GET /v2/orders?limit=1 HTTP/1.1\r\nHost: attacker.example\r\nx-access-key: {key}\r\n\
         X-Forwarded-Host: forwarded.example\r\nX-Forwarded-Proto: gopher\r\n\
         X-Forwarded-Port: 4444\r\nForwarded: host=rfc7239.example;proto=https\r\n\
         Connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse_reply(&raw)
}

fn assert_no_planted_value(link: &str) {
    for planted in ["attacker", "forwarded.example", "gopher", "4444", "rfc7239"] {
        assert!(!link.contains(planted), "{planted} leaked into {link}");
    }
}

#[test]
fn by_default_links_name_the_bound_address_whatever_host_the_request_names() {
    let (_dir, server, fx) = start(&[]);
    let reply = list_with_planted_headers(&server, &fx.key);
    assert_eq!(reply.status, 200);
    let next = reply.next_link().expect("a next link");
    assert!(
        next.starts_with(&format!("http://{}/v2/orders?page_info=", server.addr)),
        "{next}"
    );
    assert_no_planted_value(&next);
    let second = server.get(&next, &fx.key);
    assert_eq!(second.json()["orders"].as_array().unwrap().len(), 1);
}

#[test]
fn with_public_url_links_are_built_on_it_and_never_on_request_headers() {
    let (_dir, server, fx) = start(&["--public-url", "https://dispatch.example.com/base/"]);
    let reply = list_with_planted_headers(&server, &fx.key);
    assert_eq!(reply.status, 200);
    let next = reply.next_link().expect("a next link");
    assert!(
        next.starts_with("https://dispatch.example.com/base/v2/orders?page_info="),
        "{next}"
    );
    assert_no_planted_value(&next);
}

#[test]
fn an_unusable_public_url_stops_serve_at_start_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("never.db");
    for bad in [
        "dispatch.example.com",
        "ftp://dispatch.example.com",
        "https://user:secret@dispatch.example.com",
        "https://dispatch.example.com/?next=1",
    ] {
        let out = Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(&db)
            .args(["--public-url", bad])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad} accepted");
        assert!(stderr.contains("--public-url"), "{bad}: {stderr}");
        assert!(stderr.contains(bad), "{bad}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty(), "nothing served for {bad}");
    }
    assert!(
        !db.exists(),
        "the flags are checked before the database is made"
    );
}
