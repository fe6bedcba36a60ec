//! The web console's `serve` flags (the settings themselves are `dispatch_http::console`'s).

use dispatch_http::console::{ConsoleConfig, TileUrl};

/// The console's `serve` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct ConsoleArgs {
    /// Base-map tiles of the web console (/console), a URL template with {z}, {x}, {y} (and
    /// {s} for subdomains), e.g. `https://tile.openstreetmap.org/{z}/{x}/{y}.png`. Default: none —
    /// the routes draw on a plain background and the page needs nothing from elsewhere.
    #[arg(long, value_name = "URL", value_parser = TileUrl::parse)]
    pub tile_url: Option<TileUrl>,
    /// The attribution the tile provider requires, shown in the map's corner (plain text),
    /// e.g. "© OpenStreetMap contributors".
    #[arg(long, value_name = "TEXT")]
    pub tile_attribution: Option<String>,
}

impl ConsoleArgs {
    /// The settings these flags describe.
    pub fn config(&self) -> ConsoleConfig {
        ConsoleConfig {
            tile_url: self.tile_url.clone(),
            tile_attribution: self.tile_attribution.clone(),
        }
    }
}
