//! The zone concept.
