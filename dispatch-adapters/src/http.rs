//! The blocking face of the adapters' one HTTP client (reqwest), for the adapters the use cases
//! call on blocking threads: the geocoder and OSRM.

use std::sync::OnceLock;
use std::time::Duration;

/// The User-Agent of these requests: Nominatim's usage policy asks each application to name
/// itself, and an OSRM operator's logs then say who asked.
pub const USER_AGENT: &str = concat!(
    "dispatch/",
    env!("CARGO_PKG_VERSION"),
    " (routing-and-dispatch engine)"
);

/// A blocking client built on first use, waiting at most its timeout for one request. Built
/// lazily because reqwest's blocking client starts a runtime thread of its own and must not
/// be built on an async thread, which is where `serve` wires its adapters; the calls
/// themselves come on blocking threads.
#[derive(Debug, Clone)]
pub(crate) struct LazyClient {
    timeout: Duration,
    client: OnceLock<Result<reqwest::blocking::Client, String>>,
}

impl LazyClient {
    /// A client whose requests wait at most `timeout`.
    pub(crate) fn new(timeout: Duration) -> LazyClient {
        LazyClient {
            timeout,
            client: OnceLock::new(),
        }
    }

    /// The client, built on the first call.
    pub(crate) fn get(&self) -> Result<&reqwest::blocking::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::blocking::Client::builder()
                    .user_agent(USER_AGENT)
                    .timeout(self.timeout)
                    .build()
                    .map_err(|e| format!("cannot build the HTTP client: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}
