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
