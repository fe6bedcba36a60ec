//! Keyset paging shared by every list: most recently updated first, ties broken by id
//! (descending). A page is requested *after* the last row of the previous page, so inserts
//! and updates between requests never shift or repeat rows.

use crate::time::Timestamp;

/// Position in a list: the sort key of the last row of the previous page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// `updated` of that row.
    pub updated: Timestamp,
    /// `id` of that row.
    pub id: i64,
}

/// One page request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// Only rows strictly after this position (in list order); `None` for the first page.
    pub after: Option<Cursor>,
    /// Maximum rows on the page (1-100).
    pub limit: usize,
    /// Only rows updated at or after this instant.
    pub updated_at_min: Option<Timestamp>,
}

/// One page of rows and where the next one starts (`None` on the last page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The rows, in list order.
    pub items: Vec<T>,
    /// Cursor for the next page, present only when more rows follow.
    pub next: Option<Cursor>,
}
