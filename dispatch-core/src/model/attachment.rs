//! The attachment concept.
