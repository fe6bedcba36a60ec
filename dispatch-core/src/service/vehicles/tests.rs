use super::*;
use crate::model::organisation::DepotSettings;
use crate::model::vehicle::CapacityWrite;
use crate::patch::Patch;
use crate::ports::store::{InMemoryStore, NewDepot};

fn setup() -> (InMemoryStore, DepotScope, DepotScope) {
    let store = InMemoryStore::new();
    let dyn_store: &dyn Store = &store;
    let (a, b) = dyn_store
        .transaction(|tx| {
            let org = tx.insert_organisation("Acme", Timestamp::from_millis(0))?;
            let new = |name: &str| NewDepot {
                name: name.into(),
                address: None,
                location: None,
                settings: DepotSettings::default(),
            };
            let a = tx.insert_depot(org.id, &new("North"), Timestamp::from_millis(0))?;
            let b = tx.insert_depot(org.id, &new("South"), Timestamp::from_millis(0))?;
            tx.upsert_capacity_type(a.scope(), "Weight", "0", Timestamp::from_millis(0))?;
            Ok::<_, ServiceError>((a.scope(), b.scope()))
        })
        .unwrap();
    (store, a, b)
}

fn van(name: &str) -> VehiclePatch {
    VehiclePatch {
        name: Patch::Value(name.into()),
        availability: Patch::Value("always".into()),
        start_location: Patch::Value("depot".into()),
        end_location: Patch::Value("none".into()),
        ..Default::default()
    }
}

#[test]
fn create_creates_skills_by_exact_name_and_drops_unknown_capacities() {
    let (store, a, _) = setup();
    let weight = store.state_capacity_id(a);
    let patch = VehiclePatch {
        skills: Patch::Value(vec!["Fridge".into(), "fridge".into()]),
        capacities: Patch::Value(vec![
            CapacityWrite {
                id: Some(weight),
                capacity: Some(100.0),
            },
            CapacityWrite {
                id: Some(9999),
                capacity: Some(1.0),
            },
        ]),
        ..van("Van")
    };
    let v = create(&store, a, &patch, Timestamp::from_millis(5), &()).unwrap();
    assert_eq!(v.fields.capacities.len(), 1);
    assert_eq!(v.fields.capacities[0].type_name, "Weight");
    let dyn_store: &dyn Store = &store;
    let skills = dyn_store.read(|tx| tx.list_skills(a)).unwrap();
    assert_eq!(
        skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Fridge", "fridge"]
    );
}

#[test]
fn vehicles_of_another_depot_are_invisible_and_untouchable() {
    let (store, a, b) = setup();
    let v = create(&store, a, &van("Van"), Timestamp::from_millis(1), &()).unwrap();
    assert!(matches!(
        get(&store, b, v.id),
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        update(&store, b, v.id, &van("X"), Timestamp::from_millis(2)),
        Err(ServiceError::Invalid(_))
    ));
    assert!(matches!(
        delete(&store, b, v.id),
        Err(ServiceError::Invalid(_))
    ));
    assert!(list(&store, b).unwrap().is_empty());
    assert_eq!(get(&store, a, v.id).unwrap().fields.name, "Van");
}

#[test]
fn update_bumps_updated_and_delete_removes() {
    let (store, a, _) = setup();
    let v = create(&store, a, &van("Van"), Timestamp::from_millis(1), &()).unwrap();
    let u = update(
        &store,
        a,
        v.id,
        &VehiclePatch {
            active: Patch::Value(false),
            ..Default::default()
        },
        Timestamp::from_millis(9),
    )
    .unwrap();
    assert!(!u.fields.active);
    assert_eq!((u.created.millis(), u.updated.millis()), (1, 9));
    delete(&store, a, v.id).unwrap();
    assert!(get(&store, a, v.id).is_err());
    assert!(delete(&store, a, v.id).is_err());
}

#[test]
fn the_organisation_vehicle_limit_is_enforced_across_depots() {
    let (store, a, b) = setup();
    for i in 0..MAX_VEHICLES_PER_ORGANISATION {
        let scope = if i % 2 == 0 { a } else { b };
        create(
            &store,
            scope,
            &van(&format!("V{i}")),
            Timestamp::from_millis(1),
            &(),
        )
        .unwrap();
    }
    let over = create(
        &store,
        a,
        &van("One too many"),
        Timestamp::from_millis(1),
        &(),
    );
    assert!(matches!(over, Err(ServiceError::Invalid(_))), "{over:?}");
}

#[test]
fn a_failed_transaction_leaves_nothing_behind() {
    let (store, a, _) = setup();
    let dyn_store: &dyn Store = &store;
    let result: Result<(), ServiceError> = dyn_store.transaction(|tx| {
        tx.upsert_skill(a, "Hoist", Timestamp::from_millis(1))?;
        Err(ServiceError::NotFound("anything"))
    });
    assert_eq!(result, Err(ServiceError::NotFound("anything")));
    assert!(dyn_store.read(|tx| tx.list_skills(a)).unwrap().is_empty());
}

impl InMemoryStore {
    fn state_capacity_id(&self, scope: DepotScope) -> i64 {
        let s: &dyn Store = self;
        s.read(|tx| tx.list_capacity_types(scope)).unwrap()[0].id
    }
}
