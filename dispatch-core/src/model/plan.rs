//! The plan concept.
