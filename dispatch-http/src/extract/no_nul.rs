//! No text the service takes may hold a NUL character (U+0000). PostgreSQL's text types cannot
//! store one, and SQLite would store it where most readers of the data cut the text short, so
//! on both stores it is refused the same way before anything runs: 400 INVALID_INPUT at the
//! field that holds it (an object key counts as the field it names), or at the path parameter.

use dispatch_core::error::{IssueCode, PathSegment};
use serde_json::Value;

use crate::error::ApiError;

/// The refusal of a text holding NUL at `path`.
pub fn refused(path: Vec<PathSegment>) -> ApiError {
    super::one_issue(
        IssueCode::InvalidString,
        path,
        "text without NUL characters",
        "text with a NUL character",
        "text may not contain the NUL character (U+0000)",
    )
}

/// The path of the first string or key of `value` holding NUL, if any.
pub fn first_nul(value: &Value) -> Option<Vec<PathSegment>> {
    let mut path = Vec::new();
    find(value, &mut path).then_some(path)
}

fn find(value: &Value, path: &mut Vec<PathSegment>) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().enumerate().any(|(i, item)| {
            path.push(PathSegment::Index(i));
            let found = find(item, path);
            if !found {
                path.pop();
            }
            found
        }),
        Value::Object(fields) => fields.iter().any(|(key, item)| {
            path.push(PathSegment::Key(key.clone()));
            let found = key.contains('\0') || find(item, path);
            if !found {
                path.pop();
            }
            found
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_first_nul_is_found_in_strings_and_keys_with_its_path() {
        assert_eq!(first_nul(&json!({"a": "ok", "b": [1, "x"]})), None);
        assert_eq!(
            first_nul(&json!([{"a": "ok"}, {"a": "ok", "b": {"c": "x\u{0}y"}}])),
            Some(vec![1.into(), "b".into(), "c".into()])
        );
        assert_eq!(
            first_nul(&json!({"ok": 1, "k\u{0}": 2})),
            Some(vec!["k\u{0}".into()])
        );
        assert_eq!(first_nul(&json!("\u{0}")), Some(vec![]));
    }
}
