//! The line_item concept.
