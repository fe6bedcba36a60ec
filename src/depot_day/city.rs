//! The city: where the depot, the customers and the suppliers are, and how long driving between
//! two of them takes.
//!
//! Positions are metres east and north of the city centre in a 36 km square. Customers sit in
//! neighbourhood clusters (dense near the centre, wider outside) over a thinner background whose
//! density falls with the distance from the centre; the depot is in an industrial zone at the
//! edge. Travel time is road distance (straight line times a detour factor, plus an access
//! distance) over a speed that grows from 18 km/h in the centre to 48 km/h at the ring, made
//! asymmetric by a radial term (inbound slower than outbound, as in morning traffic) and a
//! per-direction noise of -5 % to +10 % (one-way streets, turns).

use super::rng::{mix, Rng};

/// Half the side of the city square, metres.
const HALF_SIDE: f64 = 18_000.0;
/// Road distance over straight-line distance.
const DETOUR: f64 = 1.35;
/// Metres added to every trip between two different places (parking, access roads).
const ACCESS_M: f64 = 250.0;
/// Degrees of latitude per metre, and of longitude per metre at the reference latitude
/// (cos 50.85 deg = 0.631, written out so no platform's `cos` enters the output).
const LAT_PER_M: f64 = 1.0 / 110_540.0;
const LON_PER_M: f64 = 1.0 / (111_320.0 * 0.631);
/// The map reference point of the centre (a mid-sized European city).
const CENTRE_LON_LAT: (f64, f64) = (4.35, 50.85);

/// A place in the city, metres from the centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Spot {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

impl Spot {
    fn radius(self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// `[lon, lat]` rounded to six decimals (about 0.1 m), for maps and VROOM's `location`.
    pub(crate) fn lon_lat(self) -> [f64; 2] {
        let round = |v: f64| (v * 1e6).round() / 1e6;
        [
            round(CENTRE_LON_LAT.0 + self.x * LON_PER_M),
            round(CENTRE_LON_LAT.1 + self.y * LAT_PER_M),
        ]
    }
}

/// Neighbourhoods of a city and a depot.
pub(crate) struct City {
    pub(crate) depot: Spot,
    clusters: Vec<(Spot, f64)>,
    weights: Vec<f64>,
    noise_seed: u64,
}

fn clamp(v: f64) -> f64 {
    v.clamp(-HALF_SIDE, HALF_SIDE)
}

impl City {
    /// A city with `clusters` neighbourhoods.
    pub(crate) fn new(rng: &mut Rng, clusters: usize) -> City {
        let side = if rng.chance(0.5) { 1.0 } else { -1.0 };
        let depot = Spot {
            x: side * (11_000.0 + 3_000.0 * rng.unit()),
            y: -4_000.0 + 8_000.0 * rng.unit(),
        };
        let mut list = Vec::new();
        let mut weights = Vec::new();
        for _ in 0..clusters {
            let centre = Spot {
                x: clamp(rng.normal() * 7_000.0),
                y: clamp(rng.normal() * 7_000.0),
            };
            // Central neighbourhoods are compact, outer ones sprawl.
            let spread = 400.0 + centre.radius() * 0.08 + 600.0 * rng.unit();
            list.push((centre, spread));
            weights.push(0.5 + rng.unit());
        }
        City {
            depot,
            clusters: list,
            weights,
            noise_seed: rng.next_u64(),
        }
    }

    /// A customer address: in a neighbourhood (three in four) or in the background.
    pub(crate) fn address(&self, rng: &mut Rng) -> Spot {
        if rng.chance(0.75) {
            let (c, spread) = self.clusters[rng.weighted(&self.weights)];
            Spot {
                x: clamp(c.x + rng.normal() * spread),
                y: clamp(c.y + rng.normal() * spread),
            }
        } else {
            // Radius ~ square of a uniform: density falls off away from the centre. The
            // direction is a uniform point on the square's border, normalised.
            let r = 16_000.0 * rng.unit() * rng.unit().sqrt();
            let (dx, dy) = (rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0);
            let norm = (dx * dx + dy * dy).sqrt().max(1e-9);
            Spot {
                x: clamp(r * dx / norm),
                y: clamp(r * dy / norm),
            }
        }
    }

    /// Whole seconds of driving from `a` (place number `i`) to `b` (place number `j`).
    pub(crate) fn travel(&self, i: usize, a: Spot, j: usize, b: Spot) -> u64 {
        if i == j {
            return 0;
        }
        let (dx, dy) = (a.x - b.x, a.y - b.y);
        let straight = (dx * dx + dy * dy).sqrt();
        if straight < 1.0 {
            return 0;
        }
        let road = straight * DETOUR + ACCESS_M;
        let mid = Spot {
            x: (a.x + b.x) / 2.0,
            y: (a.y + b.y) / 2.0,
        };
        let kmh = 18.0 + 30.0 * (mid.radius() / 14_000.0).min(1.0);
        let seconds = road / (kmh / 3.6);
        let inbound = 1.0 + 0.06 * (a.radius() - b.radius()) / 10_000.0;
        let h = mix(self.noise_seed ^ ((i as u64) << 32 | j as u64));
        let noise = 0.95 + 0.15 * ((h >> 11) as f64 / (1u64 << 53) as f64);
        (seconds * inbound * noise).round() as u64
    }
}
