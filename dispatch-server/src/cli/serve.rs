//! `dispatch serve`.

use std::sync::Arc;
use std::time::Duration;

use super::background::{self, BackgroundArgs};
use super::console::ConsoleArgs;
use super::database::{Database, DatabaseParser};
use super::geocoding::GeocoderArgs;
use super::positive_seconds;
use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::Clock;
use dispatch_core::service::seed;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::observability::MetricsListener;
use dispatch_http::public_url::PublicUrl;
use dispatch_http::routing::Routing;
use dispatch_http::server::ConnectionLimits;
use dispatch_http::AppState;

/// The flags of `dispatch serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// SQLite database file (created with its schema if missing) or PostgreSQL URL
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME`; the schema is created or upgraded on start.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    pub db: Database,
    /// Address to bind, HOST:PORT (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`, `localhost:8080`);
    /// port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT", value_parser = host_port)]
    pub listen: String,
    /// The URL clients reach this service at (scheme, host, port, optional path prefix), the
    /// base of every absolute URL it emits (paging links, image URLs, tracking links); set it
    /// when the service runs behind a proxy or binds 0.0.0.0. Default: http:// and the bound
    /// address (the real port when --listen gave port 0). Request headers (Host,
    /// X-Forwarded-*) are never used.
    #[arg(long, value_name = "URL", value_parser = PublicUrl::parse)]
    pub public_url: Option<PublicUrl>,
    /// Where the documentation lives, e.g. a documentation host of its own: the deprecation
    /// `Link` of a feature token points at URL/features/TOKEN. Default: the pages this service
    /// serves itself under the public URL's /docs (PUBLIC_URL/docs/features/TOKEN).
    #[arg(long, value_name = "URL", value_parser = PublicUrl::parse)]
    pub docs_url: Option<PublicUrl>,
    /// Serve GET /metrics on this address (HOST:PORT) instead of on --listen, e.g. a port only
    /// the Prometheus network reaches; /metrics is then not served on --listen.
    #[arg(long, value_name = "HOST:PORT", value_parser = host_port)]
    pub metrics_listen: Option<String>,
    /// `off` disables every rate tier.
    #[arg(long, value_parser = ["on", "off"], default_value = "on")]
    pub rate_limits: String,
    /// `on` serves `POST /vroom`, VROOM's HTTP interface (vroom-express's body and answers)
    /// behind the access key and the strict rate tier.
    #[arg(long, value_parser = ["on", "off"], default_value = "off")]
    pub vroom_api: String,
    /// Seconds of search for one `POST /vroom` request.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = positive_seconds)]
    pub vroom_time_limit: f64,
    /// Log lines on stderr: `text` for people, `json` (one object per line: timestamp, level,
    /// message and the fields — per request request_id, method, route, status, latency_ms,
    /// depot_id) for log pipelines. RUST_LOG chooses what is logged.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Seconds a connection has to send a complete request head, from its opening or from its
    /// previous response (so also how long an idle kept-alive connection stays open).
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    pub header_read_timeout: f64,
    /// Seconds a request has to send its whole body, from the end of its head.
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    pub body_read_timeout: f64,
    /// Seconds a response may wait for the client to read any more of it; a client that
    /// stops reading is cut off.
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    pub write_timeout: f64,
    /// Most connections open at once; more wait in the listen backlog.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Background work: optimisation jobs, webhooks, notifications, images (`--workers off`:
    /// none in this process).
    #[command(flatten)]
    pub background: BackgroundArgs,
    /// The web console's base map.
    #[command(flatten)]
    pub console: ConsoleArgs,
    /// A simulated clock (for simulations only).
    #[command(flatten)]
    pub simulation: super::simulation::SimulationArgs,
    /// Street address of the default depot made on a new database (geocoded for its position
    /// when --depot-lat and --depot-lng are not given). A depot that has a position keeps it.
    #[arg(long, value_name = "ADDRESS")]
    pub depot_address: Option<String>,
    /// Latitude of the default depot made on a new database (with --depot-lng): where vehicles
    /// with `depot` starts and ends leave and return. Later: PUT /v2/depots/{id}.
    #[arg(
        long,
        value_name = "DEGREES",
        allow_negative_numbers = true,
        requires = "depot_lng"
    )]
    pub depot_lat: Option<f64>,
    /// Longitude of the default depot made on a new database (with --depot-lat).
    #[arg(
        long,
        value_name = "DEGREES",
        allow_negative_numbers = true,
        requires = "depot_lat"
    )]
    pub depot_lng: Option<f64>,
    /// Geocoding of addresses sent without coordinates: the gazetteer, or also an outside
    /// geocoder (--geocoder-url).
    #[command(flatten)]
    pub geocoder: GeocoderArgs,
}

/// `--listen`: HOST:PORT, checked here so that `--listen 8080` says what is expected instead of
/// the resolver's "invalid socket address".
fn host_port(s: &str) -> Result<String, String> {
    let expected = "expected HOST:PORT, e.g. 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080 (port 0 picks a free port)";
    if s.parse::<u16>().is_ok() {
        return Err(format!("cannot listen on `{s}`, a port alone: {expected}; 127.0.0.1:{s} serves this machine only, 0.0.0.0:{s} every interface"));
    }
    if s.parse::<std::net::SocketAddr>().is_ok() {
        return Ok(s.to_owned());
    }
    match s.rsplit_once(':') {
        Some((host, port))
            if !host.is_empty() && !host.contains(':') && port.parse::<u16>().is_ok() =>
        {
            Ok(s.to_owned())
        }
        _ => Err(format!("cannot listen on `{s}`: {expected}")),
    }
}

impl ServeArgs {
    /// The connection bounds these flags describe.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_read_timeout: Duration::from_secs_f64(self.header_read_timeout),
            body_read_timeout: Duration::from_secs_f64(self.body_read_timeout),
            write_timeout: Duration::from_secs_f64(self.write_timeout),
            max_connections: self.max_connections as usize,
        }
    }
}

/// How long in-flight requests may take to finish after SIGINT/SIGTERM.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (colour only at a terminal).
    Text,
    /// One JSON object per line.
    Json,
}

/// Caps the PostgreSQL client's own log (statements with their parameters) at info.
const QUIET_SQL: &str = "tokio_postgres=info";

/// Logs go to stderr: stdout carries only the lines scripts read.
pub fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
        // The PostgreSQL client logs every statement with its parameters at debug: request
        // bodies, key digests, webhook passwords. Never, whatever RUST_LOG asks.
        .add_directive(QUIET_SQL.parse().expect("a valid directive"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => logs.with_ansi(colour_on_stderr()).try_init(),
        LogFormat::Json => logs
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
}

/// Colour codes only for a person at a terminal: never into files, pipes or log collectors,
/// and never when `NO_COLOR` is set (no-color.org).
fn colour_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Runs `dispatch serve` until SIGTERM or Ctrl-C.
pub fn run(args: ServeArgs) -> Result<(), String> {
    init_tracing(args.log_format);
    let clock = args.simulation.clock()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    // On a worker of the runtime, not on this thread: the accept loop then runs where the
    // connections it spawns run (a task spawned on a worker runs next on that worker), so a
    // new connection wakes one thread instead of this one and then a worker.
    runtime.block_on(async move {
        match tokio::spawn(serve(args, clock)).await {
            Ok(served) => served,
            Err(ended) if ended.is_panic() => std::panic::resume_unwind(ended.into_panic()),
            Err(ended) => Err(format!("the server stopped: {ended}")),
        }
    })
}

async fn serve(args: ServeArgs, clock: Arc<dyn Clock>) -> Result<(), String> {
    // Set up before anything can commit: every commit of this process that appends events
    // wakes the webhook worker.
    let outbox_commits = Arc::new(tokio::sync::Notify::new());
    let wake = outbox_commits.clone();
    // Store calls block (PostgreSQL's client refuses to run on a runtime thread at all): they
    // run on the blocking pool. Every route change appends an event too: driver feed streams
    // look at once.
    let db = args.db.clone();
    let on_commit = Arc::new(move || {
        wake.notify_one();
        dispatch_http::driver::wake_subscribers();
    });
    // The recorder first, so the database connections opened at start are counted too.
    dispatch_http::observability::handle();
    let mut service = blocking(move || db.open_service(on_commit)).await?;
    let store = service.store.clone();
    service.geocoder = args
        .geocoder
        .geocoder(service.geocoder, store.clone(), clock.clone())?;
    // Everything that can fail is opened before the listening line: scripts take that line to
    // mean the service is ready.
    let travel = args.background.travel.matrix()?;
    let mut routing = Routing::new(travel.clone());
    if let Some(roads) = args.background.travel.roads()? {
        routing = routing.with_roads(roads);
    }
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let metrics_listener = match &args.metrics_listen {
        Some(at) => Some(MetricsListener::bind(at).await?),
        None => None,
    };
    let public_url = match &args.public_url {
        Some(url) => url.clone(),
        None => {
            if addr.ip().is_unspecified() {
                tracing::warn!(%addr, "bound to every interface: links will name {addr}; set --public-url to the address clients use");
            }
            PublicUrl::for_listen_addr(addr)
        }
    };
    let state = AppState {
        store: store.clone(),
        clock,
        geocoder: service.geocoder,
        rate_limits_enabled: args.rate_limits == "on",
        idempotency: service.idempotency,
        jobs: Default::default(),
        images: Arc::new(Codec),
        uploads: Default::default(),
        routing: Arc::new(routing),
        public_url,
        docs_url: args.docs_url.clone(),
    };
    let (stopping_tx, mut stopping) = tokio::sync::watch::channel(false);
    let background = if args.background.enabled() {
        let context = background::Context {
            store: state.store.clone(),
            clock: state.clock.clone(),
            matrix: travel,
            links: dispatch_http::links::Links::of(&state),
            signal: state.jobs.clone(),
            uploads: state.uploads.clone(),
            outbox_commits,
        };
        Some(background::start(&args.background, context, stopping.clone()).await?)
    } else {
        tracing::info!("--workers off: no background work in this process (run `dispatch worker` on the same database)");
        None
    };
    let signalled = shutdown_signal()?;
    // The default depot and its key come last before the listening line: a start that fails
    // (a busy port, a bad flag) creates nothing, so the next start still prints the key.
    let (bootstrap_in, now) = (state.store.clone(), state.clock.now());
    if let Some(key) = blocking(move || {
        seed::bootstrap_default(&*bootstrap_in, &DerivedKeys, now)
            .map_err(|e| format!("cannot create the default depot: {e}"))
    })
    .await?
    {
        // A reader that went away does not stop the service (it serves on; the key can be
        // listed with `dispatch keys list`).
        let _ = super::stdout::line(&format!("access key: {key}"));
        // A log line (a JSON object under --log-format json), at warn so a quieter RUST_LOG
        // keeps it.
        tracing::warn!(
            "The access key above is shown only on this first start. `dispatch keys list --db {db}` lists depots and keys; `dispatch keys create --db {db} --depot ID --name NAME` makes a new key, `dispatch keys revoke` revokes one.",
            db = args.db
        );
    }
    place_default_depot(&args, &state).await?;
    let options = dispatch_http::AppOptions {
        metrics_elsewhere: metrics_listener.is_some(),
        console: args.console.config(),
        vroom: (args.vroom_api == "on").then(|| dispatch_http::vroom_api::VroomApi {
            time_limit: Duration::from_secs_f64(args.vroom_time_limit),
            max_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }),
    };
    // Logged before the listening line, so a script that read that line finds this one too.
    if let Some(at) = metrics_listener.as_ref().map(MetricsListener::addr) {
        tracing::info!(metrics_addr = %at, "serving /metrics on http://{at}/metrics");
    }
    let _ = super::stdout::line(&format!("listening on http://{addr}/v2"));
    tracing::info!(%addr, public_url = state.public_url.as_str(), db = %args.db, "serving");
    tracing::info!(
        "web console at {}",
        state.public_url.absolute_url("/console")
    );

    let limits = args.connection_limits();
    let metrics_server = metrics_listener.map(|m| m.spawn(state.clone(), limits, stopping.clone()));
    let server = dispatch_http::server::serve(
        listener,
        dispatch_http::app_with(state, &options),
        limits,
        async move {
            signalled.await;
            let _ = stopping_tx.send(true);
        },
    );
    // In-flight requests get a grace period; a client that never finishes cannot hold the
    // process forever. Nothing acknowledged is at risk: a response is only sent after commit.
    let deadline = async {
        let _ = stopping.wait_for(|stopping| *stopping).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        result = server => result.map_err(|e| format!("server failed: {e}"))?,
        () = deadline => tracing::warn!(?SHUTDOWN_GRACE, "requests still in flight after the grace period; stopping anyway"),
    }
    if let Some(metrics) = metrics_server {
        let _ = metrics.await;
    }
    // Running jobs stop their search and go back to the queue with the best solution found so
    // far, to resume on the next start or on another node.
    if let Some(background) = background {
        background.stop().await?;
    }
    tracing::info!("stopped");
    Ok(())
}

/// Runs a blocking start-up step (store calls) on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    step: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(step)
        .await
        .map_err(|e| format!("a start-up step failed: {e}"))?
}

/// Listens for SIGINT and SIGTERM from the moment it is called (before `listening on` is
/// printed, so a script that signals right after that line gets the graceful exit 0, not death
/// by the signal); the future completes on the first of them.
pub(crate) fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    #[cfg(unix)]
    let (mut interrupt, mut terminate) = {
        use tokio::signal::unix::{signal, SignalKind};
        let listen = |kind| signal(kind).map_err(|e| format!("cannot listen for signals: {e}"));
        (
            listen(SignalKind::interrupt())?,
            listen(SignalKind::terminate())?,
        )
    };
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = interrupt.recv() => {},
            _ = terminate.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down: finishing requests in flight");
    })
}

/// `--depot-address/--depot-lat/--depot-lng`: the default depot's position, while it has none
/// (set by the first start; `PUT /v2/depots/{id}` changes it later). An address that cannot be
/// geocoded, or coordinates out of range, stop the start with the reason.
async fn place_default_depot(args: &ServeArgs, state: &AppState) -> Result<(), String> {
    let placement = dispatch_core::service::depots::Placement {
        address: args.depot_address.clone(),
        lat: args.depot_lat,
        lng: args.depot_lng,
    };
    if placement.is_empty() {
        return Ok(());
    }
    let (store, geocoder, now) = (
        state.store.clone(),
        state.geocoder.clone(),
        state.clock.now(),
    );
    blocking(move || {
        let Some(scope) = seed::default_depot(&*store).map_err(|e| e.to_string())? else {
            return Ok(());
        };
        match dispatch_core::service::depots::place_unplaced(
            &*store, &*geocoder, scope, &placement, now,
        ) {
            Ok(true) => {
                tracing::info!(
                    depot_id = scope.depot_id,
                    "the default depot got its position"
                );
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(e) => Err(format!("--depot-address/--depot-lat/--depot-lng: {e}")),
        }
    })
    .await
}
