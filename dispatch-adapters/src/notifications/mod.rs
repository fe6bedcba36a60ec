//! The notification senders (the core's `NotificationSender` port): e-mail over SMTP and SMS
//! through an HTTP gateway.

mod sms_gateway;
mod smtp;

pub use sms_gateway::SmsGatewaySender;
pub use smtp::SmtpSender;
