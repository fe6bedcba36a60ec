//! The customer concept.
