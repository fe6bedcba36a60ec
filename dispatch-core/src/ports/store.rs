//! Port: store.
