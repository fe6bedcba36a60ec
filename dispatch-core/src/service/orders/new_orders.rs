//! A POST /orders batch of new orders on a store whose writers run one at a time: the work of
//! the write transaction is done before it (the stored numbers and the catalog read in a
//! snapshot of their own, every order merged and its rows made ready by the store), and the
//! transaction, which owns what it needs, only checks and inserts. Owning it lets the store run
//! it on a writer thread of its own ([`Store::run_owned_write`]), which keeps the write lock
//! while such batches queue and gets a core before request handling does.

use super::batch::{back_to_posted, Batch};
use super::{under, WrittenOrder};
use crate::model::order_fields::Catalog;
use crate::model::order_merge::merge_reads_catalog;
use crate::ports::idempotency::SharedBeforeCommit;
use crate::ports::store::{Store, StoreError};
use crate::service::customers::catalog;
use crate::service::order_references::References;
use crate::service::ServiceError;

/// Why a batch of new orders made ready before its transaction goes the ordinary way after all.
enum NewOrders {
    /// The depot changed under it: another write stored one of its numbers first, or the
    /// catalog its orders name changed.
    Stale,
    /// The write failed.
    Failed(ServiceError),
}

impl From<StoreError> for NewOrders {
    fn from(e: StoreError) -> Self {
        NewOrders::Failed(e.into())
    }
}

impl Batch<'_> {
    /// Writes a batch of new orders (no customer, no exchange pair, no number the depot holds)
    /// with the work of the write transaction done before it: the stored numbers (and the
    /// catalog, if the batch names any of it) read in a snapshot of their own, every order
    /// merged and its rows made ready by the store ([`Store::prepare_new_orders`]), so the
    /// transaction only checks the references, reads the catalog again if the batch names any
    /// of it and inserts. `None` when the batch is not one of ordinary new orders (a number is
    /// stored, a merge fails, its text is large) or the depot changed in between (a number
    /// inserted by another write first, which the unique index refuses; another catalog): the
    /// caller writes it the ordinary way, which answers alike, problems in the batch's order.
    pub(super) fn write_new(
        &self,
        store: &dyn Store,
        last: &SharedBeforeCommit<Vec<WrittenOrder>>,
    ) -> Result<Option<Vec<WrittenOrder>>, ServiceError> {
        let Batch {
            scope,
            all,
            ref order,
            ..
        } = *self;
        let numbers = self.numbers();
        // Orders that name no reference data merge alike whatever the catalog holds.
        let reads_catalog = order.iter().any(|&i| merge_reads_catalog(&all[i]));
        let (known, stored) = store.read(|tx| {
            let known = match reads_catalog {
                true => catalog(tx, scope)?,
                false => Catalog::default(),
            };
            Ok::<_, StoreError>((known, tx.stored_order_numbers(scope, &numbers)?))
        })?;
        if !stored.is_empty() {
            return Ok(None);
        }
        let Some((mut written, orders)) = self.merge_as_new(self.context(&known)) else {
            return Ok(None);
        };
        let prepared = store.prepare_new_orders(scope, orders);
        // What the transaction checks, owned: the references of the orders that name any, in
        // the batch's order (the first missing one answers, as the ordinary way would).
        let references: Vec<(usize, References)> = order
            .iter()
            .map(|&i| (i, References::of(&all[i])))
            .filter(|(_, r)| !r.is_empty())
            .collect();
        let last = last.clone();
        let outcome = store.owned_transaction_in(scope, move |tx| {
            if reads_catalog && catalog(tx, scope)? != known {
                return Err(NewOrders::Stale);
            }
            for (i, references) in &references {
                references
                    .check(tx, scope)
                    .map_err(|e| NewOrders::Failed(under(e, *i)))?;
            }
            let ids = match tx.insert_prepared_orders(scope, prepared) {
                Err(StoreError::Conflict(_)) => return Err(NewOrders::Stale),
                ids => ids?,
            };
            for (w, id) in written.iter_mut().zip(ids) {
                w.id = id;
            }
            last.before_commit(tx, &written)?;
            Ok(written)
        });
        match outcome {
            Ok(written) => Ok(Some(back_to_posted(order, written))),
            Err(NewOrders::Stale) => Ok(None),
            Err(NewOrders::Failed(e)) => Err(e),
        }
    }
}
