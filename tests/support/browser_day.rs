//! A browser scenario (`dispatch-http/tests/browser/js/*.mjs`, playwright-core driving Debian's
//! Chromium) against the real binary: Chromium and Node.js found (outside CI a missing one
//! skips the test, saying so), a seeded database, the server started, then the script run with
//! the server's address; it must succeed in time and leave real screenshots, and its result
//! (the last line it prints) is handed back. The tests that include this file also include
//! `dispatch-http/tests/browser/{mod,node}.rs` as `browser` and `node`.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{seed, Server};
use crate::{browser, node};

/// A seeded service and the browser to drive it with.
pub struct BrowserDay {
    /// The running server.
    pub server: Server,
    /// What the seed printed (the depots' access keys).
    pub seeded: Value,
    chromium: PathBuf,
    // The database's folder lives as long as the server.
    _dir: tempfile::TempDir,
}

impl BrowserDay {
    /// Seeds `seed_file` and starts the server with `flags`; `None` when Chromium or Node.js
    /// is missing outside CI.
    pub fn start(test: &str, seed_file: &Value, flags: &[&str]) -> Option<BrowserDay> {
        let chromium = browser::chromium_for(test)?;
        if !node::node_ready(test) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("app.db");
        let seeded = seed(&db, seed_file);
        let server = Server::start_with(&db, flags);
        Some(BrowserDay {
            server,
            seeded,
            chromium,
            _dir: dir,
        })
    }

    /// The first depot's access key number `i` (in the seed file's order).
    pub fn key(&self, i: usize) -> String {
        self.seeded["organisations"][0]["depots"][0]["access_keys"][i]["key"]
            .as_str()
            .expect("a seeded key")
            .to_owned()
    }

    /// Runs `script` with `BASE` (the server), `CHROMIUM`, `SHOTS` (`target/tmp/<shots>`,
    /// emptied first) and `env`. Fails unless it succeeds within `limit` and each screenshot it
    /// lists holds a picture; returns its result and how long it took.
    pub fn run(
        &self,
        script: &str,
        shots: &str,
        env: &[(&str, &str)],
        limit: Duration,
    ) -> (Value, Duration) {
        let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(shots);
        let _ = std::fs::remove_dir_all(&shots);
        let started = Instant::now();
        let out = Command::new("node")
            .arg(script)
            .current_dir(node::scripts())
            .env("BASE", format!("http://{}", self.server.addr))
            .env("SHOTS", &shots)
            .env("CHROMIUM", &self.chromium)
            .envs(env.iter().copied())
            .output()
            .expect("node runs");
        let took = started.elapsed();
        let log = String::from_utf8_lossy(&out.stderr);
        eprintln!("{log}");
        assert!(out.status.success(), "{script} failed:\n{log}");
        assert!(took < limit, "{script} took {took:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let result: Value = serde_json::from_str(stdout.lines().last().expect("the result"))
            .expect("the result is JSON");
        for shot in result["screenshots"].as_array().expect("the screenshots") {
            let size = std::fs::metadata(shot.as_str().unwrap()).unwrap().len();
            assert!(size > 10_000, "{shot}: {size} bytes");
        }
        eprintln!("screenshots in {}", shots.display());
        (result, took)
    }
}
