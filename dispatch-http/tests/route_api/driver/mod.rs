//! The driver API (`/driver/...`) over the real router: credentials, who may touch what, and
//! the driver's day. Routes are laid out through the store and dispatched through the API.

mod credentials;

use serde_json::json;

use super::*;

/// Creates a driver credential for `vehicle` with North's `all` key; the clear credential.
pub async fn credential(app: &TestApp, vehicle: i64) -> String {
    let r = app
        .post(
            &format!("/v2/vehicles/{vehicle}/driver-credentials"),
            &app.north(),
            json!({"name": "Sam"}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{:#}", r.body);
    r.body["driver_credential"]["credential"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Dispatches a laid-out route through the API.
pub async fn dispatch(app: &TestApp, route: i64) {
    app.post(
        &format!("/v2/routes/{route}/dispatch"),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
}

/// A vehicle with a credential and one dispatched route of `n` orders: (vehicle, credential,
/// route, orders).
pub async fn driven_route(app: &TestApp, prefix: &str, n: usize) -> (i64, String, i64, Vec<i64>) {
    let v = vehicle(app, &format!("Van {prefix}")).await;
    let o = orders(app, prefix, n).await;
    let laid = lay_out(app, &[(Some(v), o.clone())]);
    dispatch(app, laid.routes[0]).await;
    let key = credential(app, v).await;
    (v, key, laid.routes[0], o)
}
