use super::*;
use crate::model::customer_validate::CustomerInput;
use crate::model::organisation::DepotSettings;
use crate::ports::geocoder::{GazetteerEntry, InMemoryGazetteer};
use crate::ports::store::{InMemoryStore, NewDepot};

pub(crate) fn setup() -> (InMemoryStore, InMemoryGazetteer, DepotScope, DepotScope) {
    let store = InMemoryStore::new();
    let dyn_store: &dyn Store = &store;
    let (a, b) = dyn_store
        .transaction(|tx| {
            let t0 = Timestamp::from_millis(0);
            let org = tx.insert_organisation("Acme", t0)?;
            let new = |name: &str| NewDepot {
                name: name.into(),
                address: None,
                location: None,
                settings: DepotSettings::default(),
            };
            let a = tx.insert_depot(org.id, &new("North"), t0)?;
            let b = tx.insert_depot(org.id, &new("South"), t0)?;
            tx.upsert_capacity_type(a.scope(), "Weight", "0", t0)?;
            tx.upsert_tag(a.scope(), "Fragile", t0)?;
            tx.upsert_custom_field(a.scope(), "Gate code", t0)?;
            Ok::<_, ServiceError>((a.scope(), b.scope()))
        })
        .unwrap();
    let gazetteer = InMemoryGazetteer::new();
    gazetteer.add(
        a.depot_id,
        GazetteerEntry {
            address: Some("1 High St".into()),
            postcode: None,
            location: Coordinates {
                lat: 51.5,
                lng: -0.1,
            },
        },
    );
    (store, gazetteer, a, b)
}

fn customer(account: &str, address: &str) -> CustomerInput {
    CustomerInput {
        account: Some(Some(account.into())),
        address: Some(Some(address.into())),
        ..CustomerInput::default()
    }
}

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

#[test]
fn bulk_write_creates_then_updates_by_account_in_request_order() {
    let (store, geo, a, _) = setup();
    let first = upsert_batch(
        &store,
        &geo,
        a,
        vec![customer("A", "1 High St"), customer("B", "1 High St")],
        at(1),
        &(),
    )
    .unwrap();
    assert_eq!(
        first.iter().map(|w| w.account.as_str()).collect::<Vec<_>>(),
        ["A", "B"]
    );
    let again = upsert_batch(
        &store,
        &geo,
        a,
        vec![customer("B", "1 High St")],
        at(2),
        &(),
    )
    .unwrap();
    assert_eq!(again[0].id, first[1].id);
    let stored = get(&store, a, first[0].id).unwrap();
    assert_eq!((stored.lat, stored.lng), (Some(51.5), Some(-0.1)));
}

#[test]
fn a_failed_geocode_saves_the_customer_without_coordinates() {
    let (store, geo, a, _) = setup();
    let w = upsert_batch(&store, &geo, a, vec![customer("A", "Nowhere")], at(1), &()).unwrap();
    assert!(w[0].geocoding_failed);
    let stored = get(&store, a, w[0].id).unwrap();
    assert_eq!(stored.lat, None);
}

#[test]
fn any_invalid_customer_rejects_the_batch_with_its_index_in_the_path() {
    let (store, geo, a, _) = setup();
    let mut bad = customer("B", "x");
    bad.email = Some(Some("nope".into()));
    let err = upsert_batch(&store, &geo, a, vec![customer("A", "x"), bad], at(1), &()).unwrap_err();
    let ServiceError::Invalid(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.0[0].path, vec![1usize.into(), "email".into()]);
    assert!(list(
        &store,
        a,
        &PageRequest {
            after: None,
            limit: 100,
            updated_at_min: None
        }
    )
    .unwrap()
    .items
    .is_empty());
}

#[test]
fn put_refuses_the_account_of_another_customer_and_unknown_ids() {
    let (store, geo, a, _) = setup();
    let w = upsert_batch(
        &store,
        &geo,
        a,
        vec![customer("A", "x"), customer("B", "x")],
        at(1),
        &(),
    )
    .unwrap();
    let change = CustomerInput {
        account: Some(Some("B".into())),
        ..CustomerInput::default()
    };
    assert!(matches!(
        update(&store, &geo, a, w[0].id, change.clone(), at(2)),
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        update(&store, &geo, a, 999, change, at(2)),
        Err(ServiceError::NotFound(_))
    ));
}

#[test]
fn customers_are_invisible_to_another_depot() {
    let (store, geo, a, b) = setup();
    let w = upsert_batch(&store, &geo, a, vec![customer("A", "x")], at(1), &()).unwrap();
    assert!(matches!(
        get(&store, b, w[0].id),
        Err(ServiceError::NotFound(_))
    ));
}
