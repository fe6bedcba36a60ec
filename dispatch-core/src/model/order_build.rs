//! An order write built from the core's own types, for programs that embed the core: the
//! enums, dates and times instead of their wire spellings. The result is the [`OrderInput`] the
//! HTTP adapter reads from JSON, so [`crate::model::order_validate`] checks it by the same
//! rules (and `service::orders::upsert_batch` takes it as it is).

use crate::model::location::Coordinates;
use crate::model::order::{OrderType, Priority, Side};
use crate::model::order_fields::{CapacityInput, TimeWindowInput};
use crate::model::order_input::{EndpointInput, OrderCustomerInput, OrderInput};
use crate::time::{Date, TimeOfDay};

impl OrderInput {
    /// A new order numbered `order_number` of `kind` (the create-or-update key of a batch).
    pub fn new(order_number: impl Into<String>, kind: OrderType) -> Self {
        OrderInput {
            order_number: Some(Some(order_number.into())),
            kind: Some(Some(kind.as_str().to_owned())),
            ..Default::default()
        }
    }

    /// A delivery numbered `order_number`.
    pub fn delivery(order_number: impl Into<String>) -> Self {
        OrderInput::new(order_number, OrderType::Delivery)
    }

    /// Due on `date` (`delivery_date`: the day an optimisation of that date plans it).
    pub fn due(mut self, date: Date) -> Self {
        self.delivery_date = Some(Some(date.to_string()));
        self
    }

    /// Its priority.
    pub fn priority(mut self, priority: Priority) -> Self {
        self.priority = Some(Some(priority.as_str().to_owned()));
        self
    }

    /// The customer it is for, by name (a customer of that name is found or created, as on
    /// the wire).
    pub fn for_customer(mut self, name: impl Into<String>) -> Self {
        self.customer = Some(OrderCustomerInput {
            name: Some(name.into()),
            ..Default::default()
        });
        self
    }

    /// Where `side` happens: its address (geocoded when no position is given and the depot
    /// has a geocoder) and position.
    pub fn at(mut self, side: Side, address: Option<&str>, place: Option<Coordinates>) -> Self {
        let end = self.end(side);
        if let Some(address) = address {
            end.fields.address = Some(Some(address.to_owned()));
        }
        if let Some(place) = place {
            end.fields.lat = Some(Some(place.lat));
            end.fields.lng = Some(Some(place.lng));
        }
        self
    }

    /// Adds a time window in which `side` may happen.
    pub fn window(mut self, side: Side, from: TimeOfDay, to: TimeOfDay) -> Self {
        self.end(side)
            .time_windows
            .get_or_insert_with(Vec::new)
            .push(TimeWindowInput {
                from: Some(from.to_string()),
                to: Some(to.to_string()),
                kind: None,
            });
        self
    }

    /// How long `side` takes on site, in minutes (`*_duration`).
    pub fn minutes_on_site(mut self, side: Side, minutes: u32) -> Self {
        self.end(side).fields.duration = Some(Some(f64::from(minutes)));
        self
    }

    /// Notes for the driver at `side`.
    pub fn notes(mut self, side: Side, notes: impl Into<String>) -> Self {
        self.end(side).fields.notes = Some(Some(notes.into()));
        self
    }

    /// Adds `amount` of the depot's capacity type called `capacity_type`.
    pub fn capacity(mut self, capacity_type: impl Into<String>, amount: f64) -> Self {
        self.capacities
            .get_or_insert_with(Vec::new)
            .push(CapacityInput {
                id: None,
                kind: Some(capacity_type.into()),
                capacity: Some(amount),
            });
        self
    }

    /// The skills a vehicle needs to take it, by name.
    pub fn skills<S: Into<String>>(mut self, skills: impl IntoIterator<Item = S>) -> Self {
        self.skills = Some(skills.into_iter().map(Into::into).collect());
        self
    }

    fn end(&mut self, side: Side) -> &mut EndpointInput {
        match side {
            Side::Delivery => &mut self.delivery,
            Side::Pickup => &mut self.pickup,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::order_input::OrderWrite;
    use crate::model::order_validate::validate_order;
    use crate::status::StatusSet;

    fn at(text: &str) -> TimeOfDay {
        TimeOfDay::parse(text).unwrap()
    }

    #[test]
    fn a_built_order_passes_the_rules_with_the_values_it_was_given() {
        let day = Date::from_ymd(2026, 11, 30).unwrap();
        let input = OrderInput::delivery("A-1")
            .due(day)
            .priority(Priority::P1)
            .at(
                Side::Delivery,
                Some("1 High St"),
                Some(Coordinates {
                    lat: 51.5,
                    lng: -0.1,
                }),
            )
            .window(Side::Delivery, at("09:00"), at("11:00"))
            .minutes_on_site(Side::Delivery, 5)
            .skills(["fridge"]);
        let changes = validate_order(input, OrderWrite::Create, &StatusSet::new(vec![])).unwrap();
        assert_eq!(changes.order_number.as_deref(), Some("A-1"));
        assert_eq!(changes.kind, Some(OrderType::Delivery));
        assert_eq!(changes.priority, Some(Some(Priority::P1)));
        assert_eq!(changes.delivery_date, Some(Some(day)));
        let windows = changes.time_windows.unwrap();
        assert_eq!(windows.len(), 1);
        assert_eq!(
            (windows[0].side, windows[0].from, windows[0].to),
            (Side::Delivery, at("09:00"), at("11:00"))
        );
        assert_eq!(changes.delivery.fields.duration, Some(Some(5.0)));
    }

    #[test]
    fn a_built_order_is_refused_by_the_same_rules_as_a_posted_one() {
        let input = OrderInput::delivery("A-2").window(Side::Delivery, at("11:00"), at("09:00"));
        let refused =
            validate_order(input, OrderWrite::Create, &StatusSet::new(vec![])).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("delivery_time_windows.0.to cannot be before from"),
            "{refused}"
        );
    }
}
