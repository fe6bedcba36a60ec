//! Organisations, depots, keys, reference data, zones, the gazetteer, the outside geocoder's
//! remembered answers and vehicles.

use super::at;
use crate::model::location::Coordinates;
use crate::model::notification::Channel;
use crate::model::organisation::{key_lookup, DepotScope, DepotSettings, KeyPermission};
use crate::model::reference::CapacityAmount;
use crate::model::vehicle::{apply_patch, VehicleFields, VehiclePatch};
use crate::model::zone::Polygon;
use crate::patch::Patch;
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};
use crate::ports::store::{NewDepot, Store, StoreError};

/// A depot named `name` with default settings.
pub fn depot(name: &str) -> NewDepot {
    NewDepot {
        name: name.into(),
        address: None,
        location: None,
        settings: DepotSettings::default(),
    }
}

/// Two depots of one organisation and one of another.
pub fn setup(store: &dyn Store) -> (DepotScope, DepotScope, DepotScope) {
    store
        .transaction(|tx| {
            let acme = tx.insert_organisation("Acme", at(0))?;
            let other = tx.insert_organisation("Other", at(0))?;
            let a = tx.insert_depot(acme.id, &depot("A"), at(0))?.scope();
            let b = tx.insert_depot(acme.id, &depot("B"), at(0))?.scope();
            let c = tx.insert_depot(other.id, &depot("C"), at(0))?.scope();
            Ok::<_, StoreError>((a, b, c))
        })
        .unwrap()
}

/// Valid vehicle fields named `name` with these skills and capacities.
pub fn fields(name: &str, skills: &[&str], capacities: Vec<CapacityAmount>) -> VehicleFields {
    let mut f = apply_patch(
        &VehiclePatch {
            name: Patch::Value(name.into()),
            availability: Patch::Value("always".into()),
            start_location: Patch::Value("depot".into()),
            end_location: Patch::Value("depot".into()),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    f.skills = skills.iter().map(|s| s.to_string()).collect();
    f.capacities = capacities;
    f
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn organisation_reference_and_vehicles(store: &dyn Store) {
    let (a, b, c) = setup(store);

    // Upserts are idempotent by name and scoped to their depot.
    let (w1, w2, wb) = store
        .transaction(|tx| {
            let w1 = tx.upsert_capacity_type(a, "Weight", "0", at(1))?;
            let w2 = tx.upsert_capacity_type(a, "Weight", "0", at(2))?;
            let wb = tx.upsert_capacity_type(b, "Weight", "0", at(2))?;
            Ok::<_, StoreError>((w1, w2, wb))
        })
        .unwrap();
    assert_eq!(w1.id, w2.id);
    assert_eq!(w2.updated, at(1), "unchanged rows keep their update time");
    assert_ne!(w1.id, wb.id);
    assert_eq!(store.read(|tx| tx.list_capacity_types(c)).unwrap(), vec![]);

    // Skills are case-sensitive.
    let skills = store
        .transaction(|tx| {
            tx.upsert_skill(a, "Fridge", at(1))?;
            tx.upsert_skill(a, "fridge", at(1))?;
            tx.upsert_skill(a, "Fridge", at(1))?;
            tx.list_skills(a)
        })
        .unwrap();
    assert_eq!(
        skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Fridge", "fridge"]
    );

    // Vehicles: sets round-trip with names; scoped reads, updates and deletes.
    let id = store
        .transaction(|tx| {
            let f = fields(
                "V",
                &["fridge", "Fridge"],
                vec![CapacityAmount {
                    id: w1.id,
                    type_name: String::new(),
                    capacity: 7.5,
                }],
            );
            tx.insert_vehicle(a, &f, at(3))
        })
        .unwrap();
    let v = store.read(|tx| tx.get_vehicle(a, id)).unwrap().unwrap();
    assert_eq!(v.fields.skills, ["fridge", "Fridge"]);
    assert_eq!(
        v.fields.capacities,
        vec![CapacityAmount {
            id: w1.id,
            type_name: "Weight".into(),
            capacity: 7.5
        }]
    );
    assert_eq!((v.created, v.updated), (at(3), at(3)));
    assert!(store.read(|tx| tx.get_vehicle(b, id)).unwrap().is_none());
    assert!(!store
        .transaction(|tx| tx.update_vehicle(b, id, &fields("X", &[], vec![]), at(4)))
        .unwrap());
    assert!(!store.transaction(|tx| tx.delete_vehicle(c, id)).unwrap());
    assert!(store
        .transaction(|tx| tx.update_vehicle(a, id, &fields("V2", &["Fridge"], vec![]), at(5)))
        .unwrap());
    let v = store.read(|tx| tx.get_vehicle(a, id)).unwrap().unwrap();
    assert_eq!(
        (
            v.fields.name.as_str(),
            v.fields.skills.len(),
            v.fields.capacities.len(),
            v.updated
        ),
        ("V2", 1, 0, at(5))
    );
    assert_eq!(
        store
            .read(|tx| tx.count_vehicles_in_organisation(a.organisation_id))
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .read(|tx| tx.count_vehicles_in_organisation(c.organisation_id))
            .unwrap(),
        0
    );
    assert!(store.transaction(|tx| tx.delete_vehicle(a, id)).unwrap());
    assert!(store.read(|tx| tx.list_vehicles(a)).unwrap().is_empty());

    // The deleted (and newest) vehicle's id is never handed out again, so a client still
    // holding it reads "not found" rather than another vehicle.
    let next = store
        .transaction(|tx| tx.insert_vehicle(a, &fields("V3", &[], vec![]), at(6)))
        .unwrap();
    assert!(next > id, "vehicle id {next} after the deleted {id}");
    assert!(store.read(|tx| tx.get_vehicle(a, id)).unwrap().is_none());
    assert!(store.transaction(|tx| tx.delete_vehicle(a, next)).unwrap());

    // A failing transaction leaves nothing behind.
    let failed: Result<(), StoreError> = store.transaction(|tx| {
        tx.upsert_tag(a, "Lost", at(1))?;
        Err(StoreError::Conflict("on purpose".into()))
    });
    assert!(failed.is_err());
    assert!(store.read(|tx| tx.list_tags(a)).unwrap().is_empty());

    // Access keys: found by lookup prefix, only in their own depot by name.
    let hash = [7u8; 32];
    store
        .transaction(|tx| tx.insert_access_key(a, "k", KeyPermission::Read, hash, at(1)))
        .unwrap();
    let found = store
        .read(|tx| tx.access_keys_by_lookup(key_lookup(&hash)))
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        (
            found[0].depot_id,
            found[0].organisation_id,
            found[0].permission
        ),
        (a.depot_id, a.organisation_id, KeyPermission::Read)
    );
    assert!(store
        .read(|tx| tx.find_access_key_by_name(b, "k"))
        .unwrap()
        .is_none());
    // A revoked (and newest) key's id is never handed out again: idempotency records are kept
    // per key id, so a reused id would replay the revoked key's responses to another caller,
    // perhaps of another depot.
    let revoked = store
        .transaction(|tx| tx.insert_access_key(a, "gone", KeyPermission::All, [8; 32], at(2)))
        .unwrap();
    assert!(store
        .transaction(|tx| tx.revoke_access_key(a, "gone", at(3)))
        .unwrap());
    let next = store
        .transaction(|tx| tx.insert_access_key(b, "new", KeyPermission::All, [9; 32], at(4)))
        .unwrap();
    assert!(
        next.id > revoked.id,
        "access key id {} after the revoked {}",
        next.id,
        revoked.id
    );
    let s1 = store
        .transaction(|tx| tx.installation_secret("s", [1; 32]))
        .unwrap();
    let s2 = store
        .transaction(|tx| tx.installation_secret("s", [2; 32]))
        .unwrap();
    assert_eq!((s1, s2), ([1; 32], [1; 32]));

    // Zones, templates, third parties, statuses, gazetteer.
    let square = Polygon(vec![
        Coordinates { lat: 0.0, lng: 0.0 },
        Coordinates { lat: 0.0, lng: 1.0 },
        Coordinates { lat: 1.0, lng: 1.0 },
    ]);
    let (group, zone) = store
        .transaction(|tx| {
            let g = tx.upsert_zone_group(a, "G", at(1))?;
            let z = tx.upsert_zone(a, g.id, "Z", &square, at(1))?;
            Ok::<_, StoreError>((g, z))
        })
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.list_zones(a, group.id)).unwrap(),
        vec![zone]
    );
    assert!(store
        .read(|tx| tx.get_zone_group(b, group.id))
        .unwrap()
        .is_none());
    assert!(store
        .read(|tx| tx.list_zones(b, group.id))
        .unwrap()
        .is_empty());
    let t = store
        .transaction(|tx| tx.upsert_notification_template(a, Channel::Email, "T", "body", at(1)))
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.list_notification_templates(a)).unwrap(),
        vec![t]
    );
    store
        .transaction(|tx| tx.upsert_third_party(a.organisation_id, "X", at(1)))
        .unwrap();
    assert_eq!(
        store
            .read(|tx| tx.list_third_parties(b.organisation_id))
            .unwrap()
            .len(),
        1
    );
    assert!(store
        .read(|tx| tx.list_third_parties(c.organisation_id))
        .unwrap()
        .is_empty());
    assert!(store
        .transaction(|tx| tx.insert_custom_order_status(a.organisation_id, "RETURNED", at(1)))
        .unwrap());
    assert!(!store
        .transaction(|tx| tx.insert_custom_order_status(a.organisation_id, "RETURNED", at(1)))
        .unwrap());
    // The depot with its organisation's statuses, in creation order, in one question.
    store
        .transaction(|tx| tx.insert_custom_order_status(a.organisation_id, "ARRIVED", at(2)))
        .unwrap();
    let (depot_a, statuses) = store
        .read_single(|tx| tx.get_depot_with_statuses(b))
        .unwrap()
        .unwrap();
    assert_eq!(depot_a.scope(), b);
    assert_eq!(statuses, ["RETURNED", "ARRIVED"]);
    let (_, others) = store
        .read_single(|tx| tx.get_depot_with_statuses(c))
        .unwrap()
        .unwrap();
    assert!(others.is_empty(), "{others:?}");
    let elsewhere = DepotScope {
        organisation_id: c.organisation_id,
        depot_id: a.depot_id,
    };
    assert_eq!(
        store
            .read_single(|tx| tx.get_depot_with_statuses(elsewhere))
            .unwrap(),
        None
    );
    let entry = GazetteerEntry {
        address: Some("1 High St".into()),
        postcode: None,
        location: Coordinates { lat: 1.0, lng: 2.0 },
    };
    store
        .transaction(|tx| tx.upsert_gazetteer_entry(a, &entry))
        .unwrap();
    store
        .transaction(|tx| tx.upsert_gazetteer_entry(a, &entry))
        .unwrap();
    assert_eq!(store.read(|tx| tx.list_gazetteer(a)).unwrap(), vec![entry]);

    // An outside geocoder's answers are remembered per organisation; a newer answer to the
    // same question replaces the older, "nothing found" included.
    let question = "1 high st\nab1 2cd\ngb";
    let found = CachedAnswer {
        location: Some(Coordinates {
            lat: 51.5,
            lng: -0.125,
        }),
        asked: at(5),
    };
    let nothing = CachedAnswer {
        location: None,
        asked: at(6),
    };
    let remembered = |org: i64| {
        store
            .read(|tx| tx.find_geocode_answer(org, question))
            .unwrap()
    };
    assert_eq!(remembered(a.organisation_id), None);
    store
        .transaction(|tx| tx.put_geocode_answer(a.organisation_id, question, &found))
        .unwrap();
    assert_eq!(remembered(a.organisation_id), Some(found));
    assert_eq!(remembered(c.organisation_id), None);
    store
        .transaction(|tx| tx.put_geocode_answer(a.organisation_id, question, &nothing))
        .unwrap();
    assert_eq!(remembered(b.organisation_id), Some(nothing));
}
