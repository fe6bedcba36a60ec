//! Redirects: a webhook answer of 3xx is an HTTP error like any other non-2xx answer
//! (docs/api.md, Events): following it would turn the POST into a GET without the event
//! (302, 303) and carry the Basic credentials to wherever the receiver points, yet mark the
//! delivery DELIVERED.

use std::time::Duration;

use super::receiver::{Behaviour, Receiver};
use super::*;

#[test]
fn a_redirecting_receiver_is_not_followed_and_the_delivery_ends_in_error() {
    let hook = Receiver::start(Behaviour::Redirect(302));
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    append(&db, scope(&seeded, 0), &[status_event(5, "OPEN")]);
    let depot = scope(&seeded, 0).depot_id.to_string();
    let failed = poll_cli(
        &db,
        &["failed", "--depot", &depot],
        Duration::from_secs(15),
        has_failed,
    );
    assert_eq!(failed["failed"][0]["error"], "receiver answered HTTP 302");
    let lines: Vec<String> = hook.hits().iter().map(|h| h.line.clone()).collect();
    assert_eq!(
        lines,
        vec!["POST /hook HTTP/1.1"; 3],
        "only the configured URL, 3 attempts"
    );
}
