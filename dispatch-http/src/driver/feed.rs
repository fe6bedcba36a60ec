//! Pushing route changes to the driver (spec: dispatch "pushes the route to the driver").
//!
//! `GET /driver/events` is a Server-Sent Events stream: one event per change of a route
//! dispatched to the vehicle (`event: dispatched | edited | deleted`, `id:` the feed cursor,
//! `data:` `{id, kind, route_id, created, route}` with the route as `GET /driver/routes/{id}`
//! shows it now, `null` once it is gone). A reconnecting client sends `Last-Event-ID` (browsers
//! do this themselves) and receives every change committed after that id, so nothing is missed
//! while it was away; a new client (no `Last-Event-ID`, no `after` query) starts at the present
//! and first gets `event: ready` carrying the current cursor. Comments keep idle connections
//! alive every 15 s.
//!
//! `GET /driver/feed?after=N&wait=S` is the long-polling form of the same feed: the changes
//! after cursor `N` (the present when absent), waiting up to `S` seconds (0 to 30, default 25)
//! for the first one; the answer carries `cursor` for the next call.
//!
//! The feed is a table written in each change's own transaction (`driver_feed`), so a change
//! is pushed exactly when it committed. Every route change also appends an outbox event, so
//! `serve` wakes the open streams after each of its commits that appended events
//! ([`wake_subscribers`]); an idle stream also looks on its own, every [`POLL_INTERVAL`] at
//! first and backing off to [`MAX_POLL_INTERVAL`] (commits of other processes, and a missed
//! wake-up, are seen within that).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::{pin, Pin};
use std::sync::LazyLock;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::driver_visit::{FeedEntry, FeedKind};
use dispatch_core::service::driver::feed;
use futures_util::stream::{self, Stream};
use tokio::sync::futures::Notified;
use tokio::sync::Notify;
use utoipa_axum::routes;

use super::routes::route_wire;
use super::shapes::{FeedMessage, FeedPage, FeedReady};
use crate::auth::driver::DriverAuth;
use crate::error::ApiError;
use crate::rejection::invalid;
use crate::v2::registry::ApiRoutes;
use crate::v2::wire::ts_text;
use crate::AppState;

/// How soon an idle stream looks for new changes on its own, at first.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);
/// How long an idle stream waits at most between looks of its own (the interval doubles from
/// [`POLL_INTERVAL`] while nothing changes).
pub const MAX_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Told after commits of this process that may have changed a feed.
static CHANGES: LazyLock<Notify> = LazyLock::new(Notify::new);

/// Wakes every open feed stream to look for new messages: `serve` calls it after each commit
/// that appended outbox events (every route change does).
pub fn wake_subscribers() {
    CHANGES.notify_waiters();
}

/// Waits for a wake-up or the stream's own next look (at most `limit`), and sets the interval
/// after that: back to [`POLL_INTERVAL`] after a wake-up, doubled after a quiet wait.
async fn idle(changed: Pin<&mut Notified<'_>>, interval: &mut Duration, limit: Duration) {
    tokio::select! {
        () = changed => *interval = POLL_INTERVAL,
        () = tokio::time::sleep((*interval).min(limit)) => {
            *interval = (*interval * 2).min(MAX_POLL_INTERVAL);
        }
    }
}
/// The stream's events by name, with the schema of their `data` (the document lists them on
/// `GET /driver/events` as `x-sse-events`).
pub const EVENT_SCHEMAS: &[(&str, &str)] = &[
    ("ready", "FeedReady"),
    ("dispatched", "FeedMessage"),
    ("edited", "FeedMessage"),
    ("deleted", "FeedMessage"),
];

/// The longest long-poll wait, seconds.
pub const MAX_WAIT_S: u64 = 30;
const DEFAULT_WAIT_S: u64 = 25;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(events))
        .routes(routes!(long_poll))
}

/// The feed endpoints' parameters (any other is refused).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct FeedQuery {
    /// The cursor to continue after (a `cursor` or event `id` received before); default the
    /// present.
    #[param(minimum = 0)]
    after: Option<i64>,
    /// Long poll only: seconds to wait for the first change, 0 to 30 (default 25).
    #[param(minimum = 0, maximum = 30)]
    wait: Option<u64>,
}

fn bad(path: &str, expected: &str, got: &str) -> ApiError {
    invalid(&ValidationErrors(vec![ValidationIssue::new(
        IssueCode::InvalidType,
        vec![path.into()],
        expected,
        got,
        format!("{path} must be {expected}"),
    )]))
}

fn cursor(raw: &str, path: &str) -> Result<i64, ApiError> {
    raw.trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .ok_or_else(|| bad(path, "a non-negative integer", raw))
}

/// The params of the feed endpoints: `after` and `wait`; nothing else.
fn params(query: &[(String, String)]) -> Result<(Option<i64>, u64), ApiError> {
    let mut after = None;
    let mut wait = DEFAULT_WAIT_S;
    for (key, value) in query {
        match key.as_str() {
            "after" => after = Some(cursor(value, "after")?),
            "wait" => {
                wait = value
                    .parse::<u64>()
                    .ok()
                    .filter(|w| *w <= MAX_WAIT_S)
                    .ok_or_else(|| bad("wait", "an integer from 0 to 30", value))?
            }
            other => {
                return Err(invalid(&ValidationErrors(vec![ValidationIssue::new(
                    IssueCode::UnrecognizedKeys,
                    vec![other.into()],
                    "after, wait",
                    other,
                    format!("unknown query parameter {other}"),
                )])))
            }
        }
    }
    Ok((after, wait))
}

async fn next_batch(
    state: &AppState,
    driver: Driver,
    after: i64,
) -> Result<Vec<FeedEntry>, ApiError> {
    state
        .blocking(move |s| Ok(feed::after(&*s.store, &driver, after)?))
        .await
}

async fn start_cursor(
    state: &AppState,
    driver: Driver,
    after: Option<i64>,
) -> Result<i64, ApiError> {
    let latest = state
        .blocking(move |s| Ok(feed::latest(&*s.store, &driver)?))
        .await?;
    // A cursor ahead of the feed (from a restored or reset database, or mistyped) would skip
    // every change until the ids caught up with it: it is read as the present instead.
    Ok(after.map_or(latest, |a| a.min(latest)))
}

/// One feed message as the driver sees it, with the route as it is now (`null` once the route
/// is no longer the driver's). A failed read is an error, not `null`: `null` tells the driver
/// the route is gone.
async fn message(
    state: &AppState,
    driver: Driver,
    entry: FeedEntry,
) -> Result<FeedMessage, ApiError> {
    let route = match entry.kind {
        FeedKind::Deleted => None,
        _ => match route_wire(state, driver, entry.route_id).await {
            Ok(route) => Some(route),
            Err(e) if e.status == StatusCode::NOT_FOUND => None,
            Err(e) => return Err(e),
        },
    };
    Ok(FeedMessage {
        id: entry.id,
        kind: entry.kind.as_str(),
        route_id: entry.route_id,
        created: ts_text(entry.created),
        route,
    })
}

#[utoipa::path(get, path = "/driver/feed", tag = "driver", summary = "Long poll: the changes of the vehicle's dispatched routes after a cursor, waiting up to `wait` seconds for the first.", params(FeedQuery), responses((status = 200, description = "`{ messages, cursor }`", body = FeedPage), (status = 400, description = "INVALID_INPUT: an unknown parameter, or `after`, `wait` or `Last-Event-ID` out of range.", body = crate::error::Envelope)))]
async fn long_poll(
    State(state): State<AppState>,
    auth: DriverAuth,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<FeedPage>, ApiError> {
    let (after, wait) = params(&query)?;
    let driver = auth.driver();
    let mut cursor = start_cursor(&state, driver, after).await?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(wait);
    let mut interval = POLL_INTERVAL;
    let entries = loop {
        // Listening before looking: a commit between the look and the wait still wakes it.
        let mut changed = pin!(CHANGES.notified());
        changed.as_mut().enable();
        let entries = next_batch(&state, driver, cursor).await?;
        let now = tokio::time::Instant::now();
        if !entries.is_empty() || now >= deadline {
            break entries;
        }
        idle(changed, &mut interval, deadline - now).await;
    };
    let mut messages = Vec::with_capacity(entries.len());
    for entry in entries {
        cursor = entry.id;
        messages.push(message(&state, driver, entry).await?);
    }
    Ok(Json(FeedPage { messages, cursor }))
}

/// An event's `data`: the JSON of a documented shape.
fn to_data(shape: &impl serde::Serialize) -> String {
    serde_json::to_string(shape).expect("a feed shape serialises")
}

struct Subscription {
    state: AppState,
    driver: Driver,
    cursor: i64,
    pending: VecDeque<FeedEntry>,
    greeted: bool,
    /// The stream's next own look while idle.
    interval: Duration,
}

#[utoipa::path(get, path = "/driver/events", tag = "driver", summary = "Server-Sent Events: one event per change of a route dispatched to the vehicle.", description = "`event: ready` first (data `FeedReady`), then `event: dispatched | edited | deleted` with `id:` the feed cursor and `data:` a `FeedMessage` (`x-sse-events` names the schema of each event's data); comments every 15 s keep the connection alive. A reconnecting client sends `Last-Event-ID` and receives every change committed after it.", params(FeedQuery, ("last-event-id" = Option<i64>, Header, description = "The last event id received (browsers send it when they reconnect); wins over `after`.")), responses((status = 200, description = "The event stream. Each event's `data` is a JSON `FeedMessage` (`FeedReady` for `ready`).", content_type = "text/event-stream", body = String), (status = 400, description = "INVALID_INPUT: an unknown parameter, or `after`, `wait` or `Last-Event-ID` out of range.", body = crate::error::Envelope)))]
async fn events(
    State(state): State<AppState>,
    auth: DriverAuth,
    headers: HeaderMap,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let (mut after, _) = params(&query)?;
    if let Some(last) = headers.get("last-event-id") {
        let raw = last
            .to_str()
            .map_err(|_| bad("Last-Event-ID", "a non-negative integer", "?"))?;
        after = Some(cursor(raw, "Last-Event-ID")?);
    }
    let driver = auth.driver();
    let start = start_cursor(&state, driver, after).await?;
    let subscription = Subscription {
        state,
        driver,
        cursor: start,
        pending: VecDeque::new(),
        greeted: false,
        interval: POLL_INTERVAL,
    };
    let stream = stream::unfold(subscription, |mut sub| async move {
        if !sub.greeted {
            sub.greeted = true;
            let ready = Event::default()
                .event("ready")
                .id(sub.cursor.to_string())
                .data(to_data(&FeedReady { cursor: sub.cursor }));
            return Some((Ok(ready), sub));
        }
        loop {
            if let Some(entry) = sub.pending.pop_front() {
                match message(&sub.state, sub.driver, entry).await {
                    Ok(data) => {
                        let event = Event::default()
                            .event(entry.kind.as_str())
                            .id(entry.id.to_string())
                            .data(to_data(&data));
                        return Some((Ok(event), sub));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e.description, "driver feed read failed");
                        sub.pending.push_front(entry);
                        tokio::time::sleep(POLL_INTERVAL * 4).await;
                        continue;
                    }
                }
            }
            let mut changed = pin!(CHANGES.notified());
            changed.as_mut().enable();
            match next_batch(&sub.state, sub.driver, sub.cursor).await {
                Ok(entries) if !entries.is_empty() => {
                    sub.cursor = entries.last().map_or(sub.cursor, |e| e.id);
                    sub.pending.extend(entries);
                    sub.interval = POLL_INTERVAL;
                }
                Ok(_) => idle(changed, &mut sub.interval, MAX_POLL_INTERVAL).await,
                Err(e) => {
                    tracing::warn!(error = %e.description, "driver feed read failed");
                    tokio::time::sleep(POLL_INTERVAL * 4).await;
                }
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
