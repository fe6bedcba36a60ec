//! Realistic depot days for benchmarks: a seeded generator of VROOM-style JSON problems.
//!
//! One day of one depot in a city (`city`): `orders` orders, of which about one in seven is a
//! shipment (picked up at a supplier, delivered to a customer) and the rest jobs (nine in ten
//! deliveries from the depot, one in ten returns picked up and brought back). Every task carries
//! two capacity dimensions (kilograms and litres), some need skills (1 refrigerated, 2 tail lift
//! for heavy goods, 3 hazardous goods), 35 % have no time window, 50 % one and 15 % two (morning
//! and afternoon), and about one in seven has a priority. The fleet (about one vehicle per 26
//! tasks: vans and trucks) starts and ends at the depot, works staggered 9-10 hour shifts, takes a
//! lunch break (some also a short morning break) and carries the skills its equipment allows;
//! the sample set's fleet is sized so a good plan places nearly every task
//! ([`DaySpec::tasks_per_vehicle`] makes it larger). Travel times form an asymmetric
//! matrix of whole seconds (`matrices.car.durations`); every place also carries its `[lon, lat]`.
//!
//! The same [`DaySpec`] gives the same bytes on every platform (see `rng`). [`SAMPLE_SET`] is
//! the fixed set of sample depots the benchmarks use (`cargo run --release --example
//! depot_days`; `instances/depots/README.md`).

mod city;
mod rng;

use std::io::{self, Write};

use serde_json::{json, Value};

use city::{City, Spot};
use rng::Rng;

/// One generated day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DaySpec {
    /// Orders of the day (a shipment counts as one order of two tasks).
    pub orders: usize,
    /// Day number: different days of the same size differ in everything.
    pub day: u32,
    /// One vehicle per this many tasks. The sample set's [`TIGHT_FLEET`] leaves a few percent of
    /// the tasks without room; a larger fleet (a smaller number) gives a day on which every task
    /// can be placed, with the same orders: the fleet is drawn after them. Zero counts as one.
    pub tasks_per_vehicle: usize,
}

/// The sample set's fleet: one vehicle per 26 tasks, deliberately tight.
pub const TIGHT_FLEET: usize = 26;

/// The frozen sample depots: `(orders, day)`.
pub const SAMPLE_SET: &[DaySpec] = &[
    DaySpec::sample(50, 1),
    DaySpec::sample(100, 1),
    DaySpec::sample(200, 1),
    DaySpec::sample(400, 1),
    DaySpec::sample(400, 2),
    DaySpec::sample(400, 3),
    DaySpec::sample(400, 4),
    DaySpec::sample(800, 1),
    DaySpec::sample(800, 2),
    DaySpec::sample(800, 3),
    DaySpec::sample(800, 4),
    DaySpec::sample(2000, 1),
    DaySpec::sample(5000, 1),
];

impl DaySpec {
    /// A day with the sample set's tight fleet.
    pub const fn sample(orders: usize, day: u32) -> DaySpec {
        DaySpec {
            orders,
            day,
            tasks_per_vehicle: TIGHT_FLEET,
        }
    }

    /// The file name of this day: `depot-0400-2.json`, or `depot-5000-1-per18.json` for one
    /// vehicle per 18 tasks instead of the tight fleet.
    pub fn file_name(&self) -> String {
        if self.tasks_per_vehicle == TIGHT_FLEET {
            format!("depot-{:04}-{}.json", self.orders, self.day)
        } else {
            format!(
                "depot-{:04}-{}-per{}.json",
                self.orders, self.day, self.tasks_per_vehicle
            )
        }
    }

    fn seed(&self) -> u64 {
        rng::mix(((self.orders as u64) << 20) ^ u64::from(self.day) ^ 0xd1b5_4a32_d192_ed03)
    }
}

/// What a generated day holds, for manifests and tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaySummary {
    /// Jobs (single-stop orders).
    pub jobs: usize,
    /// Shipments (pickup-and-delivery orders).
    pub shipments: usize,
    /// Vehicles of the fleet.
    pub vehicles: usize,
    /// Rows (and columns) of the travel-time matrix.
    pub locations: usize,
}

/// Seconds after midnight.
const fn hm(h: u64, m: u64) -> u64 {
    h * 3600 + m * 60
}

struct Day {
    places: Vec<Spot>,
    vehicles: Vec<Value>,
    jobs: Vec<Value>,
    shipments: Vec<Value>,
}

impl Day {
    fn place(&mut self, spot: Spot) -> usize {
        self.places.push(spot);
        self.places.len() - 1
    }
}

/// Time windows of a stop: none, one of one to four hours, or a morning and an afternoon one.
fn time_windows(rng: &mut Rng) -> Vec<[u64; 2]> {
    let roll = rng.unit();
    if roll < 0.35 {
        Vec::new()
    } else if roll < 0.85 {
        let width = rng.range(4, 16) * 900;
        let start = rng.range(hm(8, 0) / 900, (hm(17, 0) - width) / 900) * 900;
        vec![[start, start + width]]
    } else {
        let a = rng.range(hm(8, 0) / 900, hm(10, 0) / 900) * 900;
        let b = rng.range(hm(13, 0) / 900, hm(15, 30) / 900) * 900;
        vec![
            [a, a + rng.range(4, 8) * 900],
            [b, b + rng.range(4, 8) * 900],
        ]
    }
}

/// Kilograms (skewed: most parcels are light) and litres (correlated with the weight).
fn amount(rng: &mut Rng) -> (u64, u64) {
    let u = rng.unit();
    let kg = 2 + (600.0 * u * u * u) as u64;
    let litres = (kg as f64 * (1.5 + 3.0 * rng.unit())) as u64 + 5;
    (kg, litres)
}

fn skills(rng: &mut Rng, kg: u64) -> Vec<u32> {
    let mut s = Vec::new();
    if rng.chance(0.08) {
        s.push(1);
    }
    if kg > 250 {
        s.push(2);
    }
    if rng.chance(0.03) {
        s.push(3);
    }
    s
}

fn priority(rng: &mut Rng) -> u64 {
    let roll = rng.unit();
    if roll < 0.85 {
        0
    } else if roll < 0.95 {
        rng.range(1, 50)
    } else {
        100
    }
}

fn stop(rng: &mut Rng, id: u64, index: usize, at: Spot) -> Value {
    let setup = [0, 30, 60, 120][rng.range(0, 3) as usize];
    let mut v = json!({
        "id": id,
        "location_index": index,
        "location": at.lon_lat(),
        "setup": setup,
        "service": 120 + rng.range(0, 16) * 30,
    });
    let tws = time_windows(rng);
    if !tws.is_empty() {
        v["time_windows"] = json!(tws);
    }
    v
}

fn vehicle(rng: &mut Rng, id: u64, depot: Spot) -> Value {
    let truck = rng.chance(0.3);
    let capacity = if truck { [3500, 24_000] } else { [1000, 7000] };
    let mut skills = Vec::new();
    if rng.chance(0.3) {
        skills.push(1);
    }
    if truck || rng.chance(0.2) {
        skills.push(2);
    }
    if rng.chance(0.2) {
        skills.push(3);
    }
    let start = hm(6, 30) + rng.range(0, 6) * 900;
    let end = start + hm(9, 0) + rng.range(0, 4) * 900;
    let mut breaks = vec![json!({
        "id": id * 10 + 1,
        "time_windows": [[hm(11, 30), hm(13, 30)]],
        "service": 1800,
    })];
    if rng.chance(0.3) {
        breaks.insert(
            0,
            json!({"id": id * 10, "time_windows": [[hm(9, 30), hm(10, 30)]], "service": 900}),
        );
    }
    json!({
        "id": id,
        "profile": "car",
        "description": if truck { "truck" } else { "van" },
        "start_index": 0,
        "end_index": 0,
        "start": depot.lon_lat(),
        "end": depot.lon_lat(),
        "capacity": capacity,
        "skills": skills,
        "time_window": [start, end],
        "breaks": breaks,
    })
}

fn build(spec: DaySpec) -> (Day, City) {
    let mut rng = Rng::new(spec.seed());
    let city = City::new(&mut rng, (6 + spec.orders / 60).min(40));
    let mut day = Day {
        places: Vec::new(),
        vehicles: Vec::new(),
        jobs: Vec::new(),
        shipments: Vec::new(),
    };
    let depot = day.place(city.depot);
    let mut tasks = 0usize;
    for k in 1..=spec.orders as u64 {
        let (kg, litres) = amount(&mut rng);
        let skills = skills(&mut rng, kg);
        let priority = priority(&mut rng);
        if rng.chance(1.0 / 7.0) {
            let (from, to) = (city.address(&mut rng), city.address(&mut rng));
            let (i, j) = (day.place(from), day.place(to));
            let pickup = stop(&mut rng, k, i, from);
            let delivery = stop(&mut rng, k, j, to);
            day.shipments.push(json!({
                "amount": [kg, litres], "skills": skills, "priority": priority,
                "pickup": pickup, "delivery": delivery,
            }));
            tasks += 2;
        } else {
            let at = city.address(&mut rng);
            let i = day.place(at);
            let mut job = stop(&mut rng, k, i, at);
            let key = if rng.chance(0.1) {
                "pickup"
            } else {
                "delivery"
            };
            job[key] = json!([kg, litres]);
            job["skills"] = json!(skills);
            job["priority"] = json!(priority);
            day.jobs.push(job);
            tasks += 1;
        }
    }
    let fleet = tasks.div_ceil(spec.tasks_per_vehicle.max(1)).max(2);
    for id in 1..=fleet as u64 {
        day.vehicles.push(vehicle(&mut rng, id, day.places[depot]));
    }
    (day, city)
}

/// Writes one day as VROOM-style JSON (one matrix row per line) and says what it holds.
pub fn write_day(spec: DaySpec, out: &mut impl Write) -> io::Result<DaySummary> {
    let (day, city) = build(spec);
    let compact = |v: &Vec<Value>| serde_json::to_string(v).expect("JSON values serialise");
    writeln!(out, "{{\"vehicles\":{},", compact(&day.vehicles))?;
    writeln!(out, "\"jobs\":{},", compact(&day.jobs))?;
    writeln!(out, "\"shipments\":{},", compact(&day.shipments))?;
    writeln!(out, "\"matrices\":{{\"car\":{{\"durations\":[")?;
    let n = day.places.len();
    let mut line = String::new();
    for (i, &a) in day.places.iter().enumerate() {
        line.clear();
        line.push('[');
        for (j, &b) in day.places.iter().enumerate() {
            if j > 0 {
                line.push(',');
            }
            line.push_str(&city.travel(i, a, j, b).to_string());
        }
        line.push_str(if i + 1 < n { "],\n" } else { "]\n" });
        out.write_all(line.as_bytes())?;
    }
    writeln!(out, "]}}}}}}")?;
    Ok(DaySummary {
        jobs: day.jobs.len(),
        shipments: day.shipments.len(),
        vehicles: day.vehicles.len(),
        locations: n,
    })
}
