//! One scrape of `GET /metrics`, parsed strictly as the Prometheus text format.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::{self, Request, Server};

/// One scrape: `name{labels}` (labels as printed, sorted by the exporter) to value.
pub struct Scrape(pub BTreeMap<String, f64>);

impl Scrape {
    pub fn take(server: &Server) -> Scrape {
        Scrape::at(&server.addr)
    }

    /// GET /metrics at `addr`: 200 in the text format's content type.
    pub fn at(addr: &str) -> Scrape {
        let reply = support::send(addr, Request::new("GET", "/metrics", None));
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        Scrape::parse(&reply.text())
    }

    /// Scrapes `addr` until `done` holds (counters move just after the commits they count,
    /// which the API may show first); fails with `what` after 10 s.
    pub fn await_at(addr: &str, what: &str, done: impl Fn(&Scrape) -> bool) -> Scrape {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let scrape = Scrape::at(addr);
            if done(&scrape) {
                return scrape;
            }
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Once the first optimisation job is counted as succeeded.
    pub fn job_counted(&self) -> bool {
        self.get("dispatch_optimisation_jobs_finished_total{outcome=\"succeeded\"}") >= 1.0
    }

    /// Parses the text format strictly: comments are `# HELP` / `# TYPE`, a family's samples
    /// follow its `# TYPE` line, every sample is `name[{labels}] value` with a float value.
    pub fn parse(text: &str) -> Scrape {
        let mut samples = BTreeMap::new();
        let mut family: Option<(String, String)> = None;
        for line in text.lines().filter(|l| !l.is_empty()) {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').expect("# TYPE name kind");
                assert!(
                    ["counter", "gauge", "histogram", "summary"].contains(&kind),
                    "{line}"
                );
                family = Some((name.to_owned(), kind.to_owned()));
                continue;
            }
            if line.starts_with("# HELP ") {
                continue;
            }
            assert!(!line.starts_with('#'), "unknown comment: {line}");
            let (series, value) = line.rsplit_once(' ').expect("series value");
            let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line}"));
            let name = series.split('{').next().unwrap();
            let (family_name, kind) = family
                .as_ref()
                .unwrap_or_else(|| panic!("no # TYPE before {line}"));
            let base = match kind.as_str() {
                "histogram" => ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| name.strip_suffix(s))
                    .unwrap_or(name),
                _ => name,
            };
            assert_eq!(base, family_name, "{line} under the family {family_name}");
            if let Some(labels) = series.strip_prefix(name) {
                if !labels.is_empty() {
                    assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
                }
            }
            assert!(
                samples.insert(series.to_owned(), value).is_none(),
                "duplicate {series}"
            );
        }
        Scrape(samples)
    }

    /// The value of a series, 0 when absent (a counter not yet moved).
    pub fn get(&self, series: &str) -> f64 {
        self.0.get(series).copied().unwrap_or(0.0)
    }

    /// The sum over the series of `name` whose labels contain every one of `labels`.
    pub fn sum(&self, name: &str, labels: &[&str]) -> f64 {
        self.0
            .iter()
            .filter(|(s, _)| s.split('{').next() == Some(name))
            .filter(|(s, _)| labels.iter().all(|l| s.contains(l)))
            .map(|(_, v)| v)
            .sum()
    }
}
