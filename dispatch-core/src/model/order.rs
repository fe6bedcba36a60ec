//! The order concept.
