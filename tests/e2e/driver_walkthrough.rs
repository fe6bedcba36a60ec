//! docs/driver-api.md's "A walk-through with curl" run as written, against the binary on a fresh
//! database: a depot day of today is set up with curl (a van, three deliveries with a line
//! item each, optimised and dispatched), then the document's block runs under bash in an empty
//! directory with its placeholders filled (`KEY`, `ROUTE`), port 8080 replaced by a free one
//! and the Server-Sent Events it listens to written to a file instead of the terminal. The
//! service runs with `--rate-limits off`, as the document says to run the block in one go. The
//! depot's read at the end must show what the driver did, and the revoked credential must be
//! refused.
//!
//! Needs bash, curl and jq (.ci/run installs them); without them the test says NOT RUN, and
//! with `CI` set it fails instead.

use std::path::Path;

use serde_json::json;

use crate::support::{self, binary};
use crate::walkthroughs::{free_port, run, tools};

/// The document's block.
fn walkthrough() -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/driver-api.md"))
            .expect("docs/driver-api.md");
    let start = doc
        .find("## A walk-through with curl")
        .expect("the walk-through");
    let rest = &doc[start..];
    let open = rest.find("```sh\n").expect("its shell block") + "```sh\n".len();
    let close = open + rest[open..].find("\n```").expect("the block's end");
    rest[open..close].to_owned()
}

/// A depot with today's dispatched route of three stops; defines KEY and ROUTE. The depot
/// (seeded in `demo/walk.db` with `key`) is where it is about noon, so the day has hours left.
fn setup(binary: &Path, port: u16, key: &str, today: &str) -> String {
    let bin = binary.display();
    let line_item =
        r#""line_items": [{"product_code": "BOX", "product_name": "Box", "product_quantity": 2}]"#;
    let order = |n: u32, lat: f64, lng: f64| {
        format!(
            r#"{{"order_number": "W-{n}", "type": "delivery", "delivery_date": "'$TODAY'", "delivery_lat": {lat}, "delivery_lng": {lng}, {line_item}}}"#
        )
    };
    let orders = [
        order(1, 51.52, -0.10),
        order(2, 51.48, -0.15),
        order(3, 51.51, -0.20),
    ]
    .join(",");
    format!(
        r#"mkdir -p demo
{bin} serve --db demo/walk.db --listen 127.0.0.1:{port} --rate-limits off > demo/serve.out 2> demo/serve.log &
until grep -q listening demo/serve.out; do sleep 1; done
KEY={key}
V2=http://127.0.0.1:{port}/v2
TODAY={today}
json() {{ curl -sf "$@" -H "x-access-key: $KEY" -H 'content-type: application/json'; }}
json -X POST $V2/vehicles -d '{{"name": "Van 1", "availability": "always", "start_location": "depot", "end_location": "depot"}}' > /dev/null
json -X POST $V2/orders -d '[{orders}]' > /dev/null
json -X POST $V2/plans/optimise/orders -d '{{"delivery_date": "'$TODAY'", "settings": {{}}}}' > demo/job.json
JOB=$(jq -r .optimisation.id demo/job.json)
PLAN=$(jq -r .plan.id demo/job.json)
until json $V2/plans/optimise/$JOB | jq -e '.optimisation.in_progress == false' > /dev/null; do sleep 1; done
json -X POST $V2/plans/$PLAN/dispatch > /dev/null
ROUTE=$(json $V2/plans/$PLAN | jq -r '.plan.routes[0].id')
echo "setup: route $ROUTE of $(json $V2/routes/$ROUTE | jq '.route.stops | length') stops" >&2
"#
    )
}

/// The document's block with its placeholders filled and its events kept in a file.
fn adapted(block: &str, port: u16) -> String {
    let events = r#"curl -sN $API/driver/events -H "x-access-key: $DRV" &"#;
    assert!(
        block.contains(events),
        "the block listens to events: {block}"
    );
    block
        .lines()
        .filter(|l| !l.starts_with("KEY=...") && !l.starts_with("ROUTE=..."))
        .map(|l| {
            l.replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"))
                .replace(events, &events.replace(" &", " > events.txt &"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_driver_walkthrough_works_a_route_from_start_to_a_revoked_credential() {
    if !tools(&["bash", "curl", "jq"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let bin = binary();
    std::fs::create_dir(dir.path().join("demo")).unwrap();
    let zone = support::midday_zone();
    let seeded = support::seed(
        &dir.path().join("demo/walk.db"),
        &json!({"organisations": [{"name": "Walk", "depots": [{
            "name": "North", "lat": 51.50, "lng": -0.12,
            "settings": {"timezone": zone.name},
            "access_keys": [{"name": "walk", "permission": "all"}]
        }]}]}),
    );
    let key = seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .expect("the seeded key");
    let script = format!(
        "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n{}{}\n\
         echo; echo '--- after ---'\n\
         curl -s -o /dev/null -w '%{{http_code}}' $API/driver/me -H \"x-access-key: $DRV\"\n",
        setup(&bin, port, key, &zone.today),
        adapted(&walkthrough(), port)
    );
    let ran = run(&script, dir.path());
    let (stdout, log) = (&ran.stdout, || ran.log());
    assert!(ran.success, "the walk-through failed: {}", log());
    let (printed, after) = stdout
        .split_once("--- after ---")
        .unwrap_or_else(|| panic!("the block ran to its end: {}", log()));

    let answers = ran.accepted_answers(printed);
    let me = answers
        .iter()
        .find(|a| a.get("vehicle").is_some() || a.get("driver").is_some());
    assert!(me.is_some(), "GET /driver/me answered: {}", log());
    // The depot's read, as the block's last jq shapes it.
    let read = answers
        .iter()
        .find(|a| a.get("started_ts").is_some() && a.get("stops").is_some())
        .unwrap_or_else(|| panic!("the depot's read: {}", log()));
    assert!(read["started_ts"].is_string(), "{read:#}\n{}", log());
    assert!(read["completed_ts"].is_string(), "{read:#}");
    let stops = read["stops"].as_array().expect("stops");
    assert_eq!(stops.len(), 3, "{read:#}");
    assert!(stops[0]["actual_completed_ts"].is_string(), "{read:#}");
    assert!(stops[1]["actual_completed_ts"].is_string(), "{read:#}");
    assert_eq!(
        stops[2]["failed_reason"]["reason"], "nobody home",
        "{read:#}"
    );
    assert_eq!(stops[2]["driver_notes"], "left a card", "{read:#}");

    let events = std::fs::read_to_string(dir.path().join("events.txt")).unwrap_or_default();
    assert!(
        events
            .lines()
            .any(|l| l.starts_with("event:") || l.starts_with("data:")),
        "the driver's event stream said something: {events:?}"
    );
    assert_eq!(after.trim(), "401", "the revoked credential: {}", log());
}
