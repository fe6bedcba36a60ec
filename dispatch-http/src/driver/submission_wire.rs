//! The body of `POST /driver/questionnaire-submissions`: `{questionnaire_id, stop_id |
//! route_id, answers: [{question_id, value, images}]}`, images as base64 (or `data:` URLs).
//! Every shape problem is reported with its path; the answers' rules are the core's.

use base64::Engine;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::questionnaire::{AnswerInput, AnswerValue};
use dispatch_core::service::pod::SubmissionInput;
use dispatch_core::service::ServiceError;
use serde_json::Value;

use super::bodies::{AnswerBody, SubmissionBody};
use crate::error::ApiError;
use crate::v2::request_shapes::{documented_properties, refuse_undocumented};
use crate::v2::wire::type_name;

fn bad(path: Vec<PathSegment>, expected: &str, received: &str, message: &str) -> ApiError {
    ServiceError::invalid(path, expected, received, message).into()
}

/// Records one problem of the body: path, code, what was expected, what was received (a
/// value's JSON type, or `undefined`), a sentence.
type Issues<'a> = dyn FnMut(Vec<PathSegment>, IssueCode, &str, &str, &str) + 'a;

/// What was received at a property: its JSON type, `undefined` when left out.
fn received_at(v: Option<&Value>) -> &'static str {
    v.map_or("undefined", type_name)
}

/// Reads the submission body; every problem is collected with its path.
pub(super) fn read_submission(body: &Value) -> Result<SubmissionInput, ApiError> {
    let mut errors = ValidationErrors::default();
    let Some(obj) = body.as_object() else {
        return Err(bad(
            vec![],
            "object",
            type_name(body),
            "the body is a JSON object",
        ));
    };
    refuse_undocumented::<SubmissionBody>(obj, &[], &mut errors);
    let mut issue =
        |path: Vec<PathSegment>, code: IssueCode, expected: &str, received: &str, message: &str| {
            errors.push(ValidationIssue::new(
                code, path, expected, received, message,
            ));
        };
    let id = |key: &str, issue: &mut Issues<'_>| -> Option<i64> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => v.as_i64().or_else(|| {
                issue(
                    vec![key.into()],
                    IssueCode::InvalidType,
                    "integer",
                    type_name(v),
                    &format!("{key} must be an integer"),
                );
                None
            }),
        }
    };
    let questionnaire_id = id("questionnaire_id", &mut issue);
    let route_id = id("route_id", &mut issue);
    let stop_id = id("stop_id", &mut issue);
    if questionnaire_id.is_none() && !matches!(obj.get("questionnaire_id"), Some(v) if !v.is_null())
    {
        issue(
            vec!["questionnaire_id".into()],
            IssueCode::Required,
            "integer",
            "undefined",
            "questionnaire_id is required",
        );
    }
    let mut answers = Vec::new();
    match obj.get("answers") {
        Some(Value::Array(items)) => {
            for (i, a) in items.iter().enumerate() {
                if let Some(answer) = read_answer(i, a, &mut issue) {
                    answers.push(answer);
                }
            }
        }
        None => issue(
            vec!["answers".into()],
            IssueCode::Required,
            "array",
            "undefined",
            "answers is required",
        ),
        Some(other) => issue(
            vec!["answers".into()],
            IssueCode::InvalidType,
            "array",
            type_name(other),
            "answers must be an array",
        ),
    }
    errors
        .into_result()
        .map_err(|e| ApiError::from(ServiceError::Invalid(e)))?;
    Ok(SubmissionInput {
        questionnaire_id: questionnaire_id.unwrap_or_default(),
        route_id,
        stop_id,
        answers,
    })
}

fn read_answer(i: usize, a: &Value, issue: &mut Issues<'_>) -> Option<AnswerInput> {
    let at = |key: &str| -> Vec<PathSegment> { vec!["answers".into(), i.into(), key.into()] };
    let Some(obj) = a.as_object() else {
        issue(
            vec!["answers".into(), i.into()],
            IssueCode::InvalidType,
            "object",
            type_name(a),
            "an answer is an object",
        );
        return None;
    };
    for key in obj.keys() {
        if !documented_properties::<AnswerBody>().contains(&key.as_str()) {
            issue(
                at(key),
                IssueCode::UnrecognizedKeys,
                "a known property",
                key,
                &format!("unrecognised property `{key}`"),
            );
        }
    }
    let question_id = match obj
        .get("question_id")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
    {
        Some(id) => id,
        None => {
            issue(
                at("question_id"),
                IssueCode::InvalidType,
                "integer",
                received_at(obj.get("question_id")),
                "question_id is a positive integer",
            );
            return None;
        }
    };
    let value = match obj.get("value") {
        None | Some(Value::Null) => AnswerValue::Absent,
        Some(Value::Bool(b)) => AnswerValue::Bool(*b),
        Some(Value::String(s)) => AnswerValue::Text(s.clone()),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => AnswerValue::List(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        Some(other) => {
            issue(
                at("value"),
                IssueCode::InvalidType,
                "boolean, string or array of strings",
                type_name(other),
                "value must be a boolean, a string or an array of strings",
            );
            return None;
        }
    };
    let mut images = Vec::new();
    match obj.get("images") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                let decoded = item.as_str().and_then(|s| {
                    let s = s.split_once(";base64,").map_or(s, |(_, data)| data);
                    base64::engine::general_purpose::STANDARD
                        .decode(s.trim())
                        .ok()
                });
                match decoded {
                    Some(bytes) => images.push(bytes),
                    None => issue(
                        vec!["answers".into(), i.into(), "images".into(), j.into()],
                        IssueCode::InvalidString,
                        "base64 image",
                        item.as_str().unwrap_or_else(|| type_name(item)),
                        "an image is a base64 string (optionally a data: URL)",
                    ),
                }
            }
        }
        Some(other) => issue(
            at("images"),
            IssueCode::InvalidType,
            "array",
            type_name(other),
            "images must be an array of base64 strings",
        ),
    }
    Some(AnswerInput {
        question_id,
        value,
        images,
    })
}
