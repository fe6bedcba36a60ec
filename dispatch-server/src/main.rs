//! The `dispatch` binary: a thin shell over the library crates.
//! Subcommands and flags follow `operator-interface.md` exactly.

use std::process::ExitCode;

use dispatch_server::cli::serve::LogFormat;
use dispatch_server::cli::Command;

fn main() -> ExitCode {
    bound_malloc_growth();
    let cli = dispatch_server::cli::parse();
    // Under --log-format json every line on stderr is a JSON object, the error that ends the
    // process too: it is logged through the subscriber `run` installed.
    let mut json_logs = false;
    let result = match cli.command {
        Command::Serve(args) => {
            json_logs = args.log_format == LogFormat::Json;
            dispatch_server::cli::serve::run(*args)
        }
        Command::Worker(args) => {
            json_logs = args.log_format == LogFormat::Json;
            dispatch_server::cli::worker::run(*args)
        }
        Command::Seed(args) => dispatch_server::cli::seed::run(args),
        Command::Solve(args) => match dispatch_server::cli::solve::run(args) {
            Ok(code) => return code,
            Err(message) => Err(message),
        },
        Command::ExportProblem(args) => dispatch_server::cli::export_problem::run(args),
        Command::Webhooks(args) => dispatch_server::cli::webhooks::run(args),
        Command::Keys(args) => dispatch_server::cli::keys::run(args),
        Command::Backup(args) => dispatch_server::cli::backup::run(args),
        Command::DriverApp(args) => dispatch_server::cli::driver_app::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if json_logs => {
            tracing::error!("{message}");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// glibc gives each thread that allocates under contention an arena of its own (up to eight per
/// core) and never hands one arena's free memory to another. A request's body is read on a
/// runtime thread and its orders written on a blocking one, so a large request could leave
/// its size behind in several arenas: the peak resident set grew by 46-67 MB for one 20 MB
/// body. Two arenas keep that growth near the body's size while two threads still allocate
/// without waiting on each other.
///
/// glibc also raises its mmap threshold to the size of each large block freed (up to 32 MB),
/// after which blocks of a large body's size come from the arenas, where freed ones stay
/// resident and are not reused across arenas: the same 20 MB update then grew the peak by
/// 31-51 MB from run to run. A fixed threshold (glibc's initial 128 KiB) keeps large blocks
/// mapped and returned when freed: 31-32 MB every run.
///
/// An operator's own `MALLOC_ARENA_MAX` or `MALLOC_MMAP_THRESHOLD_` is left as set.
fn bound_malloc_growth() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    for (variable, parameter, value) in [
        ("MALLOC_ARENA_MAX", libc::M_ARENA_MAX, 2),
        ("MALLOC_MMAP_THRESHOLD_", libc::M_MMAP_THRESHOLD, 128 * 1024),
    ] {
        if std::env::var_os(variable).is_none() {
            // SAFETY: mallopt only sets an allocator parameter; it is called before any
            // other thread exists.
            #[allow(unsafe_code)]
            unsafe {
                libc::mallopt(parameter, value);
            }
        }
    }
}
