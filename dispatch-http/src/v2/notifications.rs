//! `POST /notifications/schedule/orders` and `GET /notification-tasks`.
//!
//! Choices where the spec is open (also in docs/api.md):
//! - An order or template id not in the depot fails the whole call with 404
//!   RESOURCE_NOT_FOUND and schedules nothing.
//! - A pair that cannot be sent is an `errors` entry with `statusCode` 400 and name
//!   INVALID_INPUT (no phone for SMS, no valid e-mail address for EMAIL); the call answers 200.
//! - `notifications` lists one entry per scheduled task: `order_id`, plus `template_id` and
//!   `notification_task_id`.
//! - A task also carries `type` (SMS/EMAIL), `sender` (which sender handled it: the embedded
//!   default says `recorded-only ...`) and `error` (why it failed or was cancelled).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::notification::{Channel, TaskStatus};
use dispatch_core::ports::store::TaskFilter;
use dispatch_core::service::notifications::{self, ScheduleRequest, Scheduled, MAX_TEMPLATES};
use dispatch_core::time::Timestamp;
use serde_json::Value;

use super::notification_wire::{render_scheduled, render_task, ScheduleResult, Tasks};
use super::registry::ApiRoutes;
use super::request_shapes::{refuse_undocumented, ScheduleBody};
use super::shapes::to_json;
use super::wire::{object, type_name};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(schedule))
        .routes(routes!(list))
}

#[utoipa::path(post, path = "/notifications/schedule/orders", tag = "notifications", summary = "Schedule notifications for orders.", request_body(content = super::request_shapes::ScheduleBody, description = "`{ orders: [id], templates: [id] (at most 2), send_time_utc }`."), responses((status = 200, description = "`{ notifications: [{order_id}], errors }`", body = ScheduleResult), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn schedule(
    State(state): State<AppState>,
    Caller(p): Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let request = read_request(&body)?;
    state
        .blocking(move |s| {
            let now = s.clock.now();
            let reply = claim.reply(StatusCode::OK, move |out: &Scheduled| {
                to_json(render_scheduled(out, now))
            });
            let links = crate::links::Links::of(s);
            notifications::schedule(&*s.store, &links, p.scope(), &request, now, &reply)?;
            Ok(reply.response())
        })
        .await
}

fn read_request(body: &Value) -> Result<ScheduleRequest, ValidationErrors> {
    let map = object(body)?;
    let mut errors = ValidationErrors::default();
    refuse_undocumented::<ScheduleBody>(map, &[], &mut errors);
    let ids = |key: &str, max: Option<usize>, errors: &mut ValidationErrors| -> Vec<i64> {
        let issue =
            |code, path: Vec<PathSegment>, expected: &str, received: &str, message: String| {
                ValidationIssue::new(code, path, expected, received, message)
            };
        match map.get(key) {
            None | Some(Value::Null) => {
                errors.push(issue(
                    IssueCode::Required,
                    vec![key.into()],
                    "array",
                    "undefined",
                    format!("{key} is required"),
                ));
                Vec::new()
            }
            Some(Value::Array(items)) => {
                if items.is_empty() {
                    errors.push(issue(
                        IssueCode::TooSmall,
                        vec![key.into()],
                        "at least 1 id",
                        "0",
                        format!("{key} must name at least one id"),
                    ));
                }
                if let Some(max) = max.filter(|m| items.len() > *m) {
                    errors.push(issue(
                        IssueCode::TooBig,
                        vec![key.into()],
                        &format!("at most {max} ids"),
                        &items.len().to_string(),
                        format!("{key} may name at most {max} ids"),
                    ));
                }
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| match v.as_i64() {
                        Some(id) => Some(id),
                        None => {
                            errors.push(issue(
                                IssueCode::InvalidType,
                                vec![key.into(), i.into()],
                                "integer",
                                type_name(v),
                                format!("{key} entries must be integer ids"),
                            ));
                            None
                        }
                    })
                    .collect()
            }
            Some(other) => {
                errors.push(issue(
                    IssueCode::InvalidType,
                    vec![key.into()],
                    "array",
                    type_name(other),
                    format!("{key} must be an array of ids"),
                ));
                Vec::new()
            }
        }
    };
    let orders = ids("orders", None, &mut errors);
    let templates = ids("templates", Some(MAX_TEMPLATES), &mut errors);
    let send_time = match map.get("send_time_utc") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => match Timestamp::parse(s) {
            Some(t) => Some(t),
            None => {
                errors.push(ValidationIssue::new(
                    IssueCode::InvalidString,
                    vec!["send_time_utc".into()],
                    "YYYY-MM-DDTHH:mm:ss.SSSZ",
                    s.as_str(),
                    "send_time_utc must be a UTC timestamp",
                ));
                None
            }
        },
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["send_time_utc".into()],
                "string",
                type_name(other),
                "send_time_utc must be a UTC timestamp string",
            ));
            None
        }
    };
    errors.into_result()?;
    Ok(ScheduleRequest {
        orders,
        templates,
        send_time,
    })
}

#[utoipa::path(get, path = "/notification-tasks", tag = "notifications", summary = "Notification tasks, most recently updated first (paged).", params(crate::paging::TaskQuery), responses((status = 200, description = "`{ notification_tasks }` and a `Link` header to the next page.", body = Tasks), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let channel = match page.filter("type") {
        None => None,
        Some(raw) => Some(Channel::parse(raw.trim()).ok_or_else(|| {
            ValidationErrors(vec![ValidationIssue::new(
                IssueCode::InvalidEnumValue,
                vec!["type".into()],
                "SMS | EMAIL",
                raw,
                "type must be SMS or EMAIL",
            )])
        })?),
    };
    // An exact match: a status no task can have matches nothing.
    let status = page.filter("status").map(str::to_owned);
    if status
        .as_deref()
        .is_some_and(|s| TaskStatus::parse(s).is_none())
    {
        let none = Tasks {
            notification_tasks: Vec::new(),
        };
        return Ok(page.respond(None, Json(none)));
    }
    let filter = TaskFilter {
        status: status.as_deref().and_then(TaskStatus::parse),
        channel,
    };
    let request = page.request;
    let rows = state
        .blocking(move |s| {
            Ok(s.store
                .read(|tx| tx.list_notification_tasks(p.scope(), &filter, &request))?)
        })
        .await?;
    let notification_tasks = rows.items.iter().map(render_task).collect();
    Ok(page
        .respond(rows.next, Json(Tasks { notification_tasks }))
        .into_response())
}
