//! `dispatch worker` as a subprocess, with its JSON log in a file (shared by `tests/nodes/nodes.rs`
//! and `examples/bench_nodes.rs`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::binary;

/// A running `dispatch worker`; killed (SIGKILL) when dropped.
pub struct Worker {
    pub child: Child,
    pub log: PathBuf,
    pub node: String,
}

impl Worker {
    /// `dispatch worker --db DB --node-id NODE --log-format json` with `flags`, its log in
    /// `dir/NODE.log`; returns once it printed that it runs.
    pub fn start(db: &str, node: &str, dir: &Path, flags: &[&str]) -> Worker {
        let log = dir.join(format!("{node}.log"));
        let mut child = Command::new(binary())
            .args([
                "worker",
                "--db",
                db,
                "--node-id",
                node,
                "--log-format",
                "json",
            ])
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("worker log"))
            .spawn()
            .expect("spawn dispatch worker");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the worker's stdout");
        assert!(
            line.starts_with(&format!("worker {node} running on ")),
            "{line:?}"
        );
        Worker {
            child,
            log,
            node: node.to_owned(),
        }
    }

    /// The jobs of this worker's log lines with `message`.
    pub fn jobs(&self, message: &str) -> Vec<String> {
        jobs_logged(&self.log, message)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The jobs of the JSON log lines with `message`, in log order.
pub fn jobs_logged(log: &Path, message: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["message"] == message)
        .filter_map(|l| Some(l["job"].as_str()?.to_owned()))
        .collect()
}

/// The log lines that name a job or warn: what assertions show when they fail.
pub fn job_log(log: &Path) -> String {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"job\"") || l.contains("ERROR") || l.contains("WARN"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The fields of `/proc/PID/stat` after the parenthesised command name (none where the
/// process or `/proc` is missing): the state is field 0, the parent's pid field 1.
fn stat_fields(pid: u32) -> Vec<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    rest.split_whitespace().map(str::to_owned).collect()
}

/// Clock ticks in field `i` of `fields` (0 where absent).
fn ticks(fields: &[String], i: usize) -> f64 {
    fields
        .get(i)
        .and_then(|f| f.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// CPU seconds (user + system) the process `pid` has used so far (Linux `/proc`; 0 elsewhere).
pub fn cpu_seconds(pid: u32) -> f64 {
    let fields = stat_fields(pid);
    (ticks(&fields, 11) + ticks(&fields, 12)) / 100.0
}

/// [`cpu_seconds`] with the CPU of the children `pid` has reaped (a server whose worker
/// processes come and go).
pub fn cpu_seconds_with_reaped_children(pid: u32) -> f64 {
    let fields = stat_fields(pid);
    (ticks(&fields, 11) + ticks(&fields, 12) + ticks(&fields, 13) + ticks(&fields, 14)) / 100.0
}

/// The parent of process `pid`, if it is running.
pub fn parent_pid(pid: u32) -> Option<u32> {
    stat_fields(pid).get(1)?.parse().ok()
}
