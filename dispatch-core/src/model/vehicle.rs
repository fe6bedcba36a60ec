//! The vehicle concept.
