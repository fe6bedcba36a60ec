//! dispatch-http: the v2 REST adapter over `dispatch-core` and the `dispatch` binary.

pub mod auth;
pub mod cli;
pub mod error;
pub mod middleware;
pub mod paging;
