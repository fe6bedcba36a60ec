//! The booking answers: availability of one order on a date, the dates and the slots it fits.

/// `{ available }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Available {
    /// Whether every stop, old and new, fits a route.
    pub(super) available: bool,
}

/// `{ booking: { available } }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Availability {
    pub(super) booking: Available,
}

/// A date and whether the order fits on it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct DateAvailability {
    pub(super) date: String,
    pub(super) available: bool,
}

/// `{ available_dates, dates }`: the dates on which the order fits, and every date checked.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct AvailableDates {
    pub(super) available_dates: Vec<String>,
    pub(super) dates: Vec<DateAvailability>,
}

/// A time slot and whether the order fits in it.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Slot {
    /// `HH:mm`.
    pub(super) from: String,
    /// `HH:mm`.
    pub(super) to: String,
    pub(super) available: bool,
}

/// `{ date, slots }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct AvailableSlots {
    pub(super) date: String,
    pub(super) slots: Vec<Slot>,
}
