use super::*;
use crate::model::test_fixtures::catalog;

#[test]
fn capacities_match_by_id_and_unknown_ids_are_dropped() {
    let entries = [
        CapacityInput {
            id: Some(1),
            kind: None,
            capacity: Some(3.0),
        },
        CapacityInput {
            id: Some(9),
            kind: None,
            capacity: Some(1.0),
        },
        CapacityInput {
            id: None,
            kind: Some("weight".into()),
            capacity: Some(4.0),
        },
    ];
    let by_id = catalog().resolve_capacities(&entries, false);
    assert_eq!(
        by_id,
        vec![CapacityAmount {
            capacity_type_id: 1,
            amount: 3.0
        }]
    );
    let by_type = catalog().resolve_capacities(&entries, true);
    assert_eq!(
        by_type,
        vec![CapacityAmount {
            capacity_type_id: 1,
            amount: 4.0
        }]
    );
}

#[test]
fn names_match_ignoring_case_in_their_stored_spelling() {
    let names = vec![
        "fragile".to_owned(),
        "FRAGILE".to_owned(),
        "Heavy".to_owned(),
    ];
    assert_eq!(
        Catalog::resolve_names(&catalog().tags, &names, false),
        vec!["Fragile"]
    );
    assert_eq!(
        Catalog::resolve_names(&catalog().tags, &names, true),
        vec!["Fragile", "Heavy"]
    );
}

#[test]
fn custom_fields_match_by_id_or_name_or_id_only() {
    let entries = [
        CustomFieldInput {
            id: None,
            name: Some("gate CODE".into()),
            value: Some("1".into()),
        },
        CustomFieldInput {
            id: Some(77),
            name: None,
            value: Some("2".into()),
        },
    ];
    assert_eq!(
        catalog().resolve_custom_fields(&entries, CustomFieldMatch::IdOrName),
        vec![CustomFieldValue {
            field_id: 5,
            value: "1".into()
        }]
    );
    assert!(catalog()
        .resolve_custom_fields(&entries, CustomFieldMatch::IdOnly)
        .is_empty());
}

#[test]
fn an_email_is_a_plain_dot_atom_address_at_a_dotted_domain() {
    assert!(is_email("a.b@example.com"));
    for good in [
        "a@b.co",
        "first.last+tag@sub.example.co.uk",
        "o'neil@example.ie",
        "x_y-z@exa-mple.com",
        "jörg@müller.de",
    ] {
        assert!(is_email(good), "{good}");
    }
    for bad in [
        "",
        "a",
        "a@b",
        "@b.com",
        "a@@b.com",
        "a b@c.com",
        "a@b.",
        "<a@b.example>",
        "Name <a@b.example>",
        "a@b.example>",
        "\"a b\"@example.com",
        "a@[127.0.0.1]",
        "a@127.0.0.1",
        ".a@example.com",
        "a.@example.com",
        "a..b@example.com",
        "a@-example.com",
        "a@example-.com",
        "a@exa_mple.com",
        "a@example..com",
        "a(comment)@example.com",
        "a@ex!ample.com",
        "a@example.com\n",
        "a,b@example.com",
    ] {
        assert!(!is_email(bad), "{bad}");
    }
}

#[test]
fn a_field_path_is_built_only_for_an_issue() {
    let mut errs = ValidationErrors::default();
    let unbuilt = || -> Vec<PathSegment> { panic!("a path built for a valid value") };
    check_len(&mut errs, unbuilt, "LOAD-1", 1, 20);
    check_range(&mut errs, unbuilt, 5.0, 0.0, MAX_VISIT_MINUTES);
    check_email(&mut errs, unbuilt, "ann@example.com");
    check_country(&mut errs, unbuilt, "GB");
    assert!(parse_time(&mut errs, unbuilt, "08:00").is_some());
    check_coordinates(&mut errs, (unbuilt, Some(51.5)), (unbuilt, Some(-0.1)));
    assert!(errs.0.is_empty());

    check_len(&mut errs, || key_path(&["order_number"]), "", 1, 20);
    check_coordinates(
        &mut errs,
        (unbuilt, Some(51.5)),
        (|| key_path(&["delivery_lng"]), Some(200.0)),
    );
    let paths: Vec<String> = errs.0.iter().map(|i| render_path(&i.path)).collect();
    assert_eq!(paths, ["order_number", "delivery_lng"]);
    assert_eq!(
        errs.0[1].message,
        "delivery_lng must be between -180 and 180"
    );
}
