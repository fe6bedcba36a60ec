//! A redirecting SMS gateway: any answer but 2xx fails the task (the sender's contract). A
//! followed 302 would re-send the message as a GET without its body to wherever the gateway
//! points (with the Authorization header on the same host) and mark the task Sent though no
//! SMS went out.

use super::*;

#[test]
fn a_redirecting_sms_gateway_is_not_followed_and_the_task_fails() {
    let gateway = Receiver::start(Behaviour::Redirect(302));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let flags = ["--rate-limits", "off", "--sms-gateway-url", &gateway.url()];
    let server = Server::start_with(&db, &flags);
    let [p, _, _] = orders(&server, &d.key);
    let failed = schedule_sms_until_failed(&server, &d, p);
    assert_eq!(failed[0]["error"], "SMS gateway answered HTTP 302");
    let lines: Vec<String> = gateway.hits().iter().map(|h| h.line.clone()).collect();
    assert_eq!(lines, ["POST /hook HTTP/1.1"], "only the configured URL");
}
