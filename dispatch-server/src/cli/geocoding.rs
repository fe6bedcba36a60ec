//! `serve` flags choosing the geocoder (the geocoders themselves are
//! `dispatch_adapters::geocoding`'s).

use std::sync::Arc;
use std::time::Duration;

use dispatch_adapters::geocoding::{Nominatim, Remembering};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::geocoder::Geocoder;
use dispatch_core::ports::store::Store;

use super::positive_seconds;

/// `serve` flags choosing the geocoder.
#[derive(Debug, Clone, clap::Args)]
pub struct GeocoderArgs {
    /// Base URL of a geocoder speaking Nominatim's search API (e.g.
    /// https://nominatim.openstreetmap.org or a self-hosted one), asked for addresses the
    /// depot's gazetteer does not know; its answers are kept in the database. Without it only
    /// the gazetteer is used.
    // This text is the flag's --help, where a bare URL is what an operator reads and copies.
    #[allow(rustdoc::bare_urls)]
    #[arg(long, value_name = "URL")]
    pub geocoder_url: Option<String>,
    /// Seconds to wait for one geocoder request.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = positive_seconds)]
    pub geocoder_timeout: f64,
    /// Most geocoder requests a second from this process (the public Nominatim servers allow
    /// one).
    #[arg(long, value_name = "N", default_value_t = 1.0, value_parser = per_second)]
    pub geocoder_rate: f64,
}

/// `--geocoder-rate`: a positive number of requests a second.
fn per_second(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of requests a second above 0"
        )),
    }
}

impl GeocoderArgs {
    /// The service's geocoder: `gazetteer` alone without --geocoder-url; with it, the gazetteer,
    /// then the answers kept in `store`, then the geocoder at the URL.
    pub fn geocoder(
        &self,
        gazetteer: Arc<dyn Geocoder>,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<dyn Geocoder>, String> {
        let Some(url) = &self.geocoder_url else {
            return Ok(gazetteer);
        };
        let outside = Nominatim::new(
            url,
            Duration::from_secs_f64(self.geocoder_timeout),
            self.geocoder_rate,
        )?;
        tracing::info!(geocoder = %dispatch_adapters::redact::url(url), rate = self.geocoder_rate, "addresses the gazetteer does not know are geocoded");
        Ok(Arc::new(Remembering::new(store, Arc::new(outside), clock)))
    }
}
