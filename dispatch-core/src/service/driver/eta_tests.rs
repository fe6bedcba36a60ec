use super::*;
use crate::model::driver_visit::LatLng;
use crate::ports::matrix::GreatCircle;

/// A stop `deg` degrees east of (0, 0) with `service_s` of service: not reached yet, no
/// window, no break before it.
fn stop_east(stop_id: i64, deg: f64, service_s: i64) -> Ahead {
    Ahead {
        stop_id,
        point: Point::new(deg, 0.0),
        service_s,
        arrived: None,
        windows: vec![],
        pause_before: None,
    }
}

#[test]
fn etas_add_the_drive_and_the_planned_service_of_each_stop_ahead() {
    let speed = GreatCircle::new(36.0).unwrap(); // 10 m/s
    let from = TrackPoint {
        at: LatLng { lat: 0.0, lng: 0.0 },
        time: Timestamp::from_millis(1_000_000),
    };
    let east = |deg: f64| Point::new(deg, 0.0);
    let input = EtaInput {
        from,
        ahead: vec![stop_east(1, 0.01, 300), stop_east(2, 0.02, 300)],
    };
    let etas = estimate(&input, &speed).unwrap();
    let leg = speed
        .matrix(&[east(0.0), east(0.01)])
        .unwrap()
        .duration(0, 1);
    assert!(leg > 100 && leg < 120, "{leg}");
    let at = |e: &StopEstimate| (e.stop_id, e.start);
    assert_eq!(at(&etas[0]), (1, from.time.add_millis(leg * 1000)));
    assert_eq!(
        etas[0].arrival, etas[0].start,
        "no window: served on arrival"
    );
    let leg2 = speed
        .matrix(&[east(0.01), east(0.02)])
        .unwrap()
        .duration(0, 1);
    assert_eq!(
        at(&etas[1]),
        (2, from.time.add_millis((leg + 300 + leg2) * 1000))
    );
}

#[test]
fn a_stop_being_served_holds_the_next_eta_until_its_service_ends() {
    let speed = GreatCircle::new(36.0).unwrap();
    let arrived = Timestamp::from_millis(1_000_000);
    let input = EtaInput {
        from: TrackPoint {
            at: LatLng {
                lat: 0.0,
                lng: 0.01,
            },
            time: arrived.add_millis(60_000),
        },
        ahead: vec![
            Ahead {
                arrived: Some(arrived),
                ..stop_east(1, 0.01, 600)
            },
            stop_east(2, 0.01, 300),
        ],
    };
    let etas = estimate(&input, &speed).unwrap();
    assert_eq!(etas.len(), 1);
    assert_eq!(
        (etas[0].stop_id, etas[0].start),
        (2, arrived.add_millis(600_000))
    );
}

#[test]
fn an_early_driver_is_promised_the_window_opening_not_the_arrival() {
    let speed = GreatCircle::new(36.0).unwrap();
    let from = TrackPoint {
        at: LatLng { lat: 0.0, lng: 0.0 },
        time: Timestamp::from_millis(1_000_000),
    };
    let opens = from.time.add_millis(3_600_000);
    let window = vec![(opens, opens.add_millis(1_800_000))];
    let input = EtaInput {
        from,
        ahead: vec![
            Ahead {
                windows: vec![window.clone()],
                ..stop_east(1, 0.01, 600)
            },
            stop_east(2, 0.01, 300),
        ],
    };
    let etas = estimate(&input, &speed).unwrap();
    assert_eq!(
        (etas[0].stop_id, etas[0].start),
        (1, opens),
        "served when the window opens"
    );
    assert!(etas[0].arrival < opens, "arrives before it");
    assert_eq!(
        (etas[1].stop_id, etas[1].start),
        (2, opens.add_millis(600_000))
    );
    // Past every window the visit is late: it starts on arrival.
    let late = opens.add_millis(7_200_000);
    assert_eq!(service_start(late, &[window]), late);
}

#[test]
fn stored_etas_are_rewritten_only_when_the_estimate_moved_30_seconds() {
    let t = Timestamp::from_millis(10_000_000);
    assert!(eta_moved(None, t));
    assert!(!eta_moved(Some(t), t.add_millis(29_999)));
    assert!(!eta_moved(Some(t), t.add_millis(-29_999)));
    assert!(eta_moved(Some(t), t.add_millis(30_000)));
    assert!(eta_moved(Some(t), t.add_millis(-45_000)));
}

#[test]
fn minutes_to_arrival_round_up_and_never_go_negative() {
    let now = Timestamp::from_millis(0);
    assert_eq!(minutes_until(now, Timestamp::from_millis(1)), 1);
    assert_eq!(minutes_until(now, Timestamp::from_millis(600_000)), 10);
    assert_eq!(minutes_until(now, Timestamp::from_millis(-5)), 0);
}

fn two_stops_east(pause: Pause, from: TrackPoint) -> EtaInput {
    EtaInput {
        from,
        ahead: vec![
            stop_east(1, 0.01, 300),
            Ahead {
                pause_before: Some(pause),
                ..stop_east(2, 0.02, 300)
            },
        ],
    }
}

#[test]
fn a_break_planned_between_two_stops_delays_the_second_by_its_length() {
    let speed = GreatCircle::new(36.0).unwrap();
    let from = TrackPoint {
        at: LatLng { lat: 0.0, lng: 0.0 },
        time: Timestamp::from_millis(1_000_000),
    };
    let without = estimate(
        &two_stops_east(
            Pause {
                planned_start: from.time,
                length_s: 0,
            },
            from,
        ),
        &speed,
    )
    .unwrap();
    // The break's planned start lies before the first stop's end: taken when free.
    let pause = Pause {
        planned_start: from.time,
        length_s: 1800,
    };
    let with = estimate(&two_stops_east(pause, from), &speed).unwrap();
    assert_eq!(
        with[0].start, without[0].start,
        "the stop before is not moved"
    );
    assert_eq!(with[1].start, without[1].start.add_millis(1_800_000));
}

#[test]
fn a_break_under_way_between_stops_is_not_counted_twice() {
    let speed = GreatCircle::new(36.0).unwrap();
    let began = Timestamp::from_millis(1_000_000);
    // Ten minutes into a 30-minute break, between the stops: the drive starts at its end.
    let from = TrackPoint {
        at: LatLng {
            lat: 0.0,
            lng: 0.01,
        },
        time: began.add_millis(600_000),
    };
    let input = EtaInput {
        from,
        ahead: vec![Ahead {
            pause_before: Some(Pause {
                planned_start: began,
                length_s: 1800,
            }),
            ..stop_east(2, 0.02, 300)
        }],
    };
    let leg = speed
        .matrix(&[Point::new(0.01, 0.0), Point::new(0.02, 0.0)])
        .unwrap()
        .duration(0, 1);
    let etas = estimate(&input, &speed).unwrap();
    assert_eq!(etas[0].start, began.add_millis((1800 + leg) * 1000));
}
