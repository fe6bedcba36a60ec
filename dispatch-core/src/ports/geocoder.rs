//! Port: geocoder.
