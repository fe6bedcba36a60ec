//! Helpers shared by the solver integration tests: finding the repository's benchmark instances and
//! reading the SINTEF route files of best-known solutions.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dispatch_core::solver::checker;
use dispatch_core::solver::formats::{self, Format, Instance};
use dispatch_core::solver::problem::{Objective, Problem};
use dispatch_core::solver::solution::Solution;

/// The benchmark instances shipped in the repository (`instances/` at its root).
pub fn instances() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../instances");
    assert!(
        dir.join("solomon/C101.txt").is_file(),
        "{} lacks the shipped benchmark instances",
        dir.display()
    );
    dir
}

/// A Solomon instance of the repository (`instances/solomon/NAME.txt`), distance objective.
pub fn solomon(name: &str) -> Problem {
    let text = read_text(&instances().join("solomon").join(format!("{name}.txt")));
    formats::read(&text, Some(Format::Solomon), Objective::Distance)
        .unwrap()
        .problem
}

/// A Gehring-Homberger instance of the repository (`instances/homberger/NAME.txt`, Solomon's
/// format), distance objective.
pub fn homberger(name: &str) -> Problem {
    let text = read_text(&instances().join("homberger").join(format!("{name}.txt")));
    formats::read(&text, Some(Format::Solomon), Objective::Distance)
        .unwrap()
        .problem
}

pub fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The route lines (`Route N : n1 n2 ...`) of a SINTEF solution file, as node numbers.
pub fn sintef_routes(text: &str) -> Vec<Vec<u64>> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("Route "))
        .map(|rest| {
            let (_, nodes) = rest.split_once(':').expect("`Route N : nodes`");
            nodes
                .split_whitespace()
                .map(|n| n.parse().expect("node number"))
                .collect()
        })
        .collect()
}

/// A solution visiting the given node sequences with vehicles 0, 1, ... at earliest times.
pub fn solution_from_nodes(instance: &Instance, routes: &[Vec<u64>]) -> Solution {
    Solution {
        routes: routes
            .iter()
            .enumerate()
            .map(|(k, nodes)| {
                let steps: Vec<_> = nodes
                    .iter()
                    .map(|&n| instance.node_step(n).expect("node of the instance"))
                    .collect();
                checker::schedule(&instance.problem, k, &steps)
            })
            .collect(),
        unassigned: Vec::new(),
    }
}

/// `(vehicles, distance)` from a BKS file name `<instance>.<vehicles>_<distance>.txt`.
pub fn figures_from_name(name: &str) -> (usize, f64) {
    let stem = name.strip_suffix(".txt").expect(".txt");
    let (_, figures) = stem.split_once('.').expect("instance.figures");
    let (v, d) = figures.split_once('_').expect("vehicles_distance");
    (v.parse().expect("vehicles"), d.parse().expect("distance"))
}
