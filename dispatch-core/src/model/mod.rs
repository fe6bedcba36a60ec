//! Domain types, one module per concept of the v2 interface.

pub mod attachment;
pub mod customer;
pub mod customer_validate;
pub mod dispatch;
pub mod driver;
pub mod driver_visit;
pub mod line_item;
pub mod location;
pub mod notification;
pub mod notification_render;
pub mod optimisation;
pub mod order;
pub mod order_attachment;
mod order_build;
pub mod order_fields;
pub mod order_input;
pub mod order_merge;
pub mod order_rejection;
pub mod order_validate;
pub mod order_value;
pub mod organisation;
pub mod plan;
pub mod pod;
pub mod questionnaire;
pub mod reference;
pub mod route;
pub mod route_edit;
pub mod stop;
#[cfg(test)]
pub(crate) mod test_fixtures;
pub mod travel;
pub mod vehicle;
pub mod zone;
