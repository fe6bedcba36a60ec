//! Monetary values of orders and line items, in integers: [`Money`] counts cents and
//! [`UnitPrice`] millionths, so sums and products never round through floats.
//!
//! A line item's `product_value` is DERIVED from quantity x unit price unless the client
//! gives it (MANUAL). An order with valued line items has a DERIVED value, their sum; an
//! order without them may carry a client-set `order_value` (MANUAL).

use std::fmt;

/// Largest order value (and line-item value), in whole currency units.
pub const MAX_ORDER_VALUE_UNITS: i64 = 10_000_000;
/// The currency reported with a value; depots carry no currency setting yet.
pub const DEFAULT_CURRENCY: &str = "GBP";

/// An amount of money in cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Money(i64);

/// A unit price in millionths of a currency unit (up to six decimal places).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitPrice(i64);

/// Why a number is not an acceptable amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    /// More decimal places than the amount allows.
    #[error("at most {0} decimal places")]
    TooPrecise(u32),
    /// Negative amounts are not allowed.
    #[error("must not be negative")]
    Negative,
    /// Above the limit of 10000000.
    #[error("must be at most 10000000")]
    TooLarge,
    /// NaN or infinite.
    #[error("must be a finite number")]
    NotFinite,
}

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueSource {
    /// Computed by the service (line item: quantity x unit price; order: sum of line items).
    Derived,
    /// Given by the client.
    Manual,
}

impl ValueSource {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ValueSource::Derived => "DERIVED",
            ValueSource::Manual => "MANUAL",
        }
    }

    /// Parses the wire spelling.
    pub fn parse(s: &str) -> Option<ValueSource> {
        match s {
            "DERIVED" => Some(ValueSource::Derived),
            "MANUAL" => Some(ValueSource::Manual),
            _ => None,
        }
    }
}

/// Scales a JSON number to an integer with `places` decimals, refusing finer values.
/// Uses the shortest decimal rendering of the float, which is exactly what the client wrote.
fn scaled(value: f64, places: u32) -> Result<i64, MoneyError> {
    if !value.is_finite() {
        return Err(MoneyError::NotFinite);
    }
    if value < 0.0 {
        return Err(MoneyError::Negative);
    }
    if value > 1e12 {
        return Err(MoneyError::TooLarge);
    }
    let text = format!("{value}");
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    if frac.len() > places as usize {
        return Err(MoneyError::TooPrecise(places));
    }
    let whole: i64 = whole.parse().map_err(|_| MoneyError::NotFinite)?;
    let mut frac_value: i64 = 0;
    for i in 0..places as usize {
        let digit = frac.as_bytes().get(i).map_or(0, |d| i64::from(d - b'0'));
        frac_value = frac_value * 10 + digit;
    }
    Ok(whole * 10_i64.pow(places) + frac_value)
}

impl Money {
    /// An amount from cents.
    pub const fn from_cents(cents: i64) -> Money {
        Money(cents)
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.0
    }

    /// Parses a client value: not negative, at most 2 decimal places, at most 10000000.
    pub fn parse(value: f64) -> Result<Money, MoneyError> {
        let cents = scaled(value, 2)?;
        let m = Money(cents);
        if m > Money::max() {
            return Err(MoneyError::TooLarge);
        }
        Ok(m)
    }

    /// The largest allowed value.
    pub const fn max() -> Money {
        Money(MAX_ORDER_VALUE_UNITS * 100)
    }

    /// The value as a JSON number (exact for every cent amount within the limit).
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / 100.0
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

impl UnitPrice {
    /// A unit price from millionths.
    pub const fn from_micros(micros: i64) -> UnitPrice {
        UnitPrice(micros)
    }

    /// The price in millionths.
    pub const fn micros(self) -> i64 {
        self.0
    }

    /// Parses a client value: not negative, at most 6 decimal places.
    pub fn parse(value: f64) -> Result<UnitPrice, MoneyError> {
        scaled(value, 6).map(UnitPrice)
    }

    /// The price as a JSON number.
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / 1_000_000.0
    }

    /// `quantity` x this price, rounded half away from zero to cents; `None` on overflow.
    pub fn times(self, quantity: i64) -> Option<Money> {
        let micros = i128::from(self.0) * i128::from(quantity);
        let cents = (micros + micros.signum() * 5_000) / 10_000;
        i64::try_from(cents).ok().map(Money)
    }
}

/// A line item's value and its source: the given (MANUAL) value, else quantity x unit
/// price (DERIVED), else none.
pub fn line_item_value(
    manual: Option<Money>,
    quantity: i64,
    unit_price: Option<UnitPrice>,
) -> Option<(Money, ValueSource)> {
    match (manual, unit_price) {
        (Some(v), _) => Some((v, ValueSource::Manual)),
        (None, Some(p)) => p.times(quantity).map(|v| (v, ValueSource::Derived)),
        (None, None) => None,
    }
}

/// An order's value: DERIVED as the sum of its valued line items when it has any, else the
/// client-set value (MANUAL), else none. An `Err` means the sum is above the limit.
pub fn order_value(
    manual: Option<Money>,
    line_item_values: &[Option<Money>],
) -> Result<Option<(Money, ValueSource)>, MoneyError> {
    let valued: Vec<Money> = line_item_values.iter().flatten().copied().collect();
    if valued.is_empty() {
        return Ok(manual.map(|m| (m, ValueSource::Manual)));
    }
    let sum = valued.iter().map(|m| i128::from(m.0)).sum::<i128>();
    if sum > i128::from(Money::max().0) {
        return Err(MoneyError::TooLarge);
    }
    Ok(Some((Money(sum as i64), ValueSource::Derived)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_value_has_at_most_two_decimal_places() {
        assert_eq!(Money::parse(12.34), Ok(Money::from_cents(1234)));
        assert_eq!(Money::parse(0.1), Ok(Money::from_cents(10)));
        assert_eq!(Money::parse(12.345), Err(MoneyError::TooPrecise(2)));
    }

    #[test]
    fn order_value_is_at_most_10000000() {
        assert_eq!(Money::parse(10_000_000.0), Ok(Money::max()));
        assert_eq!(Money::parse(10_000_000.01), Err(MoneyError::TooLarge));
        assert_eq!(Money::parse(-1.0), Err(MoneyError::Negative));
    }

    #[test]
    fn product_value_is_derived_from_quantity_times_unit_price_in_integers() {
        let price = UnitPrice::parse(0.1).unwrap();
        assert_eq!(
            line_item_value(None, 3, Some(price)),
            Some((Money::from_cents(30), ValueSource::Derived))
        );
        let price = UnitPrice::parse(0.125).unwrap();
        assert_eq!(price.times(1), Some(Money::from_cents(13)));
        assert_eq!(
            line_item_value(Some(Money::from_cents(5)), 3, Some(price)),
            Some((Money::from_cents(5), ValueSource::Manual))
        );
        assert_eq!(line_item_value(None, 3, None), None);
    }

    #[test]
    fn order_value_is_derived_from_valued_line_items_else_manual() {
        let items = [
            Some(Money::from_cents(150)),
            None,
            Some(Money::from_cents(50)),
        ];
        assert_eq!(
            order_value(Some(Money::from_cents(1)), &items),
            Ok(Some((Money::from_cents(200), ValueSource::Derived)))
        );
        assert_eq!(
            order_value(Some(Money::from_cents(1)), &[None]),
            Ok(Some((Money::from_cents(1), ValueSource::Manual)))
        );
        assert_eq!(
            order_value(None, &[Some(Money::max()), Some(Money::from_cents(1))]),
            Err(MoneyError::TooLarge)
        );
    }

    #[test]
    fn money_renders_with_two_decimals() {
        assert_eq!(Money::from_cents(1205).to_string(), "12.05");
        assert_eq!(Money::from_cents(1205).to_f64(), 12.05);
    }
}
