//! Extractors whose every rejection is an envelope: the JSON body, numeric path ids and the
//! authenticated caller.

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use serde_json::Value;

use crate::auth::Principal;
use crate::bounded_json::{
    self, BodyBytes, BoundedJsonError, ReadBodyError, MAX_BATCH_ITEMS, MAX_ITEM_TEXT_BYTES,
    MAX_JSON_VALUES,
};
use crate::error::{ApiError, ErrorName};
use crate::rejection::invalid;

pub(crate) mod no_nul;

fn one_issue(
    code: IssueCode,
    path: Vec<PathSegment>,
    expected: &str,
    received: &str,
    message: &str,
) -> ApiError {
    invalid(&ValidationErrors(vec![ValidationIssue::new(
        code, path, expected, received, message,
    )]))
}

/// A JSON request body. A content type other than JSON, an empty or malformed body: 400
/// INVALID_INPUT; a body over the limit: 400 INVALID_INPUT (`too_big`). A missing content type is
/// accepted when the body parses as JSON.
#[derive(Debug, Clone)]
pub struct JsonBody(pub Value);

/// A body an outer layer already read (the idempotency layer, which fingerprints it): what
/// reading it gave, so [`JsonBody`] neither reads nor parses it again.
#[derive(Debug, Clone)]
pub struct ReadJson(pub Result<Option<Value>, ApiError>);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        required_json(req, MAX_ITEM_TEXT_BYTES).await.map(JsonBody)
    }
}

/// A JSON body that carries images as base64 strings (`POST /driver/questionnaire-submissions`):
/// [`JsonBody`] with the text of the body bounded by the body limit
/// ([`crate::MAX_BODY_BYTES`]) instead of [`MAX_ITEM_TEXT_BYTES`], so a phone photo of a few
/// MB fits. The bounds on values and batch items stay; every other body keeps [`JsonBody`].
#[derive(Debug, Clone)]
pub struct ImageJsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for ImageJsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        required_json(req, crate::MAX_BODY_BYTES)
            .await
            .map(ImageJsonBody)
    }
}

/// A content type other than JSON is 400 INVALID_INPUT; none at all is accepted.
fn json_content_type(headers: &HeaderMap) -> Result<(), ApiError> {
    if let Some(ct) = headers.get(header::CONTENT_TYPE) {
        let ct = ct.to_str().unwrap_or("").to_ascii_lowercase();
        let essence = ct.split(';').next().unwrap_or("").trim();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(one_issue(
                IssueCode::InvalidType,
                vec![],
                "content-type application/json",
                essence,
                "the body must be JSON (content-type application/json)",
            ));
        }
    }
    Ok(())
}

/// The refusal of a request without a body.
fn body_required() -> ApiError {
    one_issue(
        IssueCode::Required,
        vec![],
        "a JSON body",
        "empty body",
        "a JSON body is required",
    )
}

/// A JSON body that must be there, with at most `item_text` bytes of text per item.
async fn required_json(req: Request, item_text: usize) -> Result<Value, ApiError> {
    json_content_type(req.headers())?;
    let (mut parts, body) = req.into_parts();
    bounded_body(&mut parts, body, item_text)
        .await?
        .ok_or_else(body_required)
}

/// What [`typed_json`] read: the body deserialised straight into its typed form, or, where
/// that was not possible, the JSON value the property-by-property readers take (they report
/// every issue at its path).
pub enum TypedOrValue<T> {
    /// The typed form.
    Typed(T),
    /// The body as a JSON value, read as [`JsonBody`] reads it.
    Value(Value),
}

/// Bodies of at most this many bytes may go straight into a typed form: every value and key
/// the bounds of [`bounded_json`] count starts at a byte of its own and unescaping never
/// lengthens text, so such a body is within the bounds on values and on an item's text (the
/// number of batch items the typed form bounds itself).
const TYPED_BODY_BYTES: usize = MAX_JSON_VALUES;

/// A JSON body that must be there, as [`JsonBody`] takes it, handed first to `typed`: a body
/// read by no outer layer, within `TYPED_BODY_BYTES` and free of escaped NUL characters, that
/// `typed` accepts is its typed form, without a JSON value built; any other body is read as
/// [`JsonBody`] reads it (with the same refusals). `typed` must accept only bodies the readers
/// of the value accept without an issue, and read them into what those readers give.
pub async fn typed_json<T>(
    req: Request,
    typed: impl FnOnce(&[u8]) -> Option<T>,
) -> Result<TypedOrValue<T>, ApiError> {
    json_content_type(req.headers())?;
    let (mut parts, body) = req.into_parts();
    if let Some(ReadJson(read)) = parts.extensions.remove::<ReadJson>() {
        return read?.map(TypedOrValue::Value).ok_or_else(body_required);
    }
    let bytes = read_bounded(&parts.headers, body).await?;
    if let Some(text) = bytes.contiguous() {
        // A NUL can only be sent escaped (raw control characters are malformed JSON); its
        // refusal is left to the value's reader, as is text that only looks like one (an
        // escaped backslash before `u0000`).
        let nul = text.windows(6).any(|w| w == b"\\u0000");
        if text.len() <= TYPED_BODY_BYTES && !nul {
            if let Some(value) = typed(text) {
                return Ok(TypedOrValue::Typed(value));
            }
        }
    }
    json_within(bytes, MAX_ITEM_TEXT_BYTES, &mut |_| {})?
        .map(TypedOrValue::Value)
        .ok_or_else(body_required)
}

/// A JSON body that may be absent (nothing or only whitespace: `None`), for actions whose every
/// property is optional. Read and parsed within the same bounds as [`JsonBody`]; no
/// content-type is required.
#[derive(Debug, Clone)]
pub struct OptionalJsonBody(pub Option<Value>);

impl<S: Send + Sync> FromRequest<S> for OptionalJsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = req.into_parts();
        bounded_body(&mut parts, body, MAX_ITEM_TEXT_BYTES)
            .await
            .map(OptionalJsonBody)
    }
}

/// Reads a body within [`crate::MAX_BODY_BYTES`] and parses it within the bounds of
/// [`bounded_json`], with at most `item_text` bytes of text per item; `None` for an empty (or
/// whitespace-only) body. A body an outer layer already read ([`ReadJson`]) is taken as it was
/// read.
async fn bounded_body(
    parts: &mut Parts,
    body: Body,
    item_text: usize,
) -> Result<Option<Value>, ApiError> {
    match parts.extensions.remove::<ReadJson>() {
        Some(ReadJson(read)) => read,
        None => json_within(
            read_bounded(&parts.headers, body).await?,
            item_text,
            &mut |_| {},
        ),
    }
}

/// Reads a body of at most [`crate::MAX_BODY_BYTES`]: a longer one is 400 INVALID_INPUT
/// (`too_big`), one that cannot be read 400 INVALID_INPUT.
pub async fn read_bounded(headers: &HeaderMap, body: Body) -> Result<BodyBytes, ApiError> {
    bounded_json::read_body(headers, body, crate::MAX_BODY_BYTES)
        .await
        .map_err(|e| match e {
            ReadBodyError::TooLarge => {
                crate::rejection::body_too_large(&format!("{} bytes", crate::MAX_BODY_BYTES))
            }
            ReadBodyError::Unreadable(e) => one_issue(
                IssueCode::Custom,
                vec![],
                "a readable body",
                "unreadable body",
                &format!("the body could not be read: {e}"),
            ),
        })
}

/// Parses a body read by [`read_bounded`] within the bounds of [`bounded_json`], freeing it as
/// it goes and handing every byte to `observe`; `None` for an empty (or whitespace-only) body.
/// Malformed JSON is 400 INVALID_INPUT, a body beyond a bound 400 INVALID_INPUT (`too_big`).
pub fn json_of(
    bytes: BodyBytes,
    observe: &mut dyn FnMut(&[u8]),
) -> Result<Option<Value>, ApiError> {
    json_within(bytes, MAX_ITEM_TEXT_BYTES, observe)
}

/// [`json_of`] with at most `item_text` bytes of text per item.
fn json_within(
    bytes: BodyBytes,
    item_text: usize,
    observe: &mut dyn FnMut(&[u8]),
) -> Result<Option<Value>, ApiError> {
    let parsed =
        bounded_json::parse_optional_within(bytes, item_text, observe).map_err(|e| match e {
            BoundedJsonError::Malformed(e) => one_issue(
                IssueCode::InvalidType,
                vec![],
                "valid JSON",
                "malformed JSON",
                &format!("malformed JSON: {e}"),
            ),
            BoundedJsonError::TooManyItems => one_issue(
                IssueCode::TooBig,
                vec![],
                &format!("at most {MAX_BATCH_ITEMS} items"),
                &format!("more than {MAX_BATCH_ITEMS} items"),
                &format!("a request carries at most {MAX_BATCH_ITEMS} items"),
            ),
            BoundedJsonError::ItemTooLarge(index) => one_issue(
                IssueCode::TooBig,
                index.map(|i| vec![i.into()]).unwrap_or_default(),
                &format!("at most {item_text} bytes of text in one item"),
                &format!("more than {item_text} bytes of text"),
                &format!(
                    "one item (or a body that is not a batch) holds at most \
                 {item_text} bytes of strings and keys"
                ),
            ),
            BoundedJsonError::TooManyValues => one_issue(
                IssueCode::TooBig,
                vec![],
                &format!("at most {MAX_JSON_VALUES} JSON values and keys"),
                &format!("more than {MAX_JSON_VALUES} JSON values and keys"),
                &format!("a body holds at most {MAX_JSON_VALUES} JSON values and object keys"),
            ),
        })?;
    match parsed.as_ref().and_then(no_nul::first_nul) {
        Some(path) => Err(no_nul::refused(path)),
        None => Ok(parsed),
    }
}

/// The one path parameter of a route, percent-decoded. A segment that is not UTF-8 once decoded
/// is read lossily (U+FFFD for each bad sequence), so it names nothing, like any other unknown
/// value, instead of failing the request. One holding NUL (`%00`) is 400 INVALID_INPUT at the
/// parameter's name, on every store.
#[derive(Debug, Clone)]
pub struct PathText(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathText {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let text = match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(text)) => text,
            Err(_) => lossy_param(parts)
                .ok_or_else(|| ApiError::internal("a route without exactly one path parameter"))?,
        };
        if text.contains('\0') {
            return Err(no_nul::refused(vec![param_name(parts).as_str().into()]));
        }
        Ok(PathText(text))
    }
}

/// The name of the matched route's last `{param}` (`id` when unknown).
fn param_name(parts: &Parts) -> String {
    parts
        .extensions
        .get::<MatchedPath>()
        .and_then(|t| {
            t.as_str()
                .rsplit('/')
                .find_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "id".into())
}

/// The segment of the request path where the matched route has its one `{param}`, decoded
/// lossily.
fn lossy_param(parts: &Parts) -> Option<String> {
    let template = parts.extensions.get::<MatchedPath>()?.as_str().to_owned();
    // Counted from the end: a nested router sees its URI without the prefix of the template.
    let params: Vec<usize> = template
        .rsplit('/')
        .enumerate()
        .filter(|(_, s)| s.starts_with('{'))
        .map(|(i, _)| i)
        .collect();
    let [from_end] = params[..] else {
        return None;
    };
    let segment = parts.uri.path().rsplit('/').nth(from_end)?;
    Some(
        percent_encoding::percent_decode_str(segment)
            .decode_utf8_lossy()
            .into_owned(),
    )
}

/// A numeric `{id}` path parameter; anything else is 400 INVALID_INPUT at path `id`.
#[derive(Debug, Clone, Copy)]
pub struct IdPath(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let PathText(raw) = PathText::from_request_parts(parts, state).await?;
        raw.parse::<i64>().map(IdPath).map_err(|_| {
            one_issue(
                IssueCode::InvalidType,
                vec!["id".into()],
                "integer id",
                &raw,
                "id must be an integer",
            )
        })
    }
}

/// The authenticated caller, put into the request by the auth layer.
#[derive(Debug, Clone, Copy)]
pub struct Caller(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Principal>()
            .copied()
            .map(Caller)
            .ok_or_else(|| {
                ApiError::new(ErrorName::Unauthorized, "missing or invalid x-access-key")
            })
    }
}
