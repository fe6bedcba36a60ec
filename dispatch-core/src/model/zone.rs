//! Zone groups and their zones: named polygons used to ask "which zone contains this place".

use crate::model::location::Coordinates;
use crate::time::Timestamp;

/// A named set of zones within a depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneGroup {
    /// Identifier.
    pub id: i64,
    /// Name, unique within the depot.
    pub name: String,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// One zone: a polygon inside a zone group.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    /// Identifier.
    pub id: i64,
    /// The group it belongs to.
    pub zone_group_id: i64,
    /// Name, unique within its group.
    pub name: String,
    /// Its outline.
    pub polygon: Polygon,
}

/// A simple polygon given by its corners, implicitly closed (the last corner joins the first).
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon(pub Vec<Coordinates>);

impl Polygon {
    /// Whether `p` lies inside the polygon (even-odd rule, ray cast along the latitude axis).
    /// Degrees are treated as planar coordinates, which is exact enough for city-sized zones;
    /// points exactly on an edge count as inside.
    pub fn contains(&self, p: Coordinates) -> bool {
        let corners = &self.0;
        if corners.len() < 3 {
            return false;
        }
        let mut inside = false;
        let mut j = corners.len() - 1;
        for i in 0..corners.len() {
            let (a, b) = (corners[i], corners[j]);
            if on_segment(a, b, p) {
                return true;
            }
            // Edge crosses the horizontal line through p, and the crossing is east of p.
            if (a.lat > p.lat) != (b.lat > p.lat) {
                let lng_at = a.lng + (p.lat - a.lat) / (b.lat - a.lat) * (b.lng - a.lng);
                if p.lng < lng_at {
                    inside = !inside;
                }
            }
            j = i;
        }
        inside
    }
}

fn on_segment(a: Coordinates, b: Coordinates, p: Coordinates) -> bool {
    let cross = (b.lat - a.lat) * (p.lng - a.lng) - (b.lng - a.lng) * (p.lat - a.lat);
    cross.abs() < 1e-12
        && p.lat >= a.lat.min(b.lat)
        && p.lat <= a.lat.max(b.lat)
        && p.lng >= a.lng.min(b.lng)
        && p.lng <= a.lng.max(b.lng)
}

/// The first zone (lowest id) whose polygon contains `p`.
pub fn locate(zones: &[Zone], p: Coordinates) -> Option<&Zone> {
    zones
        .iter()
        .filter(|z| z.polygon.contains(p))
        .min_by_key(|z| z.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(lat: f64, lng: f64) -> Coordinates {
        Coordinates { lat, lng }
    }

    fn square() -> Polygon {
        Polygon(vec![
            pt(51.49, -0.13),
            pt(51.51, -0.13),
            pt(51.51, -0.11),
            pt(51.49, -0.11),
        ])
    }

    #[test]
    fn square_contains_its_centre_and_not_outside_points() {
        let sq = square();
        assert!(sq.contains(pt(51.50, -0.12)));
        assert!(!sq.contains(pt(51.52, -0.12)));
        assert!(!sq.contains(pt(51.50, -0.10)));
        assert!(!sq.contains(pt(51.50, -0.14)));
    }

    #[test]
    fn edges_and_corners_count_as_inside() {
        let sq = square();
        assert!(sq.contains(pt(51.49, -0.12)));
        assert!(sq.contains(pt(51.51, -0.11)));
    }

    #[test]
    fn concave_polygon_excludes_its_notch() {
        // A "U": the notch between the arms is outside.
        let u = Polygon(vec![
            pt(0.0, 0.0),
            pt(0.0, 3.0),
            pt(3.0, 3.0),
            pt(3.0, 2.0),
            pt(1.0, 2.0),
            pt(1.0, 1.0),
            pt(3.0, 1.0),
            pt(3.0, 0.0),
        ]);
        assert!(u.contains(pt(0.5, 1.5)));
        assert!(u.contains(pt(2.0, 0.5)));
        assert!(!u.contains(pt(2.0, 1.5)));
    }

    proptest::proptest! {
        /// For rectangles the ray cast must agree with a plain bounds check, in any corner order.
        #[test]
        fn rectangles_agree_with_a_bounds_check(
            lat0 in -80.0f64..80.0, lng0 in -170.0f64..170.0,
            h in 0.001f64..5.0, w in 0.001f64..5.0,
            plat in -90.0f64..90.0, plng in -180.0f64..180.0,
            rotate in 0usize..4, reverse: bool,
        ) {
            let mut corners = vec![pt(lat0, lng0), pt(lat0 + h, lng0), pt(lat0 + h, lng0 + w), pt(lat0, lng0 + w)];
            corners.rotate_left(rotate);
            if reverse {
                corners.reverse();
            }
            let inside = (lat0..=lat0 + h).contains(&plat) && (lng0..=lng0 + w).contains(&plng);
            proptest::prop_assert_eq!(Polygon(corners).contains(pt(plat, plng)), inside);
        }
    }

    #[test]
    fn degenerate_polygons_contain_nothing() {
        assert!(!Polygon(vec![pt(0.0, 0.0), pt(1.0, 1.0)]).contains(pt(0.5, 0.5)));
    }

    #[test]
    fn locate_prefers_the_lowest_zone_id() {
        let zones = vec![
            Zone {
                id: 7,
                zone_group_id: 1,
                name: "b".into(),
                polygon: square(),
            },
            Zone {
                id: 3,
                zone_group_id: 1,
                name: "a".into(),
                polygon: square(),
            },
        ];
        assert_eq!(locate(&zones, pt(51.5, -0.12)).map(|z| z.id), Some(3));
        assert!(locate(&zones, pt(0.0, 0.0)).is_none());
    }
}
