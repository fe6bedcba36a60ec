use proptest::prelude::*;

use super::*;
use crate::error::{IssueCode, PathSegment};
use crate::model::customer_validate::{validate_customer, CustomerInput};
use crate::model::order_fields::TimeWindowInput;
use crate::model::test_fixtures::catalog_with_cold as catalog;

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn input(account: &str) -> CustomerInput {
    CustomerInput {
        account: Some(Some(account.into())),
        address: Some(Some("1 High St".into())),
        ..CustomerInput::default()
    }
}

/// Validates `input` (which must pass) and merges it over `existing`.
fn merge(
    existing: Option<&Customer>,
    input: &CustomerInput,
    write: CustomerWrite,
    now: i64,
) -> Result<CustomerMerge, ValidationErrors> {
    let changes = validate_customer(input.clone(), write).unwrap();
    merge_customer(existing, &changes, &catalog(), write, at(now))
}

fn upsert(existing: Option<&Customer>, input: &CustomerInput, now: i64) -> CustomerMerge {
    merge(existing, input, CustomerWrite::Upsert, now).unwrap()
}

#[test]
fn account_is_required_on_create_and_at_most_100_chars() {
    let err = validate_customer(CustomerInput::default(), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(err.0[0].code, IssueCode::Required);
    assert_eq!(err.0[0].path, vec![PathSegment::Key("account".into())]);
    let err = validate_customer(input(&"a".repeat(101)), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(err.0[0].code, IssueCode::TooBig);
    assert!(validate_customer(CustomerInput::default(), CustomerWrite::Update).is_ok());
}

#[test]
fn field_lengths_follow_the_size_limits() {
    let mut i = input("A");
    i.name = Some(Some("n".repeat(101)));
    i.address = Some(Some("a".repeat(256)));
    i.postcode = Some(Some("p".repeat(21)));
    i.phone = Some(Some("1".repeat(31)));
    i.notes = Some(Some("x".repeat(40_001)));
    let err = validate_customer(i.clone(), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(
        err.paths(),
        ["name", "address", "postcode", "phone", "notes"]
    );
}

#[test]
fn duration_is_1_to_9999_minutes() {
    for (d, ok) in [
        (0.0, false),
        (1.0, true),
        (9999.0, true),
        (10_000.0, false),
        (2.5, true),
        (0.5, false),
    ] {
        let mut i = input("A");
        i.duration = Some(Some(d));
        assert_eq!(
            validate_customer(i.clone(), CustomerWrite::Upsert).is_ok(),
            ok,
            "{d}"
        );
    }
}

#[test]
fn email_must_be_an_email_address() {
    let mut i = input("A");
    i.email = Some(Some("not-an-email".into()));
    let err = validate_customer(i.clone(), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(err.0[0].code, IssueCode::InvalidString);
}

#[test]
fn at_most_two_time_windows_and_to_optional_only_on_create() {
    let w = |to: Option<&str>| TimeWindowInput {
        from: Some("08:00".into()),
        to: to.map(Into::into),
        kind: None,
    };
    let mut i = input("A");
    i.time_windows = Some(vec![w(None), w(Some("09:00")), w(Some("10:00"))]);
    let err = validate_customer(i.clone(), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(err.paths(), ["time_windows"]);
    i.time_windows = Some(vec![w(None)]);
    assert!(validate_customer(i.clone(), CustomerWrite::Upsert).is_ok());
    let err = validate_customer(i.clone(), CustomerWrite::Update).unwrap_err();
    assert_eq!(err.paths(), ["time_windows.0.to"]);
    i.time_windows = Some(vec![TimeWindowInput {
        from: Some("8:00".into()),
        to: None,
        kind: None,
    }]);
    let err = validate_customer(i.clone(), CustomerWrite::Upsert).unwrap_err();
    assert_eq!(err.paths(), ["time_windows.0.from"]);
}

#[test]
fn customer_needs_an_address_or_both_coordinates() {
    let mut i = input("A");
    i.address = None;
    let err = merge(None, &i, CustomerWrite::Upsert, 1).unwrap_err();
    assert_eq!(err.paths(), ["address"]);
    i.lat = Some(Some(51.5));
    let err = merge(None, &i, CustomerWrite::Upsert, 1).unwrap_err();
    assert_eq!(err.paths(), ["lng"]);
    i.lng = Some(Some(-0.1));
    assert!(!upsert(None, &i, 1).needs_geocoding);
}

#[test]
fn an_address_without_coordinates_is_geocoded() {
    assert!(upsert(None, &input("A"), 1).needs_geocoding);
}

#[test]
fn omitted_fields_are_kept_and_sent_fields_overwrite() {
    let mut first = input("A");
    first.name = Some(Some("Ann".into()));
    first.phone = Some(Some("123".into()));
    let created = upsert(None, &first, 1).customer;
    let mut second = CustomerInput {
        account: Some(Some("A".into())),
        ..CustomerInput::default()
    };
    second.phone = Some(Some("456".into()));
    let updated = upsert(Some(&created), &second, 2).customer;
    assert_eq!(updated.name.as_deref(), Some("Ann"));
    assert_eq!(updated.phone.as_deref(), Some("456"));
    assert_eq!(updated.created, at(1));
    assert_eq!(updated.updated, at(2));
}

#[test]
fn changing_the_address_without_coordinates_clears_them_and_geocodes() {
    let mut first = input("A");
    first.lat = Some(Some(1.0));
    first.lng = Some(Some(2.0));
    let created = upsert(None, &first, 1).customer;
    let moved = CustomerInput {
        address: Some(Some("2 Low St".into())),
        ..CustomerInput::default()
    };
    let m = merge(Some(&created), &moved, CustomerWrite::Update, 2).unwrap();
    assert!(m.needs_geocoding);
    assert_eq!((m.customer.lat, m.customer.lng), (None, None));
}

#[test]
fn skills_and_tags_match_by_name_ignoring_case_and_unknown_are_dropped() {
    let mut i = input("A");
    i.skills = Some(vec!["forklift".into(), "Diving".into()]);
    i.tags = Some(vec!["FRAGILE".into(), "Nope".into()]);
    let c = upsert(None, &i, 1).customer;
    assert_eq!(c.skills, ["Forklift"]);
    assert_eq!(c.tags, ["Fragile"]);
}

#[test]
fn customer_update_matches_custom_fields_by_id_only() {
    let created = upsert(None, &input("A"), 1).customer;
    let i = CustomerInput {
        custom_fields: Some(vec![CustomFieldInput {
            id: None,
            name: Some("Gate code".into()),
            value: Some("1234".into()),
        }]),
        ..CustomerInput::default()
    };
    let m = merge(Some(&created), &i, CustomerWrite::Update, 2).unwrap();
    assert!(m.customer.custom_fields.is_empty());
    let with_account = CustomerInput {
        account: Some(Some("A".into())),
        ..i
    };
    let m = merge(Some(&created), &with_account, CustomerWrite::Upsert, 2).unwrap();
    assert_eq!(m.customer.custom_fields.len(), 1);
}

fn skill_names() -> impl Strategy<Value = Option<Vec<String>>> {
    proptest::option::of(prop::collection::vec(
        prop_oneof![
            Just("Forklift".to_owned()),
            Just("cold".to_owned()),
            Just("Unknown".to_owned())
        ],
        0..4,
    ))
}

fn random_input() -> impl Strategy<Value = CustomerInput> {
    (
        proptest::option::of(proptest::option::of("[a-z]{0,8}")),
        proptest::option::of(proptest::option::of("[0-9]{1,5}")),
        skill_names(),
        skill_names(),
        proptest::option::of(1u32..100),
    )
        .prop_map(|(name, phone, skills, tags, duration)| CustomerInput {
            account: Some(Some("ACC".into())),
            address: Some(Some("1 High St".into())),
            name,
            phone,
            skills,
            tags,
            duration: duration.map(|d| Some(f64::from(d))),
            ..CustomerInput::default()
        })
}

proptest! {
    #[test]
    fn create_or_update_is_idempotent(inputs in prop::collection::vec(random_input(), 1..4)) {
        let mut stored: Option<Customer> = None;
        for i in &inputs {
            stored = Some(upsert(stored.as_ref(), i, 1).customer);
        }
        let once = stored.clone().unwrap();
        for i in &inputs {
            stored = Some(upsert(stored.as_ref(), i, 2).customer);
        }
        let twice = stored.unwrap();
        prop_assert_eq!(twice.updated, at(2));
        prop_assert_eq!(Customer { updated: at(1), ..twice }, once);
    }

    #[test]
    fn sent_arrays_replace_the_set_and_omitted_arrays_keep_it(
        first in skill_names(),
        second in skill_names(),
    ) {
        let mut a = input("A");
        a.skills = first.clone();
        let created = upsert(None, &a, 1).customer;
        let mut b = input("A");
        b.skills = second.clone();
        let updated = upsert(Some(&created), &b, 2).customer;
        match second {
            Some(names) => prop_assert_eq!(
                updated.skills,
                Catalog::resolve_names(&catalog().skills, &names, false)
            ),
            None => prop_assert_eq!(updated.skills, created.skills),
        }
    }
}
