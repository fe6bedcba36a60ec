//! A throwaway PostgreSQL cluster for tests and local trials: `initdb` in a temporary
//! directory, a server on a free loopback port, one fresh database per caller.
//!
//! The server binaries are found through `DISPATCH_PG_BIN` (a directory), then `initdb` on
//! `PATH`, then the newest `/usr/lib/postgresql/*/bin` (Debian's layout). PostgreSQL refuses to
//! run as root, so under root the cluster runs as the `postgres` user (`runuser`).
//!
//! The cluster stops when the [`Cluster`] is dropped and, whatever happens to the process that
//! started it (a panic, `kill -9`), a watchdog stops it and deletes its directory once that
//! process is gone: a test binary keeping one cluster in a `static` leaves nothing behind.
//!
//! ```no_run
//! let cluster = dispatch_store_postgres::throwaway::Cluster::start().unwrap();
//! let url = cluster.create_database().unwrap();
//! let store = dispatch_store_postgres::PostgresStore::open(&url).unwrap();
//! ```

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The superuser of a throwaway cluster (trust authentication on loopback).
const USER: &str = "dispatch";

/// A running throwaway cluster.
#[derive(Debug)]
pub struct Cluster {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    databases: AtomicU32,
    template: OnceLock<Result<String, String>>,
}

impl Cluster {
    /// Initialises and starts a cluster; fails with what went wrong (binaries missing,
    /// `initdb` or the server failing, with the server log). Tests want speed, not durability:
    /// fsync and synchronous commit are off.
    pub fn start() -> Result<Cluster, String> {
        Self::start_with("-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
    }

    /// [`Cluster::start`] with PostgreSQL's durable defaults (fsync, synchronous commit and
    /// full-page writes on), for benchmarks that compare with a production database.
    pub fn start_durable() -> Result<Cluster, String> {
        Self::start_with("")
    }

    /// [`Cluster::start_durable`] with more server settings (`-c name=value ...`), e.g. a
    /// benchmark's `-c shared_preload_libraries=pg_stat_statements` to count statements.
    pub fn start_durable_with(settings: &str) -> Result<Cluster, String> {
        Self::start_with(settings)
    }

    /// The server's process id (the postmaster's, from its pid file): the database's own CPU
    /// is this process's and its children's.
    pub fn server_pid(&self) -> Option<u32> {
        let pid_file =
            std::fs::read_to_string(self.dir.join("data").join("postmaster.pid")).ok()?;
        pid_file.lines().next()?.trim().parse().ok()
    }

    fn start_with(durability: &str) -> Result<Cluster, String> {
        let bin = binaries()?;
        let as_postgres = running_as_root();
        let dir = fresh_dir()?;
        let mut cluster = Cluster {
            dir,
            bin,
            port: 0,
            as_postgres,
            databases: AtomicU32::new(0),
            template: OnceLock::new(),
        };
        if as_postgres {
            run(Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&cluster.dir))?;
        }
        cluster.watch();
        let data = cluster.dir.join("data");
        run(cluster.command("initdb").arg("-D").arg(&data).args([
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]))?;
        // A free port can be taken between choosing and binding it: try a few.
        let mut last = String::new();
        for _ in 0..5 {
            cluster.port = free_port()?;
            let options = format!(
                "-c listen_addresses=127.0.0.1 -p {} -k {} {durability} -c max_connections=300 \
                 -c shared_buffers=32MB",
                cluster.port,
                cluster.dir.display()
            );
            let started = run(cluster
                .command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .args(["-o", &options, "-l"])
                .arg(cluster.dir.join("server.log"))
                .args(["-w", "-t", "60", "start"]));
            match started {
                Ok(()) => return Ok(cluster),
                Err(e) => {
                    let log =
                        std::fs::read_to_string(cluster.dir.join("server.log")).unwrap_or_default();
                    last = format!("{e}\n{log}");
                }
            }
        }
        Err(format!("the throwaway PostgreSQL did not start: {last}"))
    }

    /// The cluster of this process, started on first use and shared by its callers; stopped by
    /// the watchdog when the process ends.
    pub fn shared() -> Result<&'static Cluster, String> {
        static SHARED: OnceLock<Result<Cluster, String>> = OnceLock::new();
        SHARED
            .get_or_init(Cluster::start)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address of database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a new, empty database and returns its address.
    pub fn create_empty_database(&self) -> Result<String, String> {
        let name = self.next_name();
        self.admin(&format!("CREATE DATABASE {name}"))?;
        Ok(self.url(&name))
    }

    /// Creates a new database holding the current schema (copied from a template migrated
    /// once per cluster) and returns its address.
    pub fn create_database(&self) -> Result<String, String> {
        let template = self
            .template
            .get_or_init(|| {
                let url = self.create_empty_database()?;
                drop(crate::PostgresStore::open(&url).map_err(|e| e.to_string())?);
                Ok(url.rsplit('/').next().unwrap_or_default().to_owned())
            })
            .clone()?;
        let name = self.next_name();
        self.admin(&format!("CREATE DATABASE {name} TEMPLATE {template}"))?;
        Ok(self.url(&name))
    }

    fn next_name(&self) -> String {
        format!("d{}", self.databases.fetch_add(1, Ordering::Relaxed))
    }

    fn admin(&self, sql: &str) -> Result<(), String> {
        let mut client = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .map_err(|e| e.to_string())?;
        client.batch_execute(sql).map_err(|e| e.to_string())
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        command.current_dir(&self.dir);
        command
    }

    fn stop_command(&self) -> String {
        let pg_ctl = self.bin.join("pg_ctl");
        let data = self.dir.join("data");
        let stop = format!(
            "'{}' -D '{}' -m immediate -w stop",
            pg_ctl.display(),
            data.display()
        );
        if self.as_postgres {
            format!("runuser -u postgres -- {stop}")
        } else {
            stop
        }
    }

    /// Starts the watchdog: it waits for this process to end, then stops the server and removes
    /// the directory.
    fn watch(&self) {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{dir}'",
            pid = std::process::id(),
            stop = self.stop_command(),
            dir = self.dir.display()
        );
        let _ = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("sh")
            .args(["-c", &self.stop_command()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn run(command: &mut Command) -> Result<(), String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{command:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The directory of the server binaries.
fn binaries() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("DISPATCH_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file());
    if let Some(dir) = on_path {
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| not_found())?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(not_found)
}

fn not_found() -> String {
    "PostgreSQL server binaries (initdb, pg_ctl) not found: install PostgreSQL \
     (apt-get install postgresql) or set DISPATCH_PG_BIN"
        .into()
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A new directory under the system's temporary directory (short: the server's Unix socket
/// path lives in it).
fn fresh_dir() -> Result<PathBuf, String> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = Path::new("/tmp").join(format!(
        "dpg-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}
