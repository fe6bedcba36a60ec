//! The outbound adapters against fake servers on loopback: the OSRM table client and the
//! Nominatim geocoder.

mod geocoder;
mod osrm;
