//! What the console's browser tests share: an optimised day over the real workers, the
//! harness page (`console_harness.html`) served beside the app, and Chromium running it with
//! every non-loopback address behind an [`OutsideWorld`].

use std::path::Path;

use axum::response::Html;
use axum::routing::get;
use serde_json::{json, Value};

use super::browser::{run_chromium, OutsideWorld};
use super::common::TestApp;
use super::{delivery, optimise_day, post_orders, start_workers, DAY};

const HARNESS: &str = include_str!("console_harness.html");

/// Two vans with a skill each, five orders for each skill and one order needing a skill no
/// van has: an optimised day of two routes and one unplaced order. Returns the finished plan.
pub async fn optimised_day(app: &TestApp) -> Value {
    for (name, skill) in [("Fridge van", "Fridge"), ("Lift van", "Lift")] {
        let r = app
            .post(
                "/v2/vehicles",
                &app.north(),
                json!({"name": name, "availability": "full_day", "start_location": "depot",
                       "end_location": "depot", "skills": [skill]}),
            )
            .await;
        r.ok();
    }
    let mut orders = Vec::new();
    for i in 0..10 {
        let f = f64::from(i);
        let mut order = delivery(&format!("C{i}"), 51.49 + 0.003 * f, -0.13 + 0.002 * f);
        order["skills"] = json!([if i % 2 == 0 { "Fridge" } else { "Lift" }]);
        orders.push(order);
    }
    let mut crane = delivery("CRANE", 51.507, -0.112);
    crane["skills"] = json!(["Crane"]);
    orders.push(crane);
    post_orders(app, orders).await;
    let workers = start_workers(app, 300);
    let (_, plan) = optimise_day(app).await;
    workers.shutdown();
    let plan = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    assert_eq!(plan["routes"].as_array().unwrap().len(), 2, "{plan:#}");
    assert_eq!(plan["unserved"].as_array().unwrap().len(), 1, "{plan:#}");
    plan
}

/// Serves the app and the harness on a loopback port; the harness page for `mode` is
/// `/harness`. Returns the base URL and the server task.
pub async fn serve(
    app: &TestApp,
    mode: &str,
    routes: &[i64],
) -> (String, tokio::task::JoinHandle<()>) {
    serve_with(app, mode, routes, |_| app.router.clone()).await
}

/// As [`serve`], with the router `build` makes for the base URL the server got.
pub async fn serve_with(
    app: &TestApp,
    mode: &str,
    routes: &[i64],
    build: impl FnOnce(&str) -> axum::Router,
) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let page = HARNESS
        .replace("__KEY__", &app.north())
        .replace("__DATE__", DAY)
        .replace("__MODE__", mode)
        .replace("__ROUTES__", &json!(routes).to_string());
    let router = axum::Router::new()
        .route("/harness", get(move || async move { Html(page) }))
        .merge(build(&base));
    let server = tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    (base, server)
}

/// Runs the harness page in Chromium (with `extra` flags) and returns its report; fails when
/// the page tried to load anything from beyond loopback (the console works offline).
pub async fn report(browser: &Path, base: &str, profile: &Path, extra: &[String]) -> Value {
    let outside = OutsideWorld::start();
    let (b, url, p, extra) = (
        browser.to_owned(),
        format!("{base}/harness"),
        profile.to_owned(),
        extra.to_vec(),
    );
    let proxy = outside.proxy_flag();
    let dom = tokio::task::spawn_blocking(move || {
        let mut args = vec![
            "--virtual-time-budget=60000".to_owned(),
            "--dump-dom".to_owned(),
            proxy,
        ];
        args.extend(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_chromium(&b, &p, (1280, 900), &url, &args)
    })
    .await
    .unwrap();
    let start = dom.find("<pre id=\"report\">").expect("the report element") + 17;
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(
        value.get("error").is_none(),
        "the harness failed: {value:#}"
    );
    assert_eq!(
        outside.requests(),
        Vec::<String>::new(),
        "the console reached beyond loopback"
    );
    value
}

pub fn stops_of(plan: &Value) -> Vec<usize> {
    plan["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stops"].as_array().unwrap().len())
        .collect()
}
