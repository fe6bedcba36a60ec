//! Writes the sample depots (`dispatch_workspace::depot_day::SAMPLE_SET`), or any other generated
//! depot day, as VROOM-style JSON, with a manifest of what each file holds and its checksum.
//!
//! ```text
//! cargo run --release --example depot_days                  # the whole set into instances/depots/
//! cargo run --release --example depot_days -- --check       # regenerate and compare with MANIFEST
//! cargo run --release --example depot_days -- --orders 300 --day 7 --out /tmp
//! cargo run --release --example depot_days -- --orders 5000 --tasks-per-vehicle 18
//! ```

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use clap::Parser;
use dispatch_workspace::depot_day::{write_day, DaySpec, SAMPLE_SET, TIGHT_FLEET};

/// Generate realistic depot days (VROOM-style JSON).
#[derive(Debug, Parser)]
struct Args {
    /// One day of this many orders instead of the sample set.
    #[arg(long)]
    orders: Option<usize>,
    /// Day number of that one day.
    #[arg(long, default_value_t = 1)]
    day: u32,
    /// One vehicle per this many tasks for that day, instead of the sample set's tight 26: a
    /// looser fleet on which every task can be placed (same orders, more vehicles; the file is
    /// named `depot-5000-1-per18.json`).
    #[arg(long, default_value_t = NonZeroUsize::new(TIGHT_FLEET).unwrap())]
    tasks_per_vehicle: NonZeroUsize,
    /// Output folder [default: the repository's instances/depots/].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Regenerate the sample set in memory and compare with the folder's MANIFEST.
    #[arg(long)]
    check: bool,
}

/// FNV-1a, 64 bits: a checksum without a dependency, enough to tell two generations apart.
struct Fnv(u64, u64);

impl Write for Fnv {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        self.1 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes the day (unless `dir` is `None`) and returns its manifest line.
fn generate(spec: DaySpec, dir: Option<&Path>) -> Result<String, String> {
    let mut sum = Fnv(0xcbf2_9ce4_8422_2325, 0);
    let summary = match dir {
        Some(dir) => {
            let path = dir.join(spec.file_name());
            let file =
                std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut tee = Tee(BufWriter::new(file), &mut sum);
            let s = write_day(spec, &mut tee).map_err(|e| e.to_string())?;
            tee.0.flush().map_err(|e| e.to_string())?;
            s
        }
        None => write_day(spec, &mut sum).map_err(|e| e.to_string())?,
    };
    Ok(format!(
        "{} orders={} jobs={} shipments={} vehicles={} locations={} bytes={} fnv64={:016x}",
        spec.file_name(),
        spec.orders,
        summary.jobs,
        summary.shipments,
        summary.vehicles,
        summary.locations,
        sum.1,
        sum.0
    ))
}

struct Tee<'a, W: Write>(W, &'a mut Fnv);

impl<W: Write> Write for Tee<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(buf)?;
        self.1.write_all(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let dir = args
        .out
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/depots"));
    if let Some(orders) = args.orders {
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let spec = DaySpec {
            orders,
            day: args.day,
            tasks_per_vehicle: args.tasks_per_vehicle.get(),
        };
        println!("{}", generate(spec, Some(&dir))?);
        return Ok(());
    }
    let manifest = dir.join("MANIFEST");
    if args.check {
        let expected = std::fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
        let mut actual = String::new();
        for &spec in SAMPLE_SET {
            writeln!(actual, "{}", generate(spec, None)?).unwrap();
        }
        if actual != expected {
            return Err(format!(
                "generation differs from {}:\n{actual}",
                manifest.display()
            ));
        }
        println!(
            "all {} sample depots match {}",
            SAMPLE_SET.len(),
            manifest.display()
        );
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut lines = String::new();
    for &spec in SAMPLE_SET {
        let line = generate(spec, Some(&dir))?;
        println!("{line}");
        writeln!(lines, "{line}").unwrap();
    }
    std::fs::write(&manifest, lines).map_err(|e| e.to_string())?;
    Ok(())
}
