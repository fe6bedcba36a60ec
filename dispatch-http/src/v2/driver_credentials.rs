//! Driver credentials of a vehicle, managed by the depot (ours; `docs/driver-api.md`):
//! `POST /vehicles/{id}/driver-credentials` (body optional: `{name}`; the answer carries the
//! credential in clear, the only time it is shown), `GET /vehicles/{id}/driver-credentials`
//! and `DELETE /vehicles/{id}/driver-credentials/{credential_id}` (revokes).
//! Creating and revoking need an `all` key (the auth layer refuses writes of `read` keys).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::DriverCredential;
use dispatch_core::service::driver::credentials;
use serde_json::Value;

use super::registry::ApiRoutes;
use super::wire::{object, ts_text, type_name};
use crate::auth::driver::new_credential;
use crate::driver_app::handover::{self, app_link};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, OptionalJsonBody};
use crate::rejection::invalid;
use crate::AppState;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}

/// A driver credential; its secret (`credential`) only in the answer that created it.
#[derive(Serialize, ToSchema)]
pub struct CredentialWire {
    id: i64,
    vehicle_id: i64,
    name: String,
    created: String,
    #[schema(required = true)]
    revoked: Option<String>,
    /// The secret, `drv_...`: shown once, on creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    credential: Option<String>,
    /// On creation: the driver's app with the secret in the link's fragment
    /// (`{public address}/driver-app/#credential=drv_...`), to hand to the driver.
    #[serde(skip_serializing_if = "Option::is_none")]
    app_link: Option<String>,
    /// On creation: `app_link` as a QR code, an SVG image to show for the phone to scan.
    #[serde(skip_serializing_if = "Option::is_none")]
    app_link_qr_svg: Option<String>,
}

/// `{ driver_credential }`.
#[derive(Serialize, ToSchema)]
pub struct OneCredential {
    driver_credential: CredentialWire,
}

/// `{ driver_credentials }`.
#[derive(Serialize, ToSchema)]
pub struct Credentials {
    driver_credentials: Vec<CredentialWire>,
}

fn render(c: &DriverCredential) -> CredentialWire {
    CredentialWire {
        id: c.id,
        vehicle_id: c.vehicle_id,
        name: c.name.clone(),
        created: ts_text(c.created),
        revoked: c.revoked.map(ts_text),
        credential: None,
        app_link: None,
        app_link_qr_svg: None,
    }
}

/// The optional body: nothing, or `{name?: string}`.
fn read_name(body: Option<Value>) -> Result<Option<String>, ApiError> {
    let Some(value) = body else {
        return Ok(None);
    };
    let obj = object(&value)?;
    let mut errors = ValidationErrors::default();
    super::request_shapes::refuse_undocumented::<super::request_shapes::CredentialBody>(
        obj,
        &[],
        &mut errors,
    );
    let name = match obj.get("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["name".into()],
                "string",
                type_name(other),
                "name must be a string",
            ));
            None
        }
    };
    if errors.is_empty() {
        Ok(name)
    } else {
        Err(invalid(&errors))
    }
}

#[utoipa::path(post, path = "/vehicles/{id}/driver-credentials", tag = "driver credentials", summary = "Create a driver credential for a vehicle (the secret, and the driver's app link carrying it, are shown once).", params(("id" = i64, Path, description = "The vehicle id.")), request_body(content = super::request_shapes::CredentialBody, description = "Optional `{ name }`."), responses((status = 201, description = "`{ driver_credential }` with `credential`, the secret.", body = OneCredential), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn create(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(vehicle_id): IdPath,
    OptionalJsonBody(body): OptionalJsonBody,
) -> Result<(StatusCode, Json<OneCredential>), ApiError> {
    let name = read_name(body)?;
    let (clear, hash) = new_credential()?;
    let created = state
        .blocking(move |s| {
            Ok(credentials::create(
                &*s.store,
                p.scope(),
                vehicle_id,
                name.as_deref(),
                hash,
                s.clock.now(),
            )?)
        })
        .await?;
    let mut driver_credential = render(&created);
    let link = app_link(&state.public_url, &clear);
    driver_credential.app_link_qr_svg = Some(handover::svg(&link));
    driver_credential.app_link = Some(link);
    driver_credential.credential = Some(clear);
    Ok((
        StatusCode::CREATED,
        Json(OneCredential { driver_credential }),
    ))
}

#[utoipa::path(get, path = "/vehicles/{id}/driver-credentials", tag = "driver credentials", summary = "A vehicle's driver credentials.", params(("id" = i64, Path, description = "The vehicle id.")), responses((status = 200, description = "`{ driver_credentials }`", body = Credentials), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(vehicle_id): IdPath,
) -> Result<Json<Credentials>, ApiError> {
    let all = state
        .blocking(move |s| Ok(credentials::list(&*s.store, p.scope(), vehicle_id)?))
        .await?;
    Ok(Json(Credentials {
        driver_credentials: all.iter().map(render).collect(),
    }))
}

fn integer(name: &str, raw: &str) -> Result<i64, ApiError> {
    raw.parse().map_err(|_| {
        invalid(&ValidationErrors(vec![ValidationIssue::new(
            IssueCode::InvalidType,
            vec![name.into()],
            "integer id",
            raw,
            format!("{name} must be an integer"),
        )]))
    })
}

#[utoipa::path(delete, path = "/vehicles/{id}/driver-credentials/{credential_id}", tag = "driver credentials", summary = "Revoke a driver credential.", params(("id" = i64, Path, description = "The vehicle id."), ("credential_id" = i64, Path, description = "The credential id.")), responses((status = 200, description = "`{ driver_credential }`", body = OneCredential), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn revoke(
    State(state): State<AppState>,
    Caller(p): Caller,
    Path((vehicle, credential)): Path<(String, String)>,
) -> Result<Json<OneCredential>, ApiError> {
    let vehicle_id = integer("id", &vehicle)?;
    let id = integer("credential_id", &credential)?;
    let revoked = state
        .blocking(move |s| {
            Ok(credentials::revoke(
                &*s.store,
                p.scope(),
                vehicle_id,
                id,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok(Json(OneCredential {
        driver_credential: render(&revoked),
    }))
}
