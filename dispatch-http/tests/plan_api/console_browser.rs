//! The web console in a real browser: a day is optimised by the real workers over the real
//! router and SQLite file, then headless Chromium opens `/console` inside a harness page of the
//! same origin (`console_harness.html`) that types the access key, picks the date and clicks
//! like a person; the harness writes what the console shows into its own DOM, which
//! `--dump-dom` prints. The map's drawing is checked (a line per route, numbered stop markers,
//! the depot, unplaced orders), the buttons' calls are checked through the API, and a
//! screenshot is saved under `target/tmp`.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::routing::get;
use serde_json::json;

use dispatch_http::console::{ConsoleConfig, TileUrl};
use dispatch_http::{app_with, AppOptions};

use super::browser::chromium_for;
use super::common::TestApp;
use super::console_page::{optimised_day, report, serve, serve_with, stops_of};
use super::{first_order_ids, DAY};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_draws_an_optimised_day_on_the_map() {
    let Some(browser) = chromium_for("the_console_draws_an_optimised_day_on_the_map") else {
        return;
    };
    let app = TestApp::new();
    let plan = optimised_day(&app).await;
    let (base, server) = serve(&app, "day", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = report(&browser, &base, &dir.path().join("dom"), &[]).await;
    let day = &out["day"];
    assert_eq!(day["state"], "ready", "{out:#}");
    let per_route = stops_of(&plan);
    assert_eq!(day["lines"], 2, "one line per route: {day:#}");
    assert_eq!(
        day["tiles"], 0,
        "no tile URL: no base map, the routes on a plain background"
    );
    assert_eq!(day["colours"], 2, "one colour per route: {day:#}");
    assert_eq!(day["panel_routes"], 2, "{day:#}");
    // Each route's summary: its stops, planned distance, start and end times (in plan order).
    for (route, facts) in plan["routes"]
        .as_array()
        .unwrap()
        .iter()
        .zip(day["facts"].as_array().unwrap())
    {
        let summary = format!(
            "{} stops · {:.1} km · {}–{} · ",
            route["stops"].as_array().unwrap().len(),
            route["planned_distance"].as_f64().unwrap() / 1000.0,
            route["start_time"].as_str().unwrap(),
            route["end_time"].as_str().unwrap(),
        );
        let facts = facts.as_str().unwrap();
        assert!(facts.starts_with(&summary), "{facts:?} for {summary:?}");
    }
    assert_eq!(day["stops"], per_route.iter().sum::<usize>(), "{day:#}");
    let mut numbers: Vec<String> = day["numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    numbers.sort();
    let mut expected: Vec<String> = per_route
        .iter()
        .flat_map(|n| (1..=*n).map(|i| i.to_string()))
        .collect();
    expected.sort();
    assert_eq!(numbers, expected, "stops numbered in order per route");
    assert_eq!(day["unserved"], 1, "the unplaced order is marked: {day:#}");
    assert_eq!(day["depot"], 1, "{day:#}");
    assert!(
        day["message"]
            .as_str()
            .unwrap()
            .contains("2 routes, 10 stops, 1 unassigned"),
        "{day:#}"
    );
    assert_eq!(day["key_kept"], true);
    assert_eq!(day["key_in_page"], false, "the key is not left in the page");
    assert!(
        !day["href"].as_str().unwrap().contains(&app.north()),
        "{day:#}"
    );
    assert!(day["href"]
        .as_str()
        .unwrap()
        .ends_with(&format!("#date={DAY}")));
    let details = out["clicked"]["details"]
        .as_str()
        .expect("stop details shown");
    assert!(
        details.contains("stop 1") && details.contains("High St"),
        "{details}"
    );

    server.abort();

    // The screenshot: the first route's stop markers are drawn in its colour (#1f77b4).
    let (base, server) = serve(&app, "view", &[]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let shot = shots.join("console.png");
    let _ = std::fs::remove_file(&shot);
    report(
        &browser,
        &base,
        &dir.path().join("shot"),
        &[format!("--screenshot={}", shot.display())],
    )
    .await;
    server.abort();
    println!("console screenshot: {}", shot.display());
    let png = image::open(&shot).expect("a screenshot file").to_rgb8();
    assert_eq!((png.width(), png.height()), (1280, 900));
    let first_colour = png.pixels().filter(|p| p.0 == [0x1f, 0x77, 0xb4]).count();
    assert!(
        first_colour > 200,
        "{first_colour} pixels of the first route's colour"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_consoles_dispatch_and_reverse_buttons_call_the_api() {
    let Some(browser) = chromium_for("the_consoles_dispatch_and_reverse_buttons_call_the_api")
    else {
        return;
    };
    let app = TestApp::new();
    let plan = optimised_day(&app).await;
    let routes: Vec<i64> = plan["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    let before = first_order_ids(&plan["routes"][1]);
    let (base, server) = serve(&app, "actions", &routes).await;
    let dir = tempfile::tempdir().unwrap();
    let out = report(&browser, &base, dir.path(), &[]).await;
    server.abort();
    assert_eq!(out["before"]["dispatched_badges"], 0, "{out:#}");
    assert_eq!(out["dispatched"]["state"], "ready", "{out:#}");
    assert_eq!(out["dispatched"]["dispatched_badges"], 1, "{out:#}");
    assert!(out["dispatched"]["message"]
        .as_str()
        .unwrap()
        .ends_with("dispatched."));
    assert!(
        out["reversed"]["message"]
            .as_str()
            .unwrap()
            .contains("reversed"),
        "{out:#}"
    );
    assert_eq!(out["plan_dispatched"]["dispatched_badges"], 2, "{out:#}");

    let first = app
        .get(&format!("/v2/routes/{}", routes[0]), &app.north())
        .await;
    assert_eq!(first.ok()["route"]["dispatched"], true);
    let second = app
        .get(&format!("/v2/routes/{}", routes[1]), &app.north())
        .await;
    let mut reversed = first_order_ids(&second.ok()["route"]);
    reversed.reverse();
    assert_eq!(reversed, before, "the page's reverse reversed the route");
    assert_eq!(
        second.ok()["route"]["dispatched"],
        true,
        "dispatched by the plan button"
    );
    let plan = app
        .get(&format!("/v2/plans/{}", plan["id"]), &app.north())
        .await;
    assert_eq!(plan.ok()["plan"]["dispatched"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_a_refused_key_and_a_day_without_plans_and_forgets_the_key() {
    let Some(browser) =
        chromium_for("the_console_shows_a_refused_key_and_a_day_without_plans_and_forgets_the_key")
    else {
        return;
    };
    let app = TestApp::new();
    optimised_day(&app).await;
    let (base, server) = serve(&app, "errors", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = report(&browser, &base, dir.path(), &[]).await;
    server.abort();
    let bad = &out["bad_key"];
    assert_eq!(bad["state"], "error", "{out:#}");
    assert!(
        bad["message"]
            .as_str()
            .unwrap()
            .contains("UNAUTHORIZED (401)"),
        "{out:#}"
    );
    let empty = &out["empty"];
    assert_eq!(empty["state"], "ready", "{out:#}");
    assert!(
        empty["message"]
            .as_str()
            .unwrap()
            .starts_with("No plans on 2030-01-02"),
        "{out:#}"
    );
    assert_eq!(empty["lines"], 0);
    let forgotten = &out["forgotten"];
    assert_eq!(forgotten["key_kept"], false, "{out:#}");
    assert_eq!(forgotten["state"], "idle");
    assert_eq!(
        (
            &forgotten["lines"],
            &forgotten["stops"],
            &forgotten["panel_routes"]
        ),
        (&json!(0), &json!(0), &json!(0)),
        "the day shown with the key is cleared: {out:#}"
    );
}

/// One 256-pixel PNG tile of a single colour.
fn tile_png() -> Vec<u8> {
    let tile = image::RgbImage::from_pixel(256, 256, image::Rgb([0xc8, 0xe6, 0xc9]));
    let mut png = std::io::Cursor::new(Vec::new());
    tile.write_to(&mut png, image::ImageFormat::Png).unwrap();
    png.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_tile_url_the_console_draws_the_day_on_its_base_map() {
    let Some(browser) = chromium_for("with_a_tile_url_the_console_draws_the_day_on_its_base_map")
    else {
        return;
    };
    let app = TestApp::new();
    optimised_day(&app).await;
    let requested = Arc::new(AtomicUsize::new(0));
    let counter = requested.clone();
    let png = tile_png();
    let (base, server) = serve_with(&app, "view", &[], |base| {
        let options = AppOptions {
            console: ConsoleConfig {
                tile_url: Some(
                    TileUrl::parse(&format!("{base}/tiles/{{z}}/{{x}}/{{y}}.png")).unwrap(),
                ),
                tile_attribution: Some("Test tiles".into()),
            },
            ..AppOptions::default()
        };
        let tiles = get(move || async move {
            counter.fetch_add(1, Ordering::Relaxed);
            ([(axum::http::header::CONTENT_TYPE, "image/png")], png)
        });
        axum::Router::new()
            .route("/tiles/{*tile}", tiles)
            .merge(app_with(app.state.clone(), &options))
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let out = report(&browser, &base, dir.path(), &[]).await;
    server.abort();
    let view = &out["view"];
    assert_eq!(view["state"], "ready", "{out:#}");
    assert_eq!(view["lines"], 2, "{out:#}");
    assert!(view["tiles"].as_u64().unwrap() > 0, "tiles drawn: {out:#}");
    assert!(requested.load(Ordering::Relaxed) > 0);
    assert!(
        view["attribution"].as_str().unwrap().contains("Test tiles"),
        "{out:#}"
    );
}
