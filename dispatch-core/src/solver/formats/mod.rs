//! Readers of instance file formats.
