//! Port: matrix.
