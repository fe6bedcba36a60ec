//! Points on the earth.

/// A WGS 84 position in decimal degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coordinates {
    /// Latitude, -90 to 90.
    pub lat: f64,
    /// Longitude, -180 to 180.
    pub lng: f64,
}

impl Coordinates {
    /// The position, or `None` when either value is out of range or not finite.
    pub fn new(lat: f64, lng: f64) -> Option<Coordinates> {
        (valid_lat(lat) && valid_lng(lng)).then_some(Coordinates { lat, lng })
    }
}

/// True for a finite latitude within -90..=90.
pub fn valid_lat(lat: f64) -> bool {
    lat.is_finite() && (-90.0..=90.0).contains(&lat)
}

/// True for a finite longitude within -180..=180.
pub fn valid_lng(lng: f64) -> bool {
    lng.is_finite() && (-180.0..=180.0).contains(&lng)
}
