//! A vehicle write built from the core's own types, for programs that embed the core: the
//! enums and times instead of their wire spellings. The result is the [`VehiclePatch`] the HTTP
//! adapter reads from JSON, so [`super::apply_patch`] checks it by the same rules.

use super::{Availability, CapacityWrite, EndLocation, StartLocation, VehiclePatch};
use crate::model::location::Coordinates;
use crate::patch::Patch;
use crate::time::TimeOfDay;

impl VehiclePatch {
    /// A new vehicle called `name`, from and back to the depot (the two places a create must
    /// name); every property not set afterwards takes the service's default.
    pub fn named(name: impl Into<String>) -> Self {
        VehiclePatch {
            name: Patch::Value(name.into()),
            start_location: Patch::Value(StartLocation::Depot.as_str().to_owned()),
            end_location: Patch::Value(EndLocation::Depot.as_str().to_owned()),
            ..Default::default()
        }
    }

    /// Works from `start` to `end` every day (`availability: shift`).
    pub fn shift(mut self, start: TimeOfDay, end: TimeOfDay) -> Self {
        self.availability = Patch::Value(Availability::Shift.as_str().to_owned());
        self.shift_start = Patch::Value(start.to_string());
        self.shift_end = Patch::Value(end.to_string());
        self
    }

    /// Available as `availability` says; for [`Availability::Shift`] use [`Self::shift`].
    pub fn available(mut self, availability: Availability) -> Self {
        self.availability = Patch::Value(availability.as_str().to_owned());
        self
    }

    /// Taken off (or back into) the plans: `active`.
    pub fn active(mut self, active: bool) -> Self {
        self.active = Patch::Value(active);
        self
    }

    /// Starts its day at the depot or from the driver's phone; for a place of its own use
    /// [`Self::starts_from`].
    pub fn starts_at(mut self, start: StartLocation) -> Self {
        self.start_location = Patch::Value(start.as_str().to_owned());
        self
    }

    /// Starts its day at `place` (`start_location: other`).
    pub fn starts_from(mut self, place: Coordinates, address: Option<&str>) -> Self {
        self.start_location = Patch::Value(StartLocation::Other.as_str().to_owned());
        self.start_lat = Patch::Value(place.lat);
        self.start_lng = Patch::Value(place.lng);
        self.start_address = address.map_or(Patch::Absent, |a| Patch::Value(a.to_owned()));
        self
    }

    /// Ends its day at the depot or wherever its last stop is; for a place of its own use
    /// [`Self::ends_at_place`].
    pub fn ends_at(mut self, end: EndLocation) -> Self {
        self.end_location = Patch::Value(end.as_str().to_owned());
        self
    }

    /// Ends its day at `place` (`end_location: other`).
    pub fn ends_at_place(mut self, place: Coordinates, address: Option<&str>) -> Self {
        self.end_location = Patch::Value(EndLocation::Other.as_str().to_owned());
        self.end_lat = Patch::Value(place.lat);
        self.end_lng = Patch::Value(place.lng);
        self.end_address = address.map_or(Patch::Absent, |a| Patch::Value(a.to_owned()));
        self
    }

    /// A break of `minutes` taken inside `from`..`until` (started at `from` at the earliest,
    /// over by `until`).
    pub fn break_within(mut self, from: TimeOfDay, until: TimeOfDay, minutes: u32) -> Self {
        self.has_break = Patch::Value(true);
        self.break_start = Patch::Value(from.to_string());
        self.break_end = Patch::Value(until.to_string());
        self.break_duration = Patch::Value(f64::from(minutes));
        self
    }

    /// Its skills, by name (unknown names become skills of the depot).
    pub fn skills<S: Into<String>>(mut self, skills: impl IntoIterator<Item = S>) -> Self {
        self.skills = Patch::Value(skills.into_iter().map(Into::into).collect());
        self
    }

    /// Adds `amount` of the depot's capacity type `capacity_type_id` (a type the depot does
    /// not have is dropped, as on the wire).
    pub fn capacity(mut self, capacity_type_id: i64, amount: f64) -> Self {
        let mut all = self.capacities.into_value().unwrap_or_default();
        all.push(CapacityWrite {
            id: Some(capacity_type_id),
            capacity: Some(amount),
        });
        self.capacities = Patch::Value(all);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vehicle::apply_patch;

    fn at(text: &str) -> TimeOfDay {
        TimeOfDay::parse(text).unwrap()
    }

    #[test]
    fn a_built_vehicle_passes_the_rules_with_the_values_it_was_given() {
        let patch = VehiclePatch::named("Van 1")
            .shift(at("08:00"), at("17:00"))
            .starts_at(StartLocation::AppLocation)
            .ends_at_place(
                Coordinates {
                    lat: 51.6,
                    lng: -0.2,
                },
                Some("Yard"),
            )
            .break_within(at("12:00"), at("13:00"), 30)
            .skills(["fridge"]);
        let fields = apply_patch(&patch, None).unwrap();
        assert_eq!(fields.name, "Van 1");
        assert_eq!(fields.availability, Availability::Shift);
        assert_eq!(fields.shift_start, Some(at("08:00")));
        assert_eq!(fields.shift_end, Some(at("17:00")));
        assert_eq!(fields.start_location, StartLocation::AppLocation);
        assert_eq!(fields.end_location, EndLocation::Other);
        assert_eq!(fields.break_duration, Some(30.0));
        assert_eq!(fields.skills, vec!["fridge".to_owned()]);
    }

    #[test]
    fn a_built_vehicle_is_refused_by_the_same_rules_as_a_posted_one() {
        let patch = VehiclePatch::named("Night van").shift(at("17:00"), at("08:00"));
        let refused = apply_patch(&patch, None).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("shift_start must be before shift_end"),
            "{refused}"
        );
    }
}
