//! The Nominatim geocoder and the remembering layer in front of it, against a fake geocoder on
//! loopback: a found address, nothing found, a timeout, 429 and 5xx, the pace of requests,
//! and the remembered answers (an address asked once; a gazetteer entry never asked).

#[path = "support/fake_geocoder.rs"]
mod fake_geocoder;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use dispatch_adapters::geocoding::{Nominatim, Remembering, NOT_FOUND_KEPT_MS};
use dispatch_core::model::location::Coordinates;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::clock::ManualClock;
use dispatch_core::ports::geocoder::{GazetteerEntry, GeocodeError, GeocodeQuery, Geocoder};
use dispatch_core::ports::store::{InMemoryStore, Store, StoreError};
use dispatch_core::time::Timestamp;
use fake_geocoder::{Behaviour, FakeGeocoder};

const SCOPE: DepotScope = DepotScope {
    organisation_id: 1,
    depot_id: 1,
};

fn query<'a>(address: &'a str, postcode: Option<&'a str>) -> GeocodeQuery<'a> {
    GeocodeQuery {
        scope: SCOPE,
        address: Some(address),
        postcode,
        country: Some("GB"),
    }
}

/// A client of `fake` allowing `per_second` requests, with a 2 s timeout.
fn client(fake: &FakeGeocoder, per_second: f64) -> Nominatim {
    Nominatim::new(fake.url(), Duration::from_secs(2), per_second).unwrap()
}

#[test]
fn a_known_address_gives_its_position_asked_as_nominatim_expects() {
    let fake = FakeGeocoder::start();
    fake.add("10 Downing Street", 51.5034, -0.1276);
    let found = client(&fake, 50.0)
        .geocode(&query(" 10 Downing Street ", Some("SW1A 2AA")))
        .unwrap();
    assert_eq!(
        found,
        Coordinates {
            lat: 51.5034,
            lng: -0.1276
        }
    );
    let asked = &fake.received()[0];
    assert_eq!(asked.path, "/search");
    let param = |name: &str| asked.params.get(name).map(String::as_str);
    assert_eq!(param("q"), Some("10 Downing Street, SW1A 2AA"));
    assert_eq!(param("format"), Some("jsonv2"));
    assert_eq!(param("limit"), Some("1"));
    assert_eq!(param("countrycodes"), Some("gb"));
    let agent = asked.user_agent.as_deref().unwrap_or_default();
    assert!(agent.starts_with("dispatch/"), "User-Agent: {agent}");
}

#[test]
fn the_full_search_url_is_taken_as_given_and_bad_settings_are_refused() {
    let fake = FakeGeocoder::start();
    fake.add("1 High St", 1.0, 2.0);
    let full = format!("{}/search/", fake.url());
    let geocoder = Nominatim::new(&full, Duration::from_secs(2), 50.0).unwrap();
    assert!(geocoder.geocode(&query("1 High St", None)).is_ok());
    assert_eq!(fake.received()[0].path, "/search");
    assert!(Nominatim::new("nominatim.example", Duration::from_secs(1), 1.0).is_err());
    assert!(Nominatim::new(fake.url(), Duration::from_secs(1), 0.0).is_err());
}

#[test]
fn a_failure_names_neither_the_credentials_of_the_url_nor_the_address_asked() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = format!("http://user:pass-5f3c@127.0.0.1:{port}/?key=token-1a6d");
    let geocoder = Nominatim::new(&url, Duration::from_secs(2), 50.0).unwrap();
    let answer = geocoder.geocode(&query("7 Private Road", None));
    let Err(GeocodeError::Unavailable(why)) = answer else {
        panic!("{answer:?}");
    };
    for secret in ["pass-5f3c", "token-1a6d", "Private"] {
        assert!(!why.contains(secret), "{why}");
    }
}

#[test]
fn an_address_nobody_knows_is_no_match() {
    let fake = FakeGeocoder::start();
    let answer = client(&fake, 50.0).geocode(&query("Nowhere Lane", None));
    assert_eq!(answer, Err(GeocodeError::NoMatch));
    assert_eq!(fake.count(), 1);
}

#[test]
fn a_slow_geocoder_is_unavailable_after_the_timeout() {
    let fake = FakeGeocoder::start();
    fake.add("1 High St", 1.0, 2.0);
    fake.set(Behaviour::Slow(Duration::from_secs(5)));
    let geocoder = Nominatim::new(fake.url(), Duration::from_millis(300), 50.0).unwrap();
    let started = Instant::now();
    let answer = geocoder.geocode(&query("1 High St", None));
    assert!(
        matches!(&answer, Err(GeocodeError::Unavailable(why)) if why.contains("geocoder at")),
        "{answer:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "waited the whole answer"
    );
}

#[test]
fn refusals_and_server_errors_are_unavailable_not_no_match() {
    for status in [429, 500, 502, 503] {
        let fake = FakeGeocoder::start();
        fake.add("1 High St", 1.0, 2.0);
        fake.set(Behaviour::Status(status));
        let answer = client(&fake, 50.0).geocode(&query("1 High St", None));
        assert!(
            matches!(&answer, Err(GeocodeError::Unavailable(why)) if why.contains(&status.to_string())),
            "{status}: {answer:?}"
        );
    }
}

#[test]
fn a_429_holds_the_next_request_back_by_its_retry_after() {
    let fake = FakeGeocoder::start();
    fake.add("1 High St", 1.0, 2.0);
    fake.set(Behaviour::Status(429));
    let geocoder = client(&fake, 50.0);
    assert!(geocoder.geocode(&query("1 High St", None)).is_err());
    fake.set(Behaviour::Answer);
    assert!(geocoder.geocode(&query("1 High St", None)).is_ok());
    let times: Vec<Instant> = fake.received().iter().map(|r| r.at).collect();
    // The fake says `Retry-After: 1`; a little margin for the clocks of two threads.
    assert!(
        times[1] - times[0] >= Duration::from_millis(900),
        "{times:?}"
    );
}

#[test]
fn requests_from_many_threads_keep_to_the_rate() {
    let fake = FakeGeocoder::start();
    let geocoder = Arc::new(client(&fake, 4.0));
    let asking: Vec<_> = (0..3)
        .map(|t| {
            let geocoder = geocoder.clone();
            thread::spawn(move || {
                for i in 0..2 {
                    let _ = geocoder.geocode(&query(&format!("{t} Rate Street {i}"), None));
                }
            })
        })
        .collect();
    for t in asking {
        t.join().unwrap();
    }
    let mut times: Vec<Instant> = fake.received().iter().map(|r| r.at).collect();
    times.sort();
    assert_eq!(times.len(), 6);
    // 4 a second: 250 ms apart, less a margin for scheduling.
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] >= Duration::from_millis(200), "{times:?}");
    }
}

/// The service's geocoder over an in-memory store and a fake, on a clock the test moves.
fn remembering(fake: &FakeGeocoder) -> (Remembering, Arc<InMemoryStore>, Arc<ManualClock>) {
    let store = Arc::new(InMemoryStore::new());
    let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_700_000_000_000)));
    let geocoder = Remembering::new(store.clone(), Arc::new(client(fake, 50.0)), clock.clone());
    (geocoder, store, clock)
}

#[test]
fn an_address_is_asked_once_however_it_is_spaced_or_cased() {
    let fake = FakeGeocoder::start();
    fake.add("1 High St", 51.5, -0.1);
    let (geocoder, _, _) = remembering(&fake);
    let first = geocoder.geocode(&query("1 High St", None)).unwrap();
    let again = geocoder.geocode(&query("  1  HIGH st", None)).unwrap();
    assert_eq!(first, again);
    assert_eq!(fake.count(), 1);
}

#[test]
fn nothing_found_is_remembered_for_a_day_then_asked_again() {
    let fake = FakeGeocoder::start();
    let (geocoder, _, clock) = remembering(&fake);
    let lane = query("Nowhere Lane", None);
    assert_eq!(geocoder.geocode(&lane), Err(GeocodeError::NoMatch));
    assert_eq!(geocoder.geocode(&lane), Err(GeocodeError::NoMatch));
    assert_eq!(fake.count(), 1);
    fake.add("Nowhere Lane", 52.0, 0.5);
    clock.advance_millis(NOT_FOUND_KEPT_MS);
    assert!(geocoder.geocode(&lane).is_ok());
    assert_eq!(fake.count(), 2);
}

#[test]
fn a_failure_to_ask_is_not_remembered() {
    let fake = FakeGeocoder::start();
    fake.add("1 High St", 51.5, -0.1);
    fake.set(Behaviour::Status(503));
    let (geocoder, _, _) = remembering(&fake);
    assert!(matches!(
        geocoder.geocode(&query("1 High St", None)),
        Err(GeocodeError::Unavailable(_))
    ));
    fake.set(Behaviour::Answer);
    assert!(geocoder.geocode(&query("1 High St", None)).is_ok());
    assert_eq!(fake.count(), 2);
}

#[test]
fn the_depots_gazetteer_answers_first_and_the_geocoder_is_not_asked() {
    let fake = FakeGeocoder::start();
    fake.add("Depot Road 1", 10.0, 10.0);
    let (geocoder, store, _) = remembering(&fake);
    let pinned = Coordinates {
        lat: 51.25,
        lng: -0.5,
    };
    let shared: &dyn Store = &*store;
    shared
        .transaction(|tx| {
            tx.upsert_gazetteer_entry(
                SCOPE,
                &GazetteerEntry {
                    address: Some("Depot Road 1".into()),
                    postcode: None,
                    location: pinned,
                },
            )
        })
        .map_err(|e: StoreError| e)
        .unwrap();
    assert_eq!(geocoder.geocode(&query("depot road 1", None)), Ok(pinned));
    assert_eq!(fake.count(), 0);
}
