//! The notification concept.
