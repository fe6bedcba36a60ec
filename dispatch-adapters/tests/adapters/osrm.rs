//! The OSRM adapters against a small fake OSRM server on loopback that answers real `/table`
//! and `/route` JSON (the shapes of OSRM 5's table and route services, waypoints included),
//! enforces a size limit like `osrm-routed --max-table-size` / `--max-viaroute-size`, and can
//! answer errors or unroutable pairs. Its roads run east-west first, then north-south.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use dispatch_adapters::travel::{FallbackPolicy, OsrmMatrix, OsrmRoads, WithFallback};
use dispatch_core::ports::matrix::{GreatCircle, MatrixError, Point, TravelError, TravelMatrix};
use dispatch_core::ports::roads::{RoadError, RoadGeometry};
use serde_json::{json, Value};

/// Travel the fake router reports: 1e5 s per degree of longitude, 2e5 per degree of latitude,
/// 7 s more eastwards (asymmetric), plus fractions to exercise rounding; metres are ten times
/// the seconds.
fn fake_duration(a: (f64, f64), b: (f64, f64)) -> f64 {
    let east = if b.0 > a.0 { 7.0 } else { 0.0 };
    (a.0 - b.0).abs() * 1e5 + (a.1 - b.1).abs() * 2e5 + east + 0.4
}

#[derive(Clone, Copy, PartialEq)]
enum Behaviour {
    Ok,
    /// `null` between the first two coordinates of each request.
    Unroutable,
    /// A 400 with OSRM's error body.
    Error,
}

struct FakeOsrm {
    url: String,
    requests: Arc<AtomicUsize>,
    largest: Arc<AtomicUsize>,
}

/// The fake's road between two points: along the longitude first, then the latitude.
fn road(a: (f64, f64), b: (f64, f64)) -> [(f64, f64); 2] {
    [(b.0, a.1), b]
}

/// The points of a request path's `lng,lat;lng,lat;...`.
fn path_points(coords: &str) -> Vec<(f64, f64)> {
    coords
        .split(';')
        .map(|c| {
            let (x, y) = c.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// A `/route` answer: the line through every point, `overview=full`, GeoJSON.
fn route_answer(
    coords: &str,
    query: &str,
    max_points: usize,
    behaviour: Behaviour,
) -> (u16, Value) {
    let points = path_points(coords);
    if points.len() > max_points {
        return (
            400,
            json!({"code": "TooBig", "message": "Number of entries 101 is higher than current maximum (100)"}),
        );
    }
    if behaviour == Behaviour::Error {
        return (
            400,
            json!({"code": "NoRoute", "message": "Impossible route between points"}),
        );
    }
    assert!(
        query.contains("overview=full") && query.contains("geometries=geojson"),
        "{query}"
    );
    let mut line = vec![points[0]];
    for pair in points.windows(2) {
        line.extend(road(pair[0], pair[1]));
    }
    let coordinates: Vec<[f64; 2]> = line.iter().map(|p| [p.0, p.1]).collect();
    let waypoints: Vec<Value> = points
        .iter()
        .map(|p| json!({"hint": "x", "distance": 0.5, "name": "Main Street", "location": [p.0, p.1]}))
        .collect();
    (
        200,
        json!({"code": "Ok", "routes": [{
            "geometry": {"type": "LineString", "coordinates": coordinates},
            "legs": vec![json!({"steps": [], "summary": "", "weight": 1.0, "duration": 1.0, "distance": 1.0}); points.len() - 1],
            "weight_name": "routability", "weight": 1.0, "duration": 1.0, "distance": 1.0
        }], "waypoints": waypoints}),
    )
}

fn answer(path: &str, max_table: usize, behaviour: Behaviour) -> (u16, Value) {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    if let Some(coords) = route.strip_prefix("/route/v1/driving/") {
        return route_answer(coords, query, max_table, behaviour);
    }
    let Some(coords) = route.strip_prefix("/table/v1/driving/") else {
        return (
            400,
            json!({"code": "InvalidUrl", "message": "URL string malformed"}),
        );
    };
    let points = path_points(coords);
    if points.len() > max_table {
        return (
            400,
            json!({"code": "TooBig", "message": "Too many table coordinates"}),
        );
    }
    if behaviour == Behaviour::Error {
        return (
            400,
            json!({"code": "InvalidQuery", "message": "Query string malformed"}),
        );
    }
    let param = |name: &str| -> Vec<usize> {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .map(|v| v.split(';').map(|i| i.parse().unwrap()).collect())
            .unwrap_or_else(|| (0..points.len()).collect())
    };
    assert!(query.contains("annotations=duration,distance"), "{query}");
    let (sources, destinations) = (param("sources"), param("destinations"));
    let cell = |i: usize, j: usize, scale: f64| -> Value {
        if i == j {
            json!(0.0)
        } else if behaviour == Behaviour::Unroutable && i == 0 && j == 1 {
            Value::Null
        } else {
            json!(fake_duration(points[i], points[j]) * scale)
        }
    };
    let table = |scale: f64| -> Value {
        sources
            .iter()
            .map(|&i| {
                destinations
                    .iter()
                    .map(|&j| cell(i, j, scale))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let waypoint = |&i: &usize| json!({"hint": "x", "distance": 0.5, "name": "Main Street", "location": [points[i].0, points[i].1]});
    (
        200,
        json!({
            "code": "Ok",
            "durations": table(1.0),
            "distances": table(10.0),
            "sources": sources.iter().map(waypoint).collect::<Vec<_>>(),
            "destinations": destinations.iter().map(waypoint).collect::<Vec<_>>(),
        }),
    )
}

/// Answers one request, counting it (and its coordinates) before the answer goes out: a client
/// that has its answer sees its request counted.
fn serve_one(
    mut stream: TcpStream,
    max_table: usize,
    behaviour: Behaviour,
    requests: &AtomicUsize,
    largest: &AtomicUsize,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap() == 0 || header == "\r\n" {
            break;
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let coordinates = path.split('?').next().unwrap().split(';').count();
    requests.fetch_add(1, Ordering::SeqCst);
    largest.fetch_max(coordinates, Ordering::SeqCst);
    let (status, body) = answer(&path, max_table, behaviour);
    let body = body.to_string();
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn fake_osrm(max_table: usize, behaviour: Behaviour) -> FakeOsrm {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let largest = Arc::new(AtomicUsize::new(0));
    let (r, l) = (requests.clone(), largest.clone());
    // The thread ends with the test process; it only ever accepts loopback connections.
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            serve_one(stream, max_table, behaviour, &r, &l);
        }
    });
    FakeOsrm {
        url,
        requests,
        largest,
    }
}

fn client(url: &str, max_table: usize) -> OsrmMatrix {
    OsrmMatrix::new(url, "driving", max_table, Duration::from_secs(10)).unwrap()
}

fn points(n: usize) -> Vec<Point> {
    (0..n)
        .map(|i| Point::new(13.0 + (i % 7) as f64 * 0.013, 52.0 + (i / 7) as f64 * 0.011))
        .collect()
}

fn expected(p: &[Point], i: usize, j: usize) -> (i64, i64) {
    if i == j {
        return (0, 0);
    }
    let d = fake_duration((p[i].x, p[i].y), (p[j].x, p[j].y));
    (d.round() as i64, (d * 10.0).round() as i64)
}

#[test]
fn osrm_table_gives_rounded_seconds_and_metres_for_every_ordered_pair() {
    let osrm = fake_osrm(100, Behaviour::Ok);
    let pts = points(4);
    let m = client(&osrm.url, 100).matrix(&pts).unwrap();
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!((m.duration(i, j), m.distance(i, j)), expected(&pts, i, j));
        }
    }
    assert_ne!(m.duration(0, 1), m.duration(1, 0), "asymmetry is kept");
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 1);
}

#[test]
fn large_point_sets_are_chunked_within_the_servers_table_size() {
    let osrm = fake_osrm(10, Behaviour::Ok);
    let pts = points(23);
    let m = client(&osrm.url, 10).matrix(&pts).unwrap();
    for i in 0..23 {
        for j in 0..23 {
            assert_eq!(
                (m.duration(i, j), m.distance(i, j)),
                expected(&pts, i, j),
                "{i} {j}"
            );
        }
    }
    assert!(osrm.largest.load(Ordering::SeqCst) <= 10);
    // Blocks of 5: 5 blocks, one request per ordered pair of blocks.
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 25);
}

#[test]
fn unroutable_pairs_become_unreachable() {
    let osrm = fake_osrm(100, Behaviour::Unroutable);
    let m = client(&osrm.url, 100).matrix(&points(3)).unwrap();
    assert_eq!(
        m.duration(0, 1),
        dispatch_adapters::travel::osrm::UNREACHABLE
    );
    assert_eq!(
        m.distance(0, 1),
        dispatch_adapters::travel::osrm::UNREACHABLE
    );
    assert!(m.duration(1, 0) < 100_000);
}

#[test]
fn an_osrm_error_answer_is_unavailable_with_its_code_and_message() {
    let osrm = fake_osrm(100, Behaviour::Error);
    let err = client(&osrm.url, 100).matrix(&points(3)).unwrap_err();
    let MatrixError::Unavailable(why) = err else {
        panic!("{err:?}")
    };
    assert!(
        why.contains(&osrm.url) && why.contains("InvalidQuery"),
        "{why}"
    );
    assert!(why.contains("Query string malformed"), "{why}");
}

/// A loopback address nothing listens on.
fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

#[test]
fn router_down_falls_back_to_great_circle_or_fails_by_policy() {
    let url = closed_port();
    let pts = points(3);
    let gc = GreatCircle::new(40.0).unwrap();
    let down: Arc<dyn TravelMatrix> = Arc::new(client(&url, 100));
    let err = down.matrix(&pts).unwrap_err();
    assert!(
        matches!(&err, MatrixError::Unavailable(why) if why.contains(&url)),
        "{err:?}"
    );
    let lenient = WithFallback::new(down.clone(), gc, FallbackPolicy::GreatCircle);
    assert_eq!(
        lenient.matrix(&pts).unwrap(),
        TravelMatrix::matrix(&gc, &pts).unwrap()
    );
    let strict = WithFallback::new(down, gc, FallbackPolicy::Fail);
    assert!(matches!(
        strict.matrix(&pts),
        Err(MatrixError::Unavailable(_))
    ));
}

#[test]
fn invalid_points_are_refused_before_any_request() {
    let osrm = fake_osrm(100, Behaviour::Ok);
    let err = client(&osrm.url, 100)
        .matrix(&[Point::new(0.0, 0.0), Point::new(200.0, 0.0)])
        .unwrap_err();
    assert!(matches!(
        err,
        MatrixError::Travel(TravelError::InvalidPoint { index: 1, .. })
    ));
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 0);
}

fn roads(url: &str) -> OsrmRoads {
    OsrmRoads::new(url, "driving", Duration::from_secs(10)).unwrap()
}

/// The fake's line through `pts` as the adapter should give it.
fn road_line(pts: &[Point]) -> Vec<Point> {
    let mut line = vec![pts[0]];
    for pair in pts.windows(2) {
        for (x, y) in road((pair[0].x, pair[0].y), (pair[1].x, pair[1].y)) {
            line.push(Point::new(x, y));
        }
    }
    line
}

#[test]
fn osrm_route_gives_the_road_line_through_every_point_in_order() {
    let osrm = fake_osrm(100, Behaviour::Ok);
    let pts = points(4);
    let line = roads(&osrm.url).path(&pts).unwrap();
    assert_eq!(line, road_line(&pts));
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 1);
    // One point or none: nothing to ask.
    assert_eq!(roads(&osrm.url).path(&pts[..1]).unwrap(), pts[..1].to_vec());
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 1);
}

#[test]
fn long_routes_are_asked_in_pieces_that_join_where_they_meet() {
    let osrm = fake_osrm(100, Behaviour::Ok);
    let pts = points(230);
    let line = roads(&osrm.url).path(&pts).unwrap();
    assert_eq!(
        line,
        road_line(&pts),
        "the pieces join without a gap or a repeated point"
    );
    // 0..100, 99..199, 198..230: each piece starts at the last one's end.
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 3);
    assert!(osrm.largest.load(Ordering::SeqCst) <= 100);
}

#[test]
fn a_route_osrm_refuses_or_cannot_reach_is_unavailable_and_bad_points_ask_nothing() {
    let osrm = fake_osrm(100, Behaviour::Error);
    let err = roads(&osrm.url).path(&points(3)).unwrap_err();
    let RoadError::Unavailable(why) = err else {
        panic!("{err:?}")
    };
    assert!(why.contains("NoRoute") && why.contains(&osrm.url), "{why}");
    let down = closed_port();
    assert!(matches!(
        roads(&down).path(&points(3)),
        Err(RoadError::Unavailable(why)) if why.contains(&down)
    ));
    let ok = fake_osrm(100, Behaviour::Ok);
    let err = roads(&ok.url)
        .path(&[Point::new(0.0, 0.0), Point::new(0.0, 95.0)])
        .unwrap_err();
    assert_eq!(err, RoadError::InvalidPoint { index: 1 });
    assert_eq!(ok.requests.load(Ordering::SeqCst), 0);
}
