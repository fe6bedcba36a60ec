//! `dispatch driver-app --depot ID --vehicle ID [--name NAME] [--public-url URL] [--svg FILE]`:
//! makes a driver credential for a van (on the database directly, like `dispatch keys`) and
//! prints the driver's app link that carries it — in the link's fragment, which no server
//! sees — with the link as a QR code drawn in the terminal for the driver's phone to scan, and
//! optionally as an SVG image to print.

use dispatch_core::ports::clock::Clock;
use dispatch_core::service::driver::credentials;

use super::database::{Database, DatabaseParser};
use super::keys::{depot_scope, open};
use dispatch_http::auth::driver::new_credential;
use dispatch_http::clock::SystemClock;
use dispatch_http::driver_app::handover::{app_link, svg, terminal};
use dispatch_http::public_url::PublicUrl;

/// The flags of `dispatch driver-app`.
#[derive(Debug, clap::Args)]
pub struct DriverAppArgs {
    /// The service's database: a SQLite file or a PostgreSQL URL.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    db: Database,
    /// The depot's id (see `dispatch keys list`).
    #[arg(long)]
    depot: i64,
    /// The van's id (`GET /v2/vehicles`).
    #[arg(long)]
    vehicle: i64,
    /// The credential's name, e.g. the driver's or the phone's (1-100 characters).
    #[arg(long)]
    name: Option<String>,
    /// The service's address as the driver's phone reaches it (serve's `--public-url`).
    #[arg(
        long,
        env = "DISPATCH_PUBLIC_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    public_url: String,
    /// Also write the QR code as an SVG image to this file.
    #[arg(long)]
    svg: Option<std::path::PathBuf>,
}

/// Runs `dispatch driver-app`.
pub fn run(args: DriverAppArgs) -> Result<(), String> {
    let public = PublicUrl::parse(&args.public_url).map_err(|e| format!("--public-url: {e}"))?;
    let store = open(&args.db)?;
    let scope = store
        .read(|tx| depot_scope(tx, args.depot))
        .map_err(|e| format!("cannot use the database: {e}"))?
        .ok_or_else(|| format!("no depot {} (see `dispatch keys list`)", args.depot))?;
    let (clear, hash) = new_credential().map_err(|e| e.description)?;
    let created = credentials::create(
        &*store,
        scope,
        args.vehicle,
        args.name.as_deref(),
        hash,
        SystemClock.now(),
    )
    .map_err(|e| format!("cannot create the credential: {e}"))?;
    let link = app_link(&public, &clear);
    if let Some(path) = &args.svg {
        std::fs::write(path, svg(&link)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    super::stdout::line(&format!(
        "driver credential {} of vehicle {} ({}): revoke it with DELETE /v2/vehicles/{}/driver-credentials/{}\n\
         the driver's app: {link}\n\n{}",
        created.id,
        created.vehicle_id,
        created.name,
        created.vehicle_id,
        created.id,
        terminal(&link)
    ))
}
