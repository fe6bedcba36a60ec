use super::*;
use crate::model::vehicle::{CapacityWrite, VehiclePatch};
use crate::patch::Patch;
use crate::time::TimeOfDay;

fn s(v: &str) -> Patch<String> {
    Patch::Value(v.to_owned())
}

fn minimal() -> VehiclePatch {
    VehiclePatch {
        name: s("Van 1"),
        availability: s("full_day"),
        start_location: s("depot"),
        end_location: s("depot"),
        ..Default::default()
    }
}

fn fails_at(patch: &VehiclePatch, base: Option<&VehicleFields>, expected: &[&str]) {
    let errors = apply_patch(patch, base).expect_err("should be rejected");
    assert_eq!(errors.paths(), expected, "{errors:?}");
}

#[test]
fn minimal_create_gets_defaults() {
    let f = apply_patch(&minimal(), None).unwrap();
    assert!(f.active);
    assert!(!f.has_break);
    assert_eq!(f.availability, Availability::FullDay);
    assert!(f.skills.is_empty() && f.capacities.is_empty());
}

#[test]
fn create_requires_name_availability_and_both_locations() {
    let errors = apply_patch(&VehiclePatch::default(), None).unwrap_err();
    assert_eq!(
        errors.paths(),
        ["name", "availability", "start_location", "end_location"]
    );
    assert!(errors.0.iter().all(|i| i.code == IssueCode::Required));
}

#[test]
fn name_is_one_to_thirty_characters() {
    let ok = VehiclePatch {
        name: s(&"é".repeat(30)),
        ..minimal()
    };
    assert!(apply_patch(&ok, None).is_ok());
    fails_at(
        &VehiclePatch {
            name: s(&"x".repeat(31)),
            ..minimal()
        },
        None,
        &["name"],
    );
    fails_at(
        &VehiclePatch {
            name: s(""),
            ..minimal()
        },
        None,
        &["name"],
    );
    fails_at(
        &VehiclePatch {
            name: Patch::Null,
            ..minimal()
        },
        None,
        &["name"],
    );
}

#[test]
fn enums_accept_only_their_values() {
    fails_at(
        &VehiclePatch {
            availability: s("sometimes"),
            ..minimal()
        },
        None,
        &["availability"],
    );
    fails_at(
        &VehiclePatch {
            start_location: s("none"),
            ..minimal()
        },
        None,
        &["start_location"],
    );
    fails_at(
        &VehiclePatch {
            end_location: s("app-location"),
            ..minimal()
        },
        None,
        &["end_location"],
    );
    let ok = VehiclePatch {
        start_location: s("app-location"),
        end_location: s("none"),
        availability: s("always"),
        ..minimal()
    };
    assert!(apply_patch(&ok, None).is_ok());
}

#[test]
fn shift_needs_start_before_end() {
    let shift = |a: &str, b: &str| VehiclePatch {
        availability: s("shift"),
        shift_start: s(a),
        shift_end: s(b),
        ..minimal()
    };
    let f = apply_patch(&shift("08:00", "17:00"), None).unwrap();
    assert_eq!(f.shift_start.unwrap().to_string(), "08:00");
    fails_at(&shift("17:00", "08:00"), None, &["shift_end"]);
    fails_at(&shift("08:00", "08:00"), None, &["shift_end"]);
    fails_at(&shift("8:00", "17:00"), None, &["shift_start"]);
    fails_at(
        &VehiclePatch {
            availability: s("shift"),
            ..minimal()
        },
        None,
        &["shift_start", "shift_end"],
    );
}

#[test]
fn other_locations_need_lat_and_lng() {
    let other = VehiclePatch {
        start_location: s("other"),
        end_location: s("other"),
        start_address: s("1 Road"),
        ..minimal()
    };
    fails_at(
        &other,
        None,
        &["start_lat", "start_lng", "end_lat", "end_lng"],
    );
    let ok = VehiclePatch {
        start_lat: Patch::Value(51.5),
        start_lng: Patch::Value(-0.1),
        end_lat: Patch::Value(51.6),
        end_lng: Patch::Value(-0.2),
        ..other
    };
    let f = apply_patch(&ok, None).unwrap();
    assert_eq!(f.start.address.as_deref(), Some("1 Road"));
    fails_at(
        &VehiclePatch {
            start_lat: Patch::Value(91.0),
            ..ok.clone()
        },
        None,
        &["start_lat"],
    );
}

#[test]
fn break_needs_times_and_a_duration_shorter_than_its_window() {
    let brk = |d: f64| VehiclePatch {
        has_break: Patch::Value(true),
        break_start: s("12:00"),
        break_end: s("13:00"),
        break_duration: Patch::Value(d),
        ..minimal()
    };
    assert!(apply_patch(&brk(30.0), None).is_ok());
    fails_at(&brk(60.0), None, &["break_duration"]);
    fails_at(&brk(-1.0), None, &["break_duration"]);
    fails_at(
        &VehiclePatch {
            has_break: Patch::Value(true),
            ..minimal()
        },
        None,
        &["break_start", "break_end", "break_duration"],
    );
    fails_at(
        &VehiclePatch {
            break_start: s("14:00"),
            ..brk(30.0)
        },
        None,
        &["break_end"],
    );
    // Without a break the times are optional.
    assert!(apply_patch(
        &VehiclePatch {
            has_break: Patch::Value(false),
            ..minimal()
        },
        None
    )
    .is_ok());
}

#[test]
fn skills_are_deduplicated_case_sensitively_and_capacities_need_an_amount() {
    let p = VehiclePatch {
        skills: Patch::Value(vec!["Fridge".into(), "fridge".into(), "Fridge".into()]),
        capacities: Patch::Value(vec![
            CapacityWrite {
                id: Some(1),
                capacity: Some(10.0),
            },
            CapacityWrite {
                id: Some(1),
                capacity: Some(20.0),
            },
            CapacityWrite {
                id: None,
                capacity: Some(5.0),
            },
        ]),
        ..minimal()
    };
    let f = apply_patch(&p, None).unwrap();
    assert_eq!(f.skills, ["Fridge", "fridge"]);
    assert_eq!(f.capacities.len(), 1);
    assert_eq!(f.capacities[0].capacity, 10.0);
    let missing = VehiclePatch {
        capacities: Patch::Value(vec![CapacityWrite {
            id: Some(1),
            capacity: None,
        }]),
        ..minimal()
    };
    fails_at(&missing, None, &["capacities.0.capacity"]);
}

#[test]
fn update_keeps_unsent_fields_and_checks_the_merged_result() {
    let base = apply_patch(
        &VehiclePatch {
            availability: s("shift"),
            shift_start: s("08:00"),
            shift_end: s("17:00"),
            skills: Patch::Value(vec!["A".into()]),
            ..minimal()
        },
        None,
    )
    .unwrap();
    let renamed = apply_patch(
        &VehiclePatch {
            name: s("Van 2"),
            ..Default::default()
        },
        Some(&base),
    )
    .unwrap();
    assert_eq!(renamed.name, "Van 2");
    assert_eq!(renamed.shift_end, base.shift_end);
    assert_eq!(renamed.skills, ["A"]);
    // Moving only the start past the stored end breaks the rule.
    fails_at(
        &VehiclePatch {
            shift_start: s("18:00"),
            ..Default::default()
        },
        Some(&base),
        &["shift_end"],
    );
    // Empty arrays clear the sets.
    let cleared = apply_patch(
        &VehiclePatch {
            skills: Patch::Value(vec![]),
            ..Default::default()
        },
        Some(&base),
    )
    .unwrap();
    assert!(cleared.skills.is_empty());
    // Switching to `other` without coordinates is refused.
    fails_at(
        &VehiclePatch {
            end_location: s("other"),
            ..Default::default()
        },
        Some(&base),
        &["end_lat", "end_lng"],
    );
}

proptest::proptest! {
    /// Any two times of day: accepted exactly when the start is before the end.
    #[test]
    fn shift_times_are_accepted_exactly_when_start_is_before_end(a in 0u32..1440, b in 0u32..1440) {
        let t = |m: u32| TimeOfDay::from_minutes(m).map(|t| t.to_string()).unwrap_or_default();
        let p = VehiclePatch { availability: s("shift"), shift_start: s(&t(a)), shift_end: s(&t(b)), ..minimal() };
        match apply_patch(&p, None) {
            Ok(f) => proptest::prop_assert!(a < b && f.shift_start.map(|t| t.minutes()) == Some(a)),
            Err(e) => proptest::prop_assert!(a >= b && e.paths() == ["shift_end"]),
        }
    }

    /// Any break window and duration: accepted exactly when the duration fits inside the window.
    #[test]
    fn break_duration_must_be_shorter_than_the_window(start in 0u32..1439, len in 1u32..600, d in 0u32..700) {
        let end = (start + len).min(1439);
        let t = |m: u32| TimeOfDay::from_minutes(m).map(|t| t.to_string()).unwrap_or_default();
        let p = VehiclePatch {
            has_break: Patch::Value(true),
            break_start: s(&t(start)),
            break_end: s(&t(end)),
            break_duration: Patch::Value(f64::from(d)),
            ..minimal()
        };
        let fits = start < end && d < end - start;
        proptest::prop_assert_eq!(apply_patch(&p, None).is_ok(), fits);
    }
}
