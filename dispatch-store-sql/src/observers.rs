//! Telling the process that a commit appended outbox events: how the webhook worker of `serve`
//! hears of new events at once. Commits of other processes (another node, `seed` next to
//! `serve`) are not seen; their readers poll.

use std::sync::{Arc, RwLock};

use dispatch_core::ports::store::StoreError;

use crate::repo::outbox::{set_appended, take_appended};

/// Called after a commit that appended outbox events.
type Observer = Arc<dyn Fn() + Send + Sync>;

/// The observers of one store's commits.
#[derive(Default)]
pub struct OutboxObservers(RwLock<Vec<Observer>>);

impl OutboxObservers {
    /// Calls `observer` after every commit of [`OutboxObservers::write`] that appended outbox
    /// events (never for a rolled-back one), on the committing thread.
    pub fn add(&self, observer: impl Fn() + Send + Sync + 'static) {
        self.0
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::new(observer));
    }

    /// Runs `transaction` (a whole write transaction, `BEGIN` to `COMMIT`, on this thread) and
    /// tells the observers when it committed events. A transaction nested in another one's
    /// closure keeps the enclosing one's mark.
    pub fn write(
        &self,
        transaction: impl FnOnce() -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let enclosing = take_appended();
        let result = transaction();
        let appended = take_appended();
        set_appended(enclosing);
        if result.is_ok() && appended {
            for observer in self.0.read().unwrap_or_else(|e| e.into_inner()).iter() {
                observer();
            }
        }
        result
    }
}
