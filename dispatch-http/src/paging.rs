//! Paging on the wire: limit, page_info cursors, updated_at_min and the Link header.
//!
//! A list handler takes [`PageParams`] as an extractor, passes [`PageParams::request`] to the
//! store, reads its own filters with [`PageParams::filter`], and answers through
//! [`PageParams::respond`], which adds `Link: <URL>; rel="next"` when another page follows.
//!
//! Wire rules (spec, Limits: Paging, and the list endpoints):
//! - `limit`: 1-100; anything else (out of range, not an integer, empty) falls back to 100.
//! - `updated_at_min`: `YYYY-MM-DD hh:mm:ss` or `YYYY-MM-DDTHH:mm:ss.SSSZ` (UTC); another format
//!   is ignored.
//! - `page_info`: an opaque, URL-safe cursor (base64url of a small JSON document) holding the
//!   keyset position ([`Cursor`]) *and the original filters*. When it is present, the filters it
//!   carries apply and filter parameters sent beside it are ignored, so a page never mixes two
//!   filter sets. An empty `page_info` means the first page; anything that does not decode is
//!   400 INVALID_INPUT with a `validationErrors` entry at path `["page_info"]`.
//! - The next URL is absolute: the service's public base URL ([`PublicUrl`], `serve
//!   --public-url`) and the request's own path (so it keeps `/v2`), with `page_info`, `limit`
//!   and the original filters. Never the request's `Host` or `X-Forwarded-*` headers: a client
//!   chooses those. No `rel="next"` on the last page.

use axum::extract::{FromRef, FromRequestParts, OriginalUri};
use axum::http::header::LINK;
use axum::http::request::Parts;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::service::ServiceError;
use dispatch_core::time::{Timestamp, UpdatedAtMin};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::extract::no_nul;
use crate::public_url::PublicUrl;
use crate::AppState;

/// Rows per page when `limit` is absent or unusable; also the maximum.
pub const DEFAULT_LIMIT: usize = 100;

const PAGE_INFO: &str = "page_info";
const LIMIT: &str = "limit";
const UPDATED_AT_MIN: &str = "updated_at_min";

/// What a `page_info` value holds.
#[derive(Debug, Serialize, Deserialize)]
struct PageInfo {
    /// Format version, for changing the layout later without misreading old cursors.
    v: u8,
    /// `updated` of the last row of the previous page, ms since the epoch.
    u: i64,
    /// `id` of that row.
    i: i64,
    /// The original filters, in request order.
    f: Vec<(String, String)>,
}

const PAGE_INFO_VERSION: u8 = 1;

/// Encodes a cursor and the filters it belongs to as a `page_info` value.
pub fn encode_page_info(cursor: Cursor, filters: &[(String, String)]) -> String {
    let info = PageInfo {
        v: PAGE_INFO_VERSION,
        u: cursor.updated.millis(),
        i: cursor.id,
        f: filters.to_vec(),
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&info).expect("plain data serialises"))
}

/// Decodes a `page_info` value; `None` when it is not one this service wrote.
pub fn decode_page_info(value: &str) -> Option<(Cursor, Vec<(String, String)>)> {
    let bytes = URL_SAFE_NO_PAD.decode(value).ok()?;
    let info: PageInfo = serde_json::from_slice(&bytes).ok()?;
    (info.v == PAGE_INFO_VERSION).then_some((
        Cursor {
            updated: Timestamp::from_millis(info.u),
            id: info.i,
        },
        info.f,
    ))
}

/// Where the next-page URL points: the public base URL and the request's path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LinkBase {
    public_url: PublicUrl,
    path: String,
}

/// One list request as it came over the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageParams {
    /// The page to read, for the store.
    pub request: PageRequest,
    filters: Vec<(String, String)>,
    base: LinkBase,
}

impl PageParams {
    fn parse(query: &str, base: LinkBase) -> Result<PageParams, ApiError> {
        let mut page_info: Option<String> = None;
        let mut limit: Option<String> = None;
        let mut filters: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            match name.as_ref() {
                PAGE_INFO => {
                    page_info.get_or_insert_with(|| value.into_owned());
                }
                LIMIT => {
                    limit.get_or_insert_with(|| value.into_owned());
                }
                _ => {
                    if !filters.iter().any(|(n, _)| n.as_str() == name.as_ref()) {
                        filters.push((name.into_owned(), value.into_owned()));
                    }
                }
            }
        }
        let limit = limit
            .and_then(|l| l.trim().parse::<usize>().ok())
            .filter(|l| (1..=DEFAULT_LIMIT).contains(l))
            .unwrap_or(DEFAULT_LIMIT);
        let after = match page_info.as_deref() {
            None | Some("") => None,
            Some(value) => {
                let (cursor, original) = decode_page_info(value).ok_or_else(|| malformed(value))?;
                filters = original;
                Some(cursor)
            }
        };
        // A filter reaches the store as text, which may not hold NUL (see `no_nul`); one inside
        // a crafted `page_info` is refused at the name it carries.
        if let Some((name, _)) = filters
            .iter()
            .find(|(n, v)| n.contains('\0') || v.contains('\0'))
        {
            return Err(no_nul::refused(vec![name.as_str().into()]));
        }
        let updated_at_min = filters
            .iter()
            .find(|(n, _)| n == UPDATED_AT_MIN)
            .and_then(|(_, v)| UpdatedAtMin::parse(v))
            .map(|u| u.0);
        Ok(PageParams {
            request: PageRequest {
                after,
                limit,
                updated_at_min,
            },
            filters,
            base,
        })
    }

    /// The value of the list's own filter `name` (as first sent), e.g. `status` on orders.
    pub fn filter(&self, name: &str) -> Option<&str> {
        self.filters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every filter parameter, in request order (`updated_at_min` included, `page_info` and
    /// `limit` not).
    pub fn filters(&self) -> &[(String, String)] {
        &self.filters
    }

    /// The URL of the page after `next`.
    pub fn next_url(&self, next: Cursor) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        query.append_pair(PAGE_INFO, &encode_page_info(next, &self.filters));
        query.append_pair(LIMIT, &self.request.limit.to_string());
        for (name, value) in &self.filters {
            query.append_pair(name, value);
        }
        self.base
            .public_url
            .absolute_url(&format!("{}?{}", self.base.path, query.finish()))
    }

    /// `Link: <URL>; rel="next"` for the page after `next`; `None` on the last page.
    pub fn next_link(&self, next: Option<Cursor>) -> Option<HeaderValue> {
        let link = format!("<{}>; rel=\"next\"", self.next_url(next?));
        HeaderValue::from_str(&link).ok()
    }

    /// `body` with the `Link` header for the page after `next`, if any.
    pub fn respond(&self, next: Option<Cursor>, body: impl IntoResponse) -> Response {
        let mut response = body.into_response();
        if let Some(link) = self.next_link(next) {
            response.headers_mut().append(LINK, link);
        }
        response
    }

    /// A plain list endpoint: reads this page with `read` on the blocking pool and answers
    /// `render(rows)` with the `Link` header for the next page.
    pub async fn list<T, B>(
        &self,
        state: &AppState,
        read: impl FnOnce(&AppState, &PageRequest) -> Result<Page<T>, ServiceError> + Send + 'static,
        render: impl FnOnce(&[T]) -> B,
    ) -> Result<Response, ApiError>
    where
        T: Send + 'static,
        B: IntoResponse,
    {
        let request = self.request;
        let rows = state.blocking(move |s| Ok(read(s, &request)?)).await?;
        Ok(self.respond(rows.next, render(&rows.items)))
    }
}

fn malformed(value: &str) -> ApiError {
    let received: String = value.chars().take(100).collect();
    crate::rejection::invalid(&ValidationErrors(vec![ValidationIssue::new(
        IssueCode::InvalidString,
        vec![PAGE_INFO.into()],
        "the page_info of a Link header returned by this list",
        received,
        "page_info is malformed; follow the rel=\"next\" URL as given",
    )]))
}

/// Bytes a request path may carry that cannot stand inside `Link: <...>` as they are.
const LINK_UNSAFE: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

fn link_base(parts: &Parts, public_url: PublicUrl) -> LinkBase {
    let path = parts
        .extensions
        .get::<OriginalUri>()
        .map_or_else(|| parts.uri.path(), |u| u.0.path());
    LinkBase {
        public_url,
        path: percent_encoding::percent_encode(path.as_bytes(), LINK_UNSAFE).to_string(),
    }
}

impl<S> FromRequestParts<S> for PageParams
where
    S: Send + Sync,
    PublicUrl: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let base = link_base(parts, PublicUrl::from_ref(state));
        Self::parse(parts.uri.query().unwrap_or(""), base)
    }
}

#[cfg(test)]
mod tests;

/// The query of a paged list, as documented (the handlers read it through [`PageParams`]).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct PageQuery {
    /// The cursor from the previous page's `Link rel="next"` URL (malformed: 400).
    page_info: Option<String>,
    /// Only records updated at or after: `YYYY-MM-DD hh:mm:ss` or `YYYY-MM-DDTHH:mm:ss.SSSZ`
    /// (another format is ignored).
    updated_at_min: Option<String>,
    /// 1 to 100, default 100; out of range falls back to 100.
    limit: Option<i64>,
}

/// The query of `GET /orders`.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct OrderQuery {
    /// The cursor from the previous page's `Link rel="next"` URL (malformed: 400).
    page_info: Option<String>,
    /// A status, case-insensitive (unknown: 400).
    status: Option<String>,
    /// Orders of this customer.
    customer_id: Option<i64>,
    /// Exactly this order number.
    order_number: Option<String>,
    /// Only records updated at or after (see `/customers`).
    updated_at_min: Option<String>,
    /// Orders due on this date, `YYYY-MM-DD` (another format: 400).
    date: Option<String>,
    /// 1 to 100, default 100; out of range falls back to 100.
    limit: Option<i64>,
}

/// The query of `GET /notification-tasks`.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TaskQuery {
    /// The cursor from the previous page's `Link rel="next"` URL (malformed: 400).
    page_info: Option<String>,
    /// 1 to 100, default 100.
    limit: Option<i64>,
    /// Only tasks updated at or after.
    updated_at_min: Option<String>,
    /// Exact match, e.g. `Scheduled`, `Cancelled`.
    status: Option<String>,
    /// `SMS` or `EMAIL`, case-insensitive (other values: 400).
    #[param(rename = "type")]
    channel: Option<String>,
}
