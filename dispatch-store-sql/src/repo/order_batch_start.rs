//! What a POST /orders batch checked in its write transaction reads first, in one statement on
//! PostgreSQL ([`Db::batch_start`]).

use std::collections::HashMap;

use crate::sql::{params_from_iter, Connection, OptionalExtension, Statement, ToSql as _};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{BatchStart, StoreError};

use super::order_lookup::{catalog_row, catalog_values, catalog_with_sizes};
use super::organisation::{depot, DEPOT_COLUMNS};
use super::{Db, Sql};

/// Where the custom statuses' column follows the depot's ([`DEPOT_COLUMNS`]).
const STATUSES: usize = 15;

impl<C: Connection> Db<C> {
    /// The depot with its organisation's custom order statuses, the depot's catalog and the
    /// stored orders among `numbers` ([`catalog_with_sizes`], `unless_first_new` as there) in
    /// one statement (PostgreSQL): the depot's row with two JSON columns, the statuses and the
    /// catalog's rows. Nothing but the depot's row is read when the depot is not there.
    pub(super) fn batch_start(
        &self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<Option<BatchStart>, StoreError> {
        let organisation = if unless_first_new { 4 } else { 3 };
        let sql = format!(
            "SELECT {DEPOT_COLUMNS}, (SELECT json_agg(c.status ORDER BY c.id) \
             FROM custom_order_statuses c WHERE c.organisation_id = d.organisation_id), \
             (SELECT json_agg(json_build_array(b.list, b.id, b.name) ORDER BY b.list, b.id) \
             FROM ({}) b(list, id, name)) \
             FROM depots d WHERE id = ?1 AND organisation_id = ?{organisation}",
            catalog_with_sizes(unless_first_new)
        );
        let mut values = catalog_values(scope, numbers, unless_first_new);
        values.push(scope.organisation_id.to_val());
        let found = self
            .0
            .prepare_cached(&sql)
            .st()?
            .query_row(params_from_iter(values), |r| {
                Ok((
                    depot(r)?,
                    r.get::<_, Option<String>>(STATUSES)?,
                    r.get::<_, Option<String>>(STATUSES + 1)?,
                ))
            })
            .optional()
            .st()?;
        let Some((depot, statuses, rows)) = found else {
            return Ok(Some(BatchStart {
                depot: None,
                catalog: Catalog::default(),
                stored: HashMap::new(),
            }));
        };
        let corrupt = |what: &str| StoreError::Backend(format!("corrupt {what}"));
        let statuses: Vec<String> = match statuses {
            Some(json) => serde_json::from_str(&json).map_err(|_| corrupt("order statuses"))?,
            None => Vec::new(),
        };
        let rows: Vec<(i64, i64, String)> = match rows {
            Some(json) => serde_json::from_str(&json).map_err(|_| corrupt("catalog"))?,
            None => Vec::new(),
        };
        let (mut catalog, mut stored) = (Catalog::default(), HashMap::new());
        for (list, id, name) in rows {
            catalog_row(&mut catalog, &mut stored, list, id, name);
        }
        Ok(Some(BatchStart {
            depot: Some((depot, statuses)),
            catalog,
            stored,
        }))
    }
}
