//! The OSRM adapter against a small fake OSRM server on loopback that answers real `/table`
//! JSON (the shape of OSRM 5's table service, waypoints included), enforces a table-size limit
//! like `osrm-routed --max-table-size`, and can answer errors or unroutable pairs.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use dispatch_adapters::travel::{FallbackPolicy, OsrmMatrix, WithFallback};
use dispatch_core::ports::matrix::{GreatCircle, MatrixError, Point, TravelMatrix};
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

fn answer(path: &str, max_table: usize, behaviour: Behaviour) -> (u16, Value) {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    let Some(coords) = route.strip_prefix("/table/v1/driving/") else {
        return (
            400,
            json!({"code": "InvalidUrl", "message": "URL string malformed"}),
        );
    };
    let points: Vec<(f64, f64)> = coords
        .split(';')
        .map(|c| {
            let (x, y) = c.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
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

fn serve_one(mut stream: TcpStream, max_table: usize, behaviour: Behaviour) -> usize {
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
    let (status, body) = answer(&path, max_table, behaviour);
    let body = body.to_string();
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    coordinates
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
            let n = serve_one(stream, max_table, behaviour);
            r.fetch_add(1, Ordering::SeqCst);
            l.fetch_max(n, Ordering::SeqCst);
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
    assert!(matches!(err, MatrixError::InvalidPoint { index: 1, .. }));
    assert_eq!(osrm.requests.load(Ordering::SeqCst), 0);
}
