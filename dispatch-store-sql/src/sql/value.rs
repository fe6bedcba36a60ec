//! Dynamically typed values: what a statement binds ([`ToSql`], [`Params`]) and what a column
//! reads into ([`FromSql`]). Both backends convert to and from [`Val`], so the repositories bind
//! and read plain Rust types the same way on either store.

/// A dynamically typed SQL value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// NULL.
    Null,
    /// Any integer.
    Int(i64),
    /// A float.
    Real(f64),
    /// Text (also JSON documents).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// A boolean (SQLite stores it as the integer 0 or 1).
    Bool(bool),
    /// A PostgreSQL array of these values, one element a row of a multi-row statement that
    /// reads its parameters with `unnest` (SQLite binds no arrays).
    List(Vec<Val>),
}

/// A value that can be bound as a parameter.
pub trait ToSql {
    /// The value.
    fn to_val(&self) -> Val;

    /// The value, taking `self`: an owned [`Val`] is moved, never copied (a batch of large
    /// texts is bound without a second copy of them).
    fn into_val(self) -> Val
    where
        Self: Sized,
    {
        self.to_val()
    }
}

macro_rules! int_to_sql {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_val(&self) -> Val {
                Val::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
int_to_sql!(i64, i32, i16, i8, u64, u32, u16, u8, usize);

impl ToSql for f64 {
    fn to_val(&self) -> Val {
        Val::Real(*self)
    }
}
impl ToSql for f32 {
    fn to_val(&self) -> Val {
        Val::Real(f64::from(*self))
    }
}
impl ToSql for bool {
    fn to_val(&self) -> Val {
        Val::Bool(*self)
    }
}
impl ToSql for str {
    fn to_val(&self) -> Val {
        Val::Text(self.to_owned())
    }
}
impl ToSql for String {
    fn to_val(&self) -> Val {
        Val::Text(self.clone())
    }

    fn into_val(self) -> Val {
        Val::Text(self)
    }
}
impl ToSql for [u8] {
    fn to_val(&self) -> Val {
        Val::Blob(self.to_vec())
    }
}
impl ToSql for Vec<u8> {
    fn to_val(&self) -> Val {
        Val::Blob(self.clone())
    }
}
impl ToSql for Val {
    fn to_val(&self) -> Val {
        self.clone()
    }

    fn into_val(self) -> Val {
        self
    }
}
impl<T: ToSql> ToSql for Option<T> {
    fn to_val(&self) -> Val {
        self.as_ref().map_or(Val::Null, ToSql::to_val)
    }

    fn into_val(self) -> Val {
        self.map_or(Val::Null, ToSql::into_val)
    }
}
impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_val(&self) -> Val {
        (**self).to_val()
    }
}
impl<T: ToSql + ?Sized> ToSql for Box<T> {
    fn to_val(&self) -> Val {
        (**self).to_val()
    }
}

/// A set of parameters.
pub trait Params {
    /// The values, in placeholder order.
    fn into_vals(self) -> Vec<Val>;
}

impl Params for &[&dyn ToSql] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(|v| v.to_val()).collect()
    }
}

impl<T: ToSql, const N: usize> Params for [T; N] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(ToSql::to_val).collect()
    }
}

impl<T: ToSql, const N: usize> Params for &[T; N] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(ToSql::to_val).collect()
    }
}

/// Values bound as they are, in placeholder order: moved into the statement, not copied.
impl Params for Vec<Val> {
    fn into_vals(self) -> Vec<Val> {
        self
    }
}

/// Parameters from an iterator (dynamic SQL).
pub struct ParamsFromIter(Vec<Val>);

impl Params for ParamsFromIter {
    fn into_vals(self) -> Vec<Val> {
        self.0
    }
}

/// Parameters from an iterator of values.
pub fn params_from_iter<I>(iter: I) -> ParamsFromIter
where
    I: IntoIterator,
    I::Item: ToSql,
{
    ParamsFromIter(iter.into_iter().map(ToSql::into_val).collect())
}

/// A parameter list: `params![a, b, c]`.
#[macro_export]
#[doc(hidden)]
macro_rules! __params {
    () => { &[] as &[&dyn $crate::sql::ToSql] };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn $crate::sql::ToSql),+] as &[&dyn $crate::sql::ToSql] };
}

/// A value that can be read from a column.
pub trait FromSql: Sized {
    /// Converts the column's value.
    fn from_val(v: Val) -> Result<Self, String>;
}

fn mismatch<T>(v: &Val) -> Result<T, String> {
    Err(format!(
        "cannot read {v:?} as {}",
        std::any::type_name::<T>()
    ))
}

impl FromSql for i64 {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Int(i) => Ok(i),
            Val::Bool(b) => Ok(i64::from(b)),
            other => mismatch(&other),
        }
    }
}

macro_rules! int_from_sql {
    ($($t:ty),*) => {$(
        impl FromSql for $t {
            fn from_val(v: Val) -> Result<Self, String> {
                let i = i64::from_val(v)?;
                <$t>::try_from(i).map_err(|_| format!("{i} is out of range"))
            }
        }
    )*};
}
int_from_sql!(i32, i16, u64, u32, u16, u8, usize);

impl FromSql for f64 {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Real(f) => Ok(f),
            Val::Int(i) => Ok(i as f64),
            other => mismatch(&other),
        }
    }
}
impl FromSql for bool {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Bool(b) => Ok(b),
            Val::Int(i) => Ok(i != 0),
            other => mismatch(&other),
        }
    }
}
impl FromSql for String {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Text(s) => Ok(s),
            other => mismatch(&other),
        }
    }
}
impl FromSql for Vec<u8> {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Blob(b) => Ok(b),
            Val::Text(s) => Ok(s.into_bytes()),
            other => mismatch(&other),
        }
    }
}
impl FromSql for Val {
    fn from_val(v: Val) -> Result<Self, String> {
        Ok(v)
    }
}
impl<T: FromSql> FromSql for Option<T> {
    fn from_val(v: Val) -> Result<Self, String> {
        match v {
            Val::Null => Ok(None),
            v => T::from_val(v).map(Some),
        }
    }
}
