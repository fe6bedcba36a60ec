//! The receiver URL's own credentials (`user:password@host`): deliveries authenticate with the
//! username and password configured for the webhook (Authentication 4), never with those. The
//! client sent both, the URL's first, as two Authorization headers.

use std::time::Duration;

use super::receiver::{Behaviour, Receiver};
use super::*;

#[test]
fn credentials_in_the_receiver_url_never_replace_the_configured_ones() {
    let hook = Receiver::start(Behaviour::Ok);
    let url = format!("http://urluser:urlpass@{}/hook", hook.addr);
    let (_dir, db, seeded) = seeded_for(&url);
    let _server = Server::start(&db);
    append(&db, scope(&seeded, 0), &[status_event(6, "OPEN")]);
    let hits = hook.wait_for(1, Duration::from_secs(10));
    assert_eq!(hits.len(), 1, "one delivery");
    assert_eq!(hits[0].headers["authorization"], BASIC_U_P);
    assert_eq!(hits[0].line, "POST /hook HTTP/1.1");
}
