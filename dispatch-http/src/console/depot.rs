//! `GET /console/depot`: where the caller's depot is, for the map, its time zone and what the
//! caller's key may do. The v2 depot object has no position (the spec fixes its fields), so the
//! console asks here, with the same access key in the same `x-access-key` header and the same
//! envelope for errors. The board's other reads ([`super::day`]) are registered here too, all
//! documented in the OpenAPI document beside the API (through `ApiRoutes`).

use axum::extract::State;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

use crate::auth::Permission;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::middleware::request_log::expose_principal;
use crate::v2::registry::{ApiRoutes, Parts};
use crate::{auth, AppState};

/// The route as registered (documented at its full path).
pub fn api() -> Parts {
    ApiRoutes::new()
        .routes(routes!(depot))
        .routes(routes!(super::day::orders))
        .routes(routes!(super::day::positions))
        .routes(routes!(super::roads::roads))
        .routes(routes!(super::breaks::breaks))
        .into_parts()
}

/// The route, behind the access-key layer.
pub fn routes(state: AppState) -> Router {
    api()
        .router
        .layer(axum::middleware::from_fn(expose_principal))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_access_key,
        ))
        .with_state(state)
}

/// `{ depot, permission }`.
#[derive(Serialize, ToSchema)]
pub struct ConsoleDepot {
    /// The caller's depot; null if it no longer exists.
    #[schema(required = true)]
    pub depot: Option<DepotPosition>,
    /// What the caller's key may do: `all`, or `read` (the board disables its actions).
    pub permission: &'static str,
    /// What the map's route lines follow: `osrm` (the roads, `serve --osrm-url`; see
    /// `GET /console/roads`) or `straight`.
    pub roads: &'static str,
}

/// The depot with its position.
#[derive(Serialize, ToSchema)]
pub struct DepotPosition {
    /// The depot.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its address; null when set up without one.
    #[schema(required = true)]
    pub address: Option<String>,
    /// Null when set up without coordinates.
    #[schema(required = true)]
    pub lat: Option<f64>,
    /// Null when set up without coordinates.
    #[schema(required = true)]
    pub lng: Option<f64>,
    /// The IANA time zone its times of day are in (`settings.timezone`).
    pub timezone: String,
}

/// `{ depot: {id, name, address, lat, lng, timezone}, permission }`; address and coordinates
/// are null when the depot was set up without them.
#[utoipa::path(get, path = "/console/depot", tag = "console", summary = "The caller's depot with its position (for the console's map).", responses((status = 200, description = "`{ depot }`", body = ConsoleDepot)))]
async fn depot(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<ConsoleDepot>, ApiError> {
    let permission = match p.permission {
        Permission::All => "all",
        Permission::Read => "read",
    };
    let roads = state.routing.roads.is_some();
    let depot = state
        .blocking(move |s| Ok(s.store.read(move |tx| tx.get_depot(p.scope()))?))
        .await?;
    Ok(Json(ConsoleDepot {
        permission,
        roads: if roads { "osrm" } else { "straight" },
        depot: depot.map(|d| DepotPosition {
            id: d.id,
            name: d.name,
            address: d.address,
            lat: d.lat,
            lng: d.lng,
            timezone: d.settings.timezone,
        }),
    }))
}
