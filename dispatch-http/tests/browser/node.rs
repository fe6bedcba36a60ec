//! The Node.js browser scenarios (`js/`, playwright-core driving Debian's Chromium): where
//! they are and whether they can run. In CI (`CI` set; `.ci/run` installs Node.js and runs
//! `npm ci`) a missing part fails the test; elsewhere the test says loudly that it did not run.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The scenarios' folder (its package.json pins playwright-core).
pub fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("dispatch-http/tests/browser/js")
}

/// Whether Node.js and the scenarios' packages are there (installing the packages with npm
/// when only they are missing); in CI a missing part fails.
pub fn node_ready(test: &str) -> bool {
    let dir = scripts();
    let installed = || {
        dir.join("node_modules/playwright-core/package.json")
            .is_file()
    };
    let has = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if has("node") && !installed() && has("npm") {
        let _ = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status();
    }
    let ready = has("node") && installed();
    if !ready {
        assert!(
            std::env::var_os("CI").is_none(),
            "Node.js and playwright-core are required in CI (.ci/run installs them)"
        );
        eprintln!(
            "NOT RUN: {test} needs node and `npm ci` in {}",
            dir.display()
        );
    }
    ready
}
