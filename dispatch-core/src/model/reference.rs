//! The reference concept.
