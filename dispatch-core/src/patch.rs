//! Field presence in writes: a property can be absent (keep), `null` (clear) or a value (set).
//! Partial updates and create-or-update rules depend on telling these apart.

/// One property of a write.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Patch<T> {
    /// Not sent.
    #[default]
    Absent,
    /// Sent as `null`.
    Null,
    /// Sent with a value.
    Value(T),
}

impl<T> Patch<T> {
    /// The value, if one was sent.
    pub fn value(&self) -> Option<&T> {
        match self {
            Patch::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value, if one was sent (absent and null both give `None`).
    pub fn into_value(self) -> Option<T> {
        match self {
            Patch::Value(v) => Some(v),
            _ => None,
        }
    }
}
