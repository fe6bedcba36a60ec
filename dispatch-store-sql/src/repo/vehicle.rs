//! Vehicles with their skills and capacities.

use crate::sql::{params, params_from_iter, Connection, ParamsFromIter, Row, Statement, ToSql};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::reference::CapacityAmount;
use dispatch_core::model::vehicle::{
    Availability, EndLocation, Place, StartLocation, Vehicle, VehicleFields,
};
use dispatch_core::ports::store::{StoreError, VehicleRepo};
use dispatch_core::time::{TimeOfDay, Timestamp};

use super::{tod, ts, Db, Sql};

const COLUMNS: &str =
    "id, depot_id, name, active, availability, shift_start, shift_end, start_location, \
     start_address, start_lat, start_lng, end_location, end_address, end_lat, end_lng, has_break, \
     break_start, break_end, break_duration, created, updated";

fn corrupt(column: usize, value: &str) -> crate::sql::Error {
    crate::sql::Error::FromSqlConversionFailure(
        column,
        crate::sql::types::Type::Text,
        format!("unexpected stored value {value:?}").into(),
    )
}

fn vehicle(r: &Row<'_>) -> crate::sql::Result<Vehicle> {
    let availability: String = r.get(4)?;
    let start_location: String = r.get(7)?;
    let end_location: String = r.get(11)?;
    Ok(Vehicle {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        fields: VehicleFields {
            name: r.get(2)?,
            active: r.get(3)?,
            availability: Availability::parse(&availability)
                .ok_or_else(|| corrupt(4, &availability))?,
            shift_start: tod(r.get(5)?),
            shift_end: tod(r.get(6)?),
            start_location: StartLocation::parse(&start_location)
                .ok_or_else(|| corrupt(7, &start_location))?,
            start: Place {
                address: r.get(8)?,
                lat: r.get(9)?,
                lng: r.get(10)?,
            },
            end_location: EndLocation::parse(&end_location)
                .ok_or_else(|| corrupt(11, &end_location))?,
            end: Place {
                address: r.get(12)?,
                lat: r.get(13)?,
                lng: r.get(14)?,
            },
            has_break: r.get(15)?,
            break_start: tod(r.get(16)?),
            break_end: tod(r.get(17)?),
            break_duration: r.get(18)?,
            skills: Vec::new(),
            capacities: Vec::new(),
        },
        created: ts(r.get(19)?),
        updated: ts(r.get(20)?),
    })
}

fn minutes(t: Option<TimeOfDay>) -> Option<i64> {
    t.map(|t| i64::from(t.minutes()))
}

/// The parameters of a statement writing a vehicle: `before`, then the columns an insert and an
/// update write alike (`name` to `break_duration`) and the time of the change.
fn with_fields(before: &[&dyn ToSql], f: &VehicleFields, now: Timestamp) -> ParamsFromIter {
    let fields: [&dyn ToSql; 18] = [
        &f.name,
        &f.active,
        &f.availability.as_str(),
        &minutes(f.shift_start),
        &minutes(f.shift_end),
        &f.start_location.as_str(),
        &f.start.address,
        &f.start.lat,
        &f.start.lng,
        &f.end_location.as_str(),
        &f.end.address,
        &f.end.lat,
        &f.end.lng,
        &f.has_break,
        &minutes(f.break_start),
        &minutes(f.break_end),
        &f.break_duration,
        &now.millis(),
    ];
    params_from_iter(before.iter().chain(&fields))
}

impl<C: Connection> Db<C> {
    /// The next vehicle id: never one handed out before, even once its vehicle is deleted.
    fn next_vehicle_id(&self) -> Result<i64, StoreError> {
        let sql = C::DIALECT.pick(
            "INSERT INTO vehicle_ids DEFAULT VALUES RETURNING id",
            "SELECT nextval(pg_get_serial_sequence('vehicles', 'id'))",
        );
        self.0.insert(sql, params![]).st()
    }

    /// Fills skills and capacities of vehicles read from the `vehicles` table.
    fn with_sets(&self, mut vehicles: Vec<Vehicle>) -> Result<Vec<Vehicle>, StoreError> {
        let mut skills = self
            .0
            .prepare_cached(
                "SELECT s.name FROM vehicle_skills vs JOIN skills s ON s.id = vs.skill_id \
                 WHERE vs.vehicle_id = ?1 ORDER BY vs.position",
            )
            .st()?;
        let mut caps = self
            .0
            .prepare_cached(
                "SELECT c.id, c.name, vc.capacity FROM vehicle_capacities vc JOIN capacity_types c ON c.id = vc.capacity_type_id \
                 WHERE vc.vehicle_id = ?1 ORDER BY vc.position",
            )
            .st()?;
        for v in &mut vehicles {
            v.fields.skills = skills
                .query_map([v.id], |r| r.get(0))
                .st()?
                .collect::<Result<_, _>>()
                .st()?;
            v.fields.capacities = caps
                .query_map([v.id], |r| {
                    Ok(CapacityAmount {
                        id: r.get(0)?,
                        type_name: r.get(1)?,
                        capacity: r.get(2)?,
                    })
                })
                .st()?
                .collect::<Result<_, _>>()
                .st()?;
        }
        Ok(vehicles)
    }

    /// Replaces a vehicle's skills (by name, existing in the depot) and capacities (by id,
    /// capacity types of the depot).
    fn write_sets(&self, scope: DepotScope, id: i64, f: &VehicleFields) -> Result<(), StoreError> {
        self.0
            .execute("DELETE FROM vehicle_skills WHERE vehicle_id = ?1", [id])
            .st()?;
        self.0
            .execute("DELETE FROM vehicle_capacities WHERE vehicle_id = ?1", [id])
            .st()?;
        for (position, name) in f.skills.iter().enumerate() {
            self.0
                .execute(
                    "INSERT INTO vehicle_skills (vehicle_id, skill_id, position) \
                     SELECT ?1, id, ?4 FROM skills WHERE depot_id = ?2 AND name = ?3",
                    params![id, scope.depot_id, name, position as i64],
                )
                .st()?;
        }
        for (position, c) in f.capacities.iter().enumerate() {
            self.0
                .execute(
                    "INSERT INTO vehicle_capacities (vehicle_id, capacity_type_id, capacity, position) \
                     SELECT ?1, id, ?4, ?5 FROM capacity_types WHERE depot_id = ?2 AND id = ?3",
                    params![id, scope.depot_id, c.id, c.capacity, position as i64],
                )
                .st()?;
        }
        Ok(())
    }
}

impl<C: Connection> VehicleRepo for Db<C> {
    fn list_vehicles(&mut self, scope: DepotScope) -> Result<Vec<Vehicle>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM vehicles WHERE depot_id = ?1 ORDER BY id"
            ))
            .st()?;
        let rows: Vec<Vehicle> = stmt
            .query_map([scope.depot_id], vehicle)
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        self.with_sets(rows)
    }

    fn get_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<Option<Vehicle>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM vehicles WHERE depot_id = ?1 AND id = ?2"
            ))
            .st()?;
        let rows: Vec<Vehicle> = stmt
            .query_map([scope.depot_id, id], vehicle)
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        Ok(self.with_sets(rows)?.pop())
    }

    fn insert_vehicle(
        &mut self,
        scope: DepotScope,
        f: &VehicleFields,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let id = self.next_vehicle_id()?;
        self.0
            .execute(
                "INSERT INTO vehicles (id, depot_id, name, active, availability, shift_start, shift_end, start_location, \
                 start_address, start_lat, start_lng, end_location, end_address, end_lat, end_lng, has_break, \
                 break_start, break_end, break_duration, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?20)",
                with_fields(&[&id, &scope.depot_id], f, now),
            )
            .st()?;
        self.write_sets(scope, id, f)?;
        Ok(id)
    }

    fn update_vehicle(
        &mut self,
        scope: DepotScope,
        id: i64,
        f: &VehicleFields,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let changed = self
            .0
            .execute(
                "UPDATE vehicles SET name = ?3, active = ?4, availability = ?5, shift_start = ?6, shift_end = ?7, \
                 start_location = ?8, start_address = ?9, start_lat = ?10, start_lng = ?11, end_location = ?12, \
                 end_address = ?13, end_lat = ?14, end_lng = ?15, has_break = ?16, break_start = ?17, break_end = ?18, \
                 break_duration = ?19, updated = ?20 WHERE id = ?1 AND depot_id = ?2",
                with_fields(&[&id, &scope.depot_id], f, now),
            )
            .st()?;
        if changed == 0 {
            return Ok(false);
        }
        self.write_sets(scope, id, f)?;
        Ok(true)
    }

    fn delete_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError> {
        let n = self
            .0
            .execute(
                "DELETE FROM vehicles WHERE id = ?1 AND depot_id = ?2",
                [id, scope.depot_id],
            )
            .st()?;
        Ok(n == 1)
    }

    fn count_vehicles_in_organisation(&mut self, organisation_id: i64) -> Result<u64, StoreError> {
        self.0
            .query_row(
                "SELECT count(*) FROM vehicles v JOIN depots d ON d.id = v.depot_id WHERE d.organisation_id = ?1",
                [organisation_id],
                |r| r.get(0),
            )
            .st()
    }
}
