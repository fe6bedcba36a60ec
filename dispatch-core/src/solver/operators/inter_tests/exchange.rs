//! 2-opt*'s constant-time verdict against re-simulation and the independent checker, on seeded
//! random days whose vehicles are interchangeable and have no breaks (where the caches decide):
//! every cut of every pair of routes, including a cut before the first visit and exchanges
//! with an unused vehicle.

use super::super::inter::{apply, Change};
use super::super::two_opt_star::{allows, decidable, decide_all, joined, simulated};
use super::random;
use crate::solver::checker;
use crate::solver::instance::Instance;
use crate::solver::output::to_solution;
use crate::solver::precheck::precheck;
use crate::solver::rng::Rng;
use crate::solver::state::State;
use crate::solver::warm::initial;

/// Compares the verdicts on one random day; returns how many exchanges were feasible and how
/// many were not (so that the caller can see both kinds were exercised).
fn compare(seed: u64, max_tasks: Option<usize>) -> (usize, usize) {
    let mut rng = Rng::new(seed, 11);
    let mut p = random::day(&mut rng);
    for v in &mut p.vehicles {
        v.breaks.clear();
        v.max_tasks = max_tasks;
    }
    let plan = random::plan(&p, &mut rng);
    let mut inst = Instance::new(&p);
    let reasons = precheck(&p, &mut inst);
    let tasks: Vec<u32> = (0..inst.tasks.len() as u32)
        .filter(|&t| reasons[t as usize].is_none())
        .collect();
    let (s, _): (State, _) = initial(&inst, &tasks, &plan);
    let (mut yes, mut no) = (0, 0);
    for a in 0..s.routes.len() {
        for b in 0..s.routes.len() {
            let (ra, rb) = (&s.routes[a], &s.routes[b]);
            if a == b {
                continue;
            }
            assert!(
                decidable(&inst, ra, rb),
                "seed {seed}: the caches must decide"
            );
            for i in 0..=ra.len() {
                for j in 0..=rb.len() {
                    let (na, nb) = (joined(ra, i, rb, j), joined(rb, j, ra, i));
                    let cached = allows(&inst, ra, i, rb, j);
                    assert_eq!(
                        cached,
                        simulated(&inst, ra, i, rb, j),
                        "seed {seed}: {a}/{i} x {b}/{j}: {na:?} {nb:?}"
                    );
                    if !cached {
                        no += 1;
                        continue;
                    }
                    yes += 1;
                    let mut t = s.clone();
                    let change = Change {
                        a: na,
                        b: nb,
                        delta: -1,
                    };
                    apply(&inst, &mut t, a, b, change);
                    let report = checker::check(&p, &to_solution(&inst, &t, &reasons));
                    assert!(report.is_feasible(), "seed {seed}: {:?}", report.violations);
                }
            }
        }
    }
    // The micro-benchmarks' sweep gives the same verdicts both ways.
    assert_eq!(decide_all(&inst, &s, true), decide_all(&inst, &s, false));
    (yes, no)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    #[test]
    fn two_opt_star_decides_from_caches_as_simulation_and_checker_do(
        seed in 0u64..1_000_000,
        max_tasks in proptest::option::of(3usize..12),
    ) {
        compare(seed, max_tasks);
    }
}

#[test]
fn two_opt_star_cached_verdicts_cover_feasible_and_infeasible_exchanges() {
    let (mut yes, mut no) = (0, 0);
    for seed in 0..8 {
        let (y, n) = compare(seed, None);
        yes += y;
        no += n;
    }
    assert!(yes > 100 && no > 100, "feasible {yes}, infeasible {no}");
}
