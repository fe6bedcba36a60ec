//! The dispatcher's board (`/console`) in headless Chromium against the real `dispatch`
//! binary: `dispatch-http/tests/browser/js/board_day.mjs` (playwright-core driving Debian's
//! Chromium, elements found by their accessible names) plays a dispatcher's day — optimise from
//! the board, the timeline and the map linked, an unserved order dragged onto a route, an order
//! moved between routes and refused back (PREVIOUSLY_ON_ROUTE: it stays unassigned), a late
//! stop, dispatch of a route then of the plan, a driver's positions and outcomes appearing
//! without a reload, Reverse disabled on the completed route with the reason, a read-only key —
//! then measures the first render of 1 000 stops on 40 vehicles and a drag there. Screenshots
//! of each step go to `target/tmp/console-board/`. This test then checks the depot's side of
//! what the page did through the v2 reads, prints the measurements, and checks that the page
//! asked nothing of the world beyond loopback.
//!
//! In CI (`CI` set; `.ci/run` installs Chromium, Node.js and the script's packages) a missing
//! part fails the test; elsewhere it says loudly that it did not run.

#[allow(dead_code)]
#[path = "../dispatch-http/tests/browser/mod.rs"]
mod browser;
#[path = "../dispatch-http/tests/browser/node.rs"]
mod node;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn seed_file() -> Value {
    json!({"organisations": [{"name": "Acme", "depots": [{
        "name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "settings": {"timezone": "Europe/London"},
        "access_keys": [
            {"name": "dispatcher", "permission": "all"},
            {"name": "viewer", "permission": "read"}
        ]
    }]}]})
}

#[test]
fn a_dispatchers_day_on_the_board_from_optimising_to_a_completed_route() {
    let test = "a_dispatchers_day_on_the_board_from_optimising_to_a_completed_route";
    let Some(chromium) = browser::chromium_for(test) else {
        return;
    };
    if !node::node_ready(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("app.db");
    let seeded = support::seed(&db, &seed_file());
    let key = |i: usize| {
        seeded["organisations"][0]["depots"][0]["access_keys"][i]["key"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (all, read) = (key(0), key(1));
    // The large day needs the solver's time to place 1 000 orders (1 s + 10 ms per order).
    let server = support::Server::start_with(
        &db,
        &[
            "--solve-time",
            "12",
            "--solve-time-min",
            "1",
            "--rate-limits",
            "off",
        ],
    );
    let outside = browser::OutsideWorld::start();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("console-board");
    let _ = std::fs::remove_dir_all(&shots);

    let started = Instant::now();
    let out = Command::new("node")
        .arg("board_day.mjs")
        .current_dir(node::scripts())
        .env("BASE", format!("http://{}", server.addr))
        .env("KEY", &all)
        .env("READ_KEY", &read)
        .env("SHOTS", &shots)
        .env("CHROMIUM", &chromium)
        .env(
            "PROXY",
            outside.proxy_flag().trim_start_matches("--proxy-server="),
        )
        .output()
        .expect("node runs");
    let took = started.elapsed();
    let log = String::from_utf8_lossy(&out.stderr);
    eprintln!("{log}");
    assert!(out.status.success(), "the scenario failed:\n{log}");
    assert!(took < Duration::from_secs(170), "the day took {took:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let day: Value =
        serde_json::from_str(stdout.lines().last().expect("the day's result")).unwrap();
    for shot in day["screenshots"].as_array().unwrap() {
        let size = std::fs::metadata(shot.as_str().unwrap()).unwrap().len();
        assert!(size > 10_000, "{shot}: {size} bytes");
    }
    eprintln!("screenshots in {}", shots.display());
    assert_eq!(
        outside.requests(),
        Vec::<String>::new(),
        "the board reached beyond loopback"
    );

    // What the page did, as the depot reads it.
    let f = &day["figures"];
    println!(
        "| board, {} stops on {} routes | ms |",
        f["big_stops"], f["big_routes"]
    );
    println!("|---|---|");
    println!(
        "| first render (click to drawn, debug build) | {} |",
        f["first_render_ms"]
    );
    println!("| of which drawing | {} |", f["render_only_ms"]);
    println!(
        "| a drag between routes (calls and redraw) | {} |",
        f["big_drag_ms"]
    );
    println!("| a drag on the small day | {} |", f["small_drag_ms"]);
    println!(
        "| a driver's report on the board (s) | {} |",
        f["live_update_s"]
    );
    let route = |name: &str| {
        let id = day["routes"][name].as_i64().unwrap();
        server.get(&format!("/v2/routes/{id}"), &all).json()["route"].clone()
    };
    let orders_on = |route: &Value| -> Vec<i64> {
        route["stops"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["orders"].as_array().unwrap().clone())
            .map(|o| o["id"].as_i64().unwrap())
            .collect()
    };
    let (a, b) = (route("Van A"), route("Van B"));
    let order = |number: &str| day["orders"][number].as_i64().unwrap();
    let moved = order(day["moved"].as_str().unwrap());
    assert!(orders_on(&a).contains(&order("CRANE-1")), "{a:#}");
    assert!(!orders_on(&a).contains(&moved) && !orders_on(&b).contains(&moved));
    assert!(orders_on(&b).contains(&order("EARLY-1")), "{b:#}");
    assert!(a["completed_ts"].is_string() && a["dispatched"] == true);
    assert_eq!(b["dispatched"], true);
    let moved_order = server.get(&format!("/v2/orders/{moved}"), &all).json();
    assert_eq!(moved_order["order"]["status"], "OPEN", "{moved_order:#}");
    let stops = a["stops"].as_array().unwrap();
    assert_eq!(stops[1]["failed_reason"]["reason"], "Customer not in");
    assert!(stops[0]["actual_completed_ts"].is_string());
}
