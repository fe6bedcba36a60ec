//! Helpers shared by the wire types: reading typed properties from a JSON object (with field
//! presence and type errors at their path) and rendering numbers and times.

use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::patch::Patch;
use dispatch_core::time::{TimeOfDay, Timestamp};
use serde_json::{Map, Value};

/// The JSON type name of a value, as used in `received`.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Reads properties of one JSON object, collecting type errors under a path prefix.
pub struct Reader<'a> {
    obj: &'a Map<String, Value>,
    prefix: Vec<PathSegment>,
    /// The type errors found so far.
    pub errors: &'a mut ValidationErrors,
}

impl<'a> Reader<'a> {
    /// A reader of `obj` whose errors are reported under `prefix`.
    pub fn new(
        obj: &'a Map<String, Value>,
        prefix: Vec<PathSegment>,
        errors: &'a mut ValidationErrors,
    ) -> Self {
        Reader {
            obj,
            prefix,
            errors,
        }
    }

    /// Reports every property of the object the closed schema `T` does not document (see
    /// [`super::request_shapes::refuse_undocumented`]).
    pub fn refuse_undocumented<T: utoipa::ToSchema>(&mut self) {
        super::request_shapes::refuse_undocumented::<T>(self.obj, &self.prefix, self.errors);
    }

    /// Where the object read lies in the body.
    pub fn prefix(&self) -> &[PathSegment] {
        &self.prefix
    }

    fn path(&self, key: &str) -> Vec<PathSegment> {
        let mut p = self.prefix.clone();
        p.push(key.into());
        p
    }

    /// Records a type error at `key`.
    pub fn wrong_type(&mut self, key: &str, expected: &str, got: &Value) {
        let issue = ValidationIssue::new(
            IssueCode::InvalidType,
            self.path(key),
            expected,
            type_name(got),
            format!("{key} must be {expected}"),
        );
        self.errors.push(issue);
    }

    fn get<T>(
        &mut self,
        key: &str,
        expected: &str,
        conv: impl FnOnce(&Value) -> Option<T>,
    ) -> Patch<T> {
        match self.obj.get(key) {
            None => Patch::Absent,
            Some(Value::Null) => Patch::Null,
            Some(v) => match conv(v) {
                Some(x) => Patch::Value(x),
                None => {
                    self.wrong_type(key, expected, v);
                    Patch::Absent
                }
            },
        }
    }

    /// The raw value of a property.
    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.obj.get(key)
    }

    /// A string property.
    pub fn string(&mut self, key: &str) -> Patch<String> {
        self.get(key, "a string", |v| v.as_str().map(str::to_owned))
    }

    /// A number property.
    pub fn number(&mut self, key: &str) -> Patch<f64> {
        self.get(key, "a number", Value::as_f64)
    }

    /// An integer property.
    pub fn integer(&mut self, key: &str) -> Patch<i64> {
        self.get(key, "an integer", Value::as_i64)
    }

    /// A boolean property.
    pub fn boolean(&mut self, key: &str) -> Patch<bool> {
        self.get(key, "a boolean", Value::as_bool)
    }

    /// An array of strings.
    pub fn strings(&mut self, key: &str) -> Patch<Vec<String>> {
        let path = self.path(key);
        let mut bad = Vec::new();
        let out = self.get(key, "an array of strings", |v| {
            let items = v.as_array()?;
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(s) => out.push(s.to_owned()),
                    None => bad.push((i, type_name(item))),
                }
            }
            Some(out)
        });
        for (i, got) in bad {
            let mut p = path.clone();
            p.push(i.into());
            self.errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                p,
                "string",
                got,
                "entries must be strings",
            ));
        }
        out
    }

    /// An array of objects, each handed to `item` with its own reader.
    pub fn objects<T>(
        &mut self,
        key: &str,
        mut item: impl FnMut(&mut Reader<'_>) -> T,
    ) -> Patch<Vec<T>> {
        match self.obj.get(key) {
            None => Patch::Absent,
            Some(Value::Null) => Patch::Null,
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    let mut prefix = self.path(key);
                    prefix.push(i.into());
                    match v.as_object() {
                        Some(obj) => out.push(item(&mut Reader::new(obj, prefix, self.errors))),
                        None => self.errors.push(ValidationIssue::new(
                            IssueCode::InvalidType,
                            prefix,
                            "object",
                            type_name(v),
                            "entries must be objects",
                        )),
                    }
                }
                Patch::Value(out)
            }
            Some(v) => {
                let v = v.clone();
                self.wrong_type(key, "an array", &v);
                Patch::Absent
            }
        }
    }
}

/// The body as a JSON object, or 400 INVALID_INPUT.
pub fn object(body: &Value) -> Result<&Map<String, Value>, ValidationErrors> {
    body.as_object().ok_or_else(|| {
        ValidationErrors(vec![ValidationIssue::new(
            IssueCode::InvalidType,
            vec![],
            "object",
            type_name(body),
            "the body must be a JSON object",
        )])
    })
}

/// Reads a whole body of the closed schema `T` with `read`: every property `T` does not
/// document is refused and type errors are reported at their path; the value read only when
/// there were none (the field rules are the core's).
pub fn closed_body<T: utoipa::ToSchema, R>(
    body: &Value,
    read: impl FnOnce(&mut Reader<'_>) -> R,
) -> Result<R, ValidationErrors> {
    let obj = object(body)?;
    let mut errors = ValidationErrors::default();
    let mut reader = Reader::new(obj, vec![], &mut errors);
    reader.refuse_undocumented::<T>();
    let value = read(&mut reader);
    errors.into_result().map(|()| value)
}

/// A number, as an integer when it has no fraction.
pub fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// An optional number.
pub fn opt_num(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

/// An optional time of day, `HH:mm`.
pub fn opt_time(t: Option<TimeOfDay>) -> Value {
    t.map_or(Value::Null, |t| Value::from(t.to_string()))
}

/// A timestamp, `YYYY-MM-DDTHH:mm:ss.SSSZ`.
pub fn ts(t: Timestamp) -> Value {
    Value::from(t.to_string())
}

/// A timestamp as text, `YYYY-MM-DDTHH:mm:ss.SSSZ` (for typed response fields).
pub fn ts_text(t: Timestamp) -> String {
    t.to_string()
}
