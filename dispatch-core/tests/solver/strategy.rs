//! Which search `Strategy::Auto` runs by the problem's size: the population for distance-only
//! problems without shipments or breaks of up to 1 000 tasks, the annealing beyond. Each
//! strategy's routes are fixed by the seed and the budget, so Auto must give the routes of the
//! one it picks; every solution passes the independent checker.

use std::collections::BTreeSet;

use crate::solver_support::homberger;
use dispatch_core::solver::checker;
use dispatch_core::solver::problem::Problem;
use dispatch_core::solver::solution::Solution;
use dispatch_core::solver::{solve_with, Config, Control, Strategy};

struct Unlimited;

impl Control for Unlimited {
    fn should_stop(&self) -> bool {
        false
    }
}

fn solved(p: &Problem, strategy: Strategy, iterations: u64) -> Solution {
    let config = Config {
        seed: 7,
        threads: 1,
        max_iterations: Some(iterations),
    };
    let s = solve_with(p, &config, strategy, &Unlimited);
    let report = checker::check(p, &s);
    assert!(
        report.is_feasible(),
        "{strategy:?}: {:?}",
        report.violations
    );
    assert!(s.unassigned.is_empty(), "{strategy:?}: {:?}", s.unassigned);
    s
}

/// Auto gives the routes of `picked` and not those of `other` (the budget reaches past the
/// first child's education, where the two searches part).
fn assert_auto_picks(p: &Problem, picked: Strategy, other: Strategy, iterations: u64) {
    let auto = solved(p, Strategy::Auto, iterations);
    assert!(auto == solved(p, picked, iterations), "{picked:?}'s routes");
    assert!(auto != solved(p, other, iterations), "not {other:?}'s");
}

#[test]
fn auto_takes_the_population_at_four_hundred_customers() {
    let p = homberger("r1_4_1");
    assert_auto_picks(&p, Strategy::Population, Strategy::Annealing, 1_200);
}

#[test]
fn auto_keeps_the_annealing_beyond_a_thousand_tasks() {
    let mut p = homberger("r1_10_1");
    assert_eq!(p.jobs.len(), 1_000);
    // One more customer, beside the first, with a new id.
    let ids: BTreeSet<u64> = p.jobs.iter().map(|j| j.id).collect();
    let mut extra = p.jobs[0].clone();
    extra.id = ids.last().expect("jobs") + 1;
    p.jobs.push(extra);
    assert_auto_picks(&p, Strategy::Annealing, Strategy::Population, 1_000);
}

#[test]
fn children_educated_longer_at_a_thousand_customers_keep_the_rules() {
    // 2 000 education iterations a child here: the budget spans the first child, new
    // individuals and children of the route exchange.
    let p = homberger("rc2_10_1");
    let a = solved(&p, Strategy::Population, 4_000);
    assert!(
        a == solved(&p, Strategy::Population, 4_000),
        "same seed, same routes"
    );
}
