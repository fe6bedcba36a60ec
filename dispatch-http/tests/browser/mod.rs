//! Headless Chromium (Debian's `chromium` package) for the browser tests of the tracking page
//! and the console. In CI (`CI` set; `.ci/run` installs Chromium) a missing browser fails the
//! test; elsewhere the test says loudly that it did not run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium on PATH; `None` (after saying so) when it is missing outside CI.
pub fn chromium_for(test: &str) -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| {
            std::env::var_os("PATH")
                .map(|p| {
                    std::env::split_paths(&p)
                        .map(|d| d.join(name))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Chromium is required in CI (.ci/run installs Debian's chromium package)"
        );
        eprintln!("NOT RUN: {test} needs chromium on PATH");
    }
    found
}

/// Runs headless Chromium on `url` with `extra` arguments (a fresh profile in `profile`, a
/// window of `size`); its stdout.
pub fn run_chromium(
    browser: &Path,
    profile: &Path,
    size: (u32, u32),
    url: &str,
    extra: &[&str],
) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            // Chromium's own calls home, which a test of what a page loads must not see.
            "--no-pings",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-features=OptimizationHints,OptimizationHintsFetching,\
                OptimizationGuideModelDownloading,AutofillServerCommunication,\
                NetworkTimeServiceQuerying,Translate,MediaRouter",
        ])
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Everywhere but loopback, for a browser test: Chromium takes it as its proxy
/// ([`OutsideWorld::proxy_flag`]; loopback addresses bypass proxies), so whatever a page tries
/// to load from elsewhere arrives here and is recorded (its request line: `CONNECT host:443` or
/// `GET http://host/...`) and refused. A page that works offline leaves it empty.
pub struct OutsideWorld {
    addr: std::net::SocketAddr,
    seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl OutsideWorld {
    pub fn start() -> OutsideWorld {
        use std::io::BufRead;
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (record, stopped) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let record = record.clone();
                // A thread per connection: a slow one does not hold back the next.
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                    let mut line = String::new();
                    match std::io::BufReader::new(stream).read_line(&mut line) {
                        // Closed without a byte: a connection Chromium opened ahead of need
                        // (a preconnect) and dropped on exit, which loaded nothing.
                        Ok(0) => {}
                        Ok(_) => record.lock().unwrap().push(line.trim_end().to_owned()),
                        Err(e) => record
                            .lock()
                            .unwrap()
                            .push(format!("(a connection that sent no request: {e})")),
                    }
                });
            }
        });
        OutsideWorld { addr, seen, stop }
    }

    /// The Chromium argument that sends every non-loopback request here.
    pub fn proxy_flag(&self) -> String {
        format!("--proxy-server=http://{}", self.addr)
    }

    /// The request lines received so far, but those of Chromium's own services.
    pub fn requests(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|line| !BROWSER_OWN_SERVICES.iter().any(|host| names(line, host)))
            .cloned()
            .collect()
    }
}

/// Hosts Chromium calls by itself whatever the page (network time, component updates, sign-in,
/// autofill, optimisation hints), should a flag of [`run_chromium`] not hold it back: exact names, so a page's own loads
/// from their neighbours (`fonts.googleapis.com`, `fonts.gstatic.com`) still count.
const BROWSER_OWN_SERVICES: &[&str] = &[
    "clients2.google.com",
    "update.googleapis.com",
    "accounts.google.com",
    "content-autofill.googleapis.com",
    "optimizationguide-pa.googleapis.com",
];

/// Whether the request line `line` (`CONNECT host:port ...` or `METHOD http://host/...`) is
/// addressed to `host`.
fn names(line: &str, host: &str) -> bool {
    let target = line.split(' ').nth(1).unwrap_or_default();
    let target = target.strip_prefix("http://").unwrap_or(target);
    let authority = target.split('/').next().unwrap_or_default();
    authority.split(':').next() == Some(host)
}

impl Drop for OutsideWorld {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wakes the accepting thread so it sees the flag and ends.
        let _ = std::net::TcpStream::connect(self.addr);
    }
}
