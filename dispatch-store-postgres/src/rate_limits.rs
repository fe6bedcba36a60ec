//! [`SharedRateLimits`] on PostgreSQL: every API node counts in `rate_limit_windows`, one
//! statement per request (`dispatch_rate_admit`, migration 0003), outside any transaction of
//! the store's, so it never waits for the write lock.

use dispatch_core::ports::rate_limit::{RateCaller, RateWindow, SharedRateLimits};
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::Timestamp;

use dispatch_store_sql::sql::{params, Connection as _};
use dispatch_store_sql::Sql;

use crate::pool::Pool;
use crate::sql::Pg;

/// The counters of one database.
pub struct PostgresRateLimits {
    pub(crate) pool: Pool,
}

impl SharedRateLimits for PostgresRateLimits {
    fn admit(
        &self,
        caller: RateCaller,
        tier: &str,
        windows: &[RateWindow],
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let (kind, id) = match caller {
            RateCaller::AccessKey(id) => ("key", id),
            RateCaller::DriverCredential(id) => ("driver", id),
        };
        let join = |f: fn(&RateWindow) -> i64| {
            windows
                .iter()
                .map(|w| f(w).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let conn = self.pool.get()?;
        Pg(&conn)
            .query_row(
                "SELECT dispatch_rate_admit(?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    kind,
                    id,
                    tier,
                    now.millis(),
                    join(|w| i64::from(w.limit)),
                    join(|w| w.period_ms)
                ],
                |row| row.get::<_, i64>(0),
            )
            .st()
    }
}
