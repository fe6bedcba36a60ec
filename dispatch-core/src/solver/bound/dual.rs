//! The Lagrangian dual of the placement relaxation: prices found on a smoothed dual, then
//! valued exactly (the certified bound) and turned into a feasible fractional assignment.

use super::Task;

/// The smoothing stages, in tasks: coarse prices first, refined under ever sharper maxima.
const SMOOTHING: [f64; 7] = [1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001];
/// Gradient steps per stage.
const STEPS: usize = 400;

/// Minimises the smoothed dual over `λ >= 0`, from coarse to fine smoothing.
pub(super) fn minimise_dual(tasks: &[Task], n: usize, rows: usize) -> Vec<f64> {
    SMOOTHING.iter().fold(vec![0.0; n], |prices, &mu| {
        projected_gradient(tasks, prices, rows, mu, STEPS)
    })
}

/// Projected gradient with Barzilai-Borwein steps and a backtracking check of sufficient
/// decrease: the smoothed dual is convex with a gradient that is Lipschitz for `mu > 0`.
fn projected_gradient(
    tasks: &[Task],
    mut x: Vec<f64>,
    rows: usize,
    mu: f64,
    steps: usize,
) -> Vec<f64> {
    let (mut f, mut g) = smoothed(tasks, &x, rows, mu);
    let mut alpha = mu;
    for _ in 0..steps {
        loop {
            let y: Vec<f64> = x
                .iter()
                .zip(&g)
                .map(|(x, g)| (x - alpha * g).max(0.0))
                .collect();
            let (fy, gy) = smoothed(tasks, &y, rows, mu);
            let d: Vec<f64> = y.iter().zip(&x).map(|(y, x)| y - x).collect();
            let lin: f64 = d.iter().zip(&g).map(|(d, g)| d * g).sum();
            let sq: f64 = d.iter().map(|d| d * d).sum();
            if fy <= f + lin + sq / (2.0 * alpha) + 1e-12 || alpha < 1e-12 {
                let dg: Vec<f64> = gy.iter().zip(&g).map(|(a, b)| a - b).collect();
                let sy: f64 = d.iter().zip(&dg).map(|(d, e)| d * e).sum();
                alpha = if sy > 1e-15 { sq / sy } else { alpha * 2.0 };
                let moved = sq > 0.0;
                (x, f, g) = (y, fy, gy);
                if !moved {
                    return x;
                }
                break;
            }
            alpha /= 2.0;
        }
    }
    x
}

/// `w - λ·use` of every option of `t`.
fn reduced<'a>(t: &'a Task, prices: &'a [f64], rows: usize) -> impl Iterator<Item = f64> + 'a {
    t.options.iter().map(move |o| {
        let lam = &prices[o.class * rows..(o.class + 1) * rows];
        t.weight - lam.iter().zip(&o.use_).map(|(l, u)| l * u).sum::<f64>()
    })
}

/// The exact dual: an upper bound on every feasible fractional assignment.
pub(super) fn dual(tasks: &[Task], prices: &[f64], rows: usize) -> f64 {
    let pooled: f64 = prices.iter().sum();
    pooled
        + tasks
            .iter()
            .map(|t| reduced(t, prices, rows).fold(0.0, f64::max))
            .sum::<f64>()
}

/// Softmax weights of "left out" (first) and each option of `t`, and the smoothed maximum.
fn softmax(t: &Task, prices: &[f64], rows: usize, mu: f64) -> (Vec<f64>, f64) {
    let z: Vec<f64> = std::iter::once(0.0)
        .chain(reduced(t, prices, rows))
        .collect();
    let m = z.iter().copied().fold(0.0, f64::max);
    let e: Vec<f64> = z.iter().map(|z| ((z - m) / mu).exp()).collect();
    let s: f64 = e.iter().sum();
    (e.into_iter().map(|e| e / s).collect(), m + mu * s.ln())
}

fn smoothed(tasks: &[Task], prices: &[f64], rows: usize, mu: f64) -> (f64, Vec<f64>) {
    let mut value: f64 = prices.iter().sum();
    let mut grad = vec![1.0; prices.len()];
    for t in tasks {
        let (p, smax) = softmax(t, prices, rows, mu);
        value += smax;
        for (o, &pk) in t.options.iter().zip(&p[1..]) {
            for (r, u) in o.use_.iter().enumerate() {
                grad[o.class * rows + r] -= pk * u;
            }
        }
    }
    (value, grad)
}

/// A feasible fractional assignment from the prices' softmax, each class scaled into its budget.
pub(super) fn primal(tasks: &[Task], prices: &[f64], classes: usize, rows: usize) -> f64 {
    let mu = SMOOTHING[SMOOTHING.len() - 1];
    let shares: Vec<Vec<f64>> = tasks
        .iter()
        .map(|t| softmax(t, prices, rows, mu).0)
        .collect();
    let mut load = vec![0.0; classes * rows];
    for (t, p) in tasks.iter().zip(&shares) {
        for (o, &pk) in t.options.iter().zip(&p[1..]) {
            for (r, u) in o.use_.iter().enumerate() {
                load[o.class * rows + r] += pk * u;
            }
        }
    }
    let scale: Vec<f64> = (0..classes)
        .map(|k| {
            let worst = load[k * rows..(k + 1) * rows]
                .iter()
                .copied()
                .fold(0.0, f64::max);
            if worst > 1.0 {
                1.0 / worst
            } else {
                1.0
            }
        })
        .collect();
    tasks
        .iter()
        .zip(&shares)
        .map(|(t, p)| {
            let placed: f64 = t
                .options
                .iter()
                .zip(&p[1..])
                .map(|(o, pk)| pk * scale[o.class])
                .sum();
            t.weight * placed
        })
        .sum()
}
