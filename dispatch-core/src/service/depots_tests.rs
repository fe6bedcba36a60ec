use super::*;
use crate::ports::geocoder::{GazetteerEntry, InMemoryGazetteer};
use crate::ports::store::InMemoryStore;

fn setup() -> (InMemoryStore, DepotScope) {
    let store = InMemoryStore::new();
    let s: &dyn Store = &store;
    let scope = s
        .transaction(|tx| {
            let org = tx.insert_organisation("Acme", Timestamp::from_millis(0))?;
            let depot = NewDepot {
                name: "North".into(),
                address: None,
                location: None,
                settings: Default::default(),
            };
            let d = tx.insert_depot(org.id, &depot, Timestamp::from_millis(0))?;
            Ok::<_, crate::ports::store::StoreError>(d.scope())
        })
        .unwrap();
    (store, scope)
}

fn write(
    name: Option<&str>,
    address: Option<&str>,
    lat: Patch<f64>,
    lng: Patch<f64>,
) -> DepotPatch {
    let text = |v: Option<&str>| v.map_or(Patch::Absent, |v| Patch::Value(v.to_owned()));
    DepotPatch {
        name: text(name),
        address: text(address),
        lat,
        lng,
    }
}

#[test]
fn an_address_alone_is_geocoded_and_coordinates_are_taken_as_sent() {
    let (store, scope) = setup();
    let geocoder = InMemoryGazetteer::new();
    geocoder.add(
        scope.depot_id,
        GazetteerEntry {
            address: Some("1 Depot Way".into()),
            postcode: None,
            location: Coordinates {
                lat: 51.5,
                lng: -0.1,
            },
        },
    );
    let now = Timestamp::from_millis(1000);
    let d = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id,
        &write(None, Some("1 Depot Way"), Patch::Absent, Patch::Absent),
        now,
    )
    .unwrap();
    assert_eq!(
        (d.lat, d.lng, d.address.as_deref()),
        (Some(51.5), Some(-0.1), Some("1 Depot Way"))
    );
    assert_eq!(d.name, "North");
    assert!(!needs_position(&d));
    let d = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id,
        &write(
            Some("Main"),
            Some("Elsewhere"),
            Patch::Value(50.0),
            Patch::Value(1.0),
        ),
        now,
    )
    .unwrap();
    assert_eq!(
        (d.lat, d.lng, d.name.as_str()),
        (Some(50.0), Some(1.0), "Main")
    );
    let d = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id,
        &write(None, None, Patch::Null, Patch::Null),
        now,
    )
    .unwrap();
    assert!(needs_position(&d));
    assert_eq!(d.address.as_deref(), Some("Elsewhere"));
}

#[test]
fn a_placement_fills_only_a_depot_without_a_position() {
    let (store, scope) = setup();
    let geocoder = InMemoryGazetteer::new();
    let now = Timestamp::from_millis(1000);
    let at = |lat| Placement {
        address: Some("1 Depot Way".into()),
        lat: Some(lat),
        lng: Some(-0.1),
    };
    assert!(place_unplaced(&store, &geocoder, scope, &at(51.5), now).unwrap());
    assert!(!place_unplaced(&store, &geocoder, scope, &at(40.0), now).unwrap());
    let s: &dyn Store = &store;
    let d = s.read(|tx| tx.get_depot(scope)).unwrap().unwrap();
    assert_eq!(
        (d.lat, d.address.as_deref()),
        (Some(51.5), Some("1 Depot Way"))
    );
    let half = Placement {
        lat: Some(1.0),
        ..Placement::default()
    };
    let (store, scope) = setup();
    assert!(place_unplaced(&store, &geocoder, scope, &half, now).is_err());
}

#[test]
fn refusals_name_the_property_and_nothing_is_written() {
    let (store, scope) = setup();
    let geocoder = InMemoryGazetteer::new();
    let now = Timestamp::from_millis(1000);
    let err = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id,
        &write(None, Some("Nowhere"), Patch::Absent, Patch::Absent),
        now,
    )
    .unwrap_err();
    assert!(matches!(err, ServiceError::GeocodingFailed(_)), "{err:?}");
    let err = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id,
        &write(None, None, Patch::Value(91.0), Patch::Absent),
        now,
    )
    .unwrap_err();
    let ServiceError::Invalid(issues) = err else {
        panic!("{err:?}")
    };
    assert_eq!(issues.0.len(), 1);
    assert_eq!(issues.0[0].path, vec![PathSegment::from("lng")]);
    let err = update(
        &store,
        &geocoder,
        scope,
        scope.depot_id + 1,
        &DepotPatch::default(),
        now,
    )
    .unwrap_err();
    assert_eq!(err, ServiceError::NotFound("depot"));
    let s: &dyn Store = &store;
    let d = s.read(|tx| tx.get_depot(scope)).unwrap().unwrap();
    assert_eq!((d.lat, d.address), (None, None));
}
