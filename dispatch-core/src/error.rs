//! The core's typed errors. Validation problems carry the path of the offending field so the
//! HTTP edge can render them as the spec's `validationErrors` entries without re-deriving anything.

use std::fmt;

/// One step of a field path: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    /// An object property name.
    Key(String),
    /// A position in an array.
    Index(usize),
}

impl From<&str> for PathSegment {
    fn from(key: &str) -> Self {
        PathSegment::Key(key.to_owned())
    }
}

impl From<usize> for PathSegment {
    fn from(index: usize) -> Self {
        PathSegment::Index(index)
    }
}

/// Stable machine-readable kinds of validation failure (the `code` of a validation error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueCode {
    /// A required field is absent.
    Required,
    /// A value has the wrong JSON type.
    InvalidType,
    /// A string is longer than allowed, a number or array larger than allowed.
    TooBig,
    /// A string is shorter than allowed, a number or array smaller than allowed.
    TooSmall,
    /// A string does not have the required format (date, time of day, e-mail ...).
    InvalidString,
    /// A value is not one of the allowed enum values.
    InvalidEnumValue,
    /// A property the endpoint does not accept.
    UnrecognizedKeys,
    /// A rule spanning several fields or records was broken.
    Custom,
}

impl IssueCode {
    /// The wire spelling of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::Required => "required",
            IssueCode::InvalidType => "invalid_type",
            IssueCode::TooBig => "too_big",
            IssueCode::TooSmall => "too_small",
            IssueCode::InvalidString => "invalid_string",
            IssueCode::InvalidEnumValue => "invalid_enum_value",
            IssueCode::UnrecognizedKeys => "unrecognized_keys",
            IssueCode::Custom => "custom",
        }
    }
}

/// One violated field rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    /// What kind of rule was broken.
    pub code: IssueCode,
    /// What the rule expects, for people and tools (e.g. `string of at most 100 characters`).
    pub expected: String,
    /// What was received (a short rendering of the value or its type).
    pub received: String,
    /// Where the offending value sits in the request body.
    pub path: Vec<PathSegment>,
    /// A sentence for people.
    pub message: String,
}

impl ValidationIssue {
    /// A new issue at `path`.
    pub fn new(
        code: IssueCode,
        path: Vec<PathSegment>,
        expected: impl Into<String>,
        received: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ValidationIssue {
            code,
            expected: expected.into(),
            received: received.into(),
            path,
            message: message.into(),
        }
    }

    /// The same issue nested under `prefix` (e.g. the index of a batch item).
    pub fn under(mut self, prefix: impl Into<PathSegment>) -> Self {
        self.path.insert(0, prefix.into());
        self
    }
}

/// Most issues one [`ValidationErrors`] keeps: later ones are dropped, so the errors of a
/// hostile input (every field of every item wrong) cannot take memory without bound.
pub const MAX_ISSUES: usize = 100;

/// Every violated rule of one input, collected rather than stopping at the first (up to
/// [`MAX_ISSUES`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(pub Vec<ValidationIssue>);

impl ValidationErrors {
    /// Adds one issue (dropped beyond [`MAX_ISSUES`]).
    pub fn push(&mut self, issue: ValidationIssue) {
        if self.0.len() >= MAX_ISSUES {
            return;
        }
        self.0.push(issue);
    }

    /// Adds issues, up to [`MAX_ISSUES`] in all.
    pub fn extend(&mut self, issues: impl IntoIterator<Item = ValidationIssue>) {
        for issue in issues
            .into_iter()
            .take(MAX_ISSUES.saturating_sub(self.0.len()))
        {
            self.0.push(issue);
        }
    }

    /// True when nothing was violated.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each issue's path as people read it (`0.time_windows.1.from`), in order.
    pub fn paths(&self) -> Vec<String> {
        self.0.iter().map(|i| render_path(&i.path)).collect()
    }

    /// `Ok(())` when empty, the collected errors otherwise.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let messages: Vec<&str> = self.0.iter().map(|i| i.message.as_str()).collect();
        write!(f, "invalid input: {}", messages.join("; "))
    }
}

/// The path as people read it, e.g. `0.time_windows.1.from`.
pub fn render_path(path: &[PathSegment]) -> String {
    path.iter()
        .map(|s| match s {
            PathSegment::Key(k) => k.clone(),
            PathSegment::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}
