//! The organisation concept.
