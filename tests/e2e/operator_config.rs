//! Configuration the 12-factor way, through the real binary: every `serve` flag from its
//! `DISPATCH_*` variable with the flag winning, `--help` naming the variables, docs/configuration.md's
//! table listing them all; and the first-hour messages (`--listen 8080`, `dispatch --help`,
//! no colour codes in logs that are not a terminal).

use crate::support;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;

use support::{binary, db_arg, send, Fixture, Request, Serving};

/// `dispatch serve` with exactly `args` and `env` (nothing added), run in `dir`.
fn serve(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Serving {
    Serving::start(
        Command::new(binary())
            .current_dir(dir)
            .arg("serve")
            .args(args)
            .env_remove("RUST_LOG")
            .envs(env.iter().copied())
            .stderr(Stdio::null()),
    )
}

/// Status of the third of three booking checks sent at once: the strict tier allows two in
/// 15 seconds, so it is refused (403) when rate limits are on, however slow the machine.
fn third_strict_call(serving: &Serving, key: &str) -> u16 {
    let body = json!({"date": "2026-11-24", "order": {"type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1}});
    let call = || {
        let request = Request::new("POST", "/v2/booking/availability", Some(key)).json(&body);
        send(&serving.addr, request).status
    };
    call();
    call();
    call()
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(binary())
        .args(args)
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn serve_flags_come_from_dispatch_variables_and_a_flag_given_wins() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Fixture::seed(&dir.path().join("env.db"));
    // The file (or, under DISPATCH_TEST_DB=postgres, the database) the fixture went into.
    let env_db = db_arg(&dir.path().join("env.db"));

    // Database, address and rate limits from the environment alone.
    let env = [
        ("DISPATCH_DB", env_db.as_str()),
        ("DISPATCH_LISTEN", "127.0.0.1:0"),
        ("DISPATCH_RATE_LIMITS", "off"),
    ];
    let running = serve(dir.path(), &[], &env);
    assert_eq!(third_strict_call(&running, &fixture.key), 200);
    drop(running);
    assert!(
        !dir.path().join("dispatch.db").exists(),
        "DISPATCH_DB was used"
    );

    // The flag wins over its variable.
    let running = serve(dir.path(), &["--rate-limits", "on"], &env);
    assert_eq!(third_strict_call(&running, &fixture.key), 403);
    drop(running);
    let flag_db = db_arg(&dir.path().join("flag.db"));
    let running = serve(dir.path(), &["--db", &flag_db], &env);
    assert_eq!(
        send(
            &running.addr,
            Request::new("GET", "/v2/capacities", Some(&fixture.key))
        )
        .status,
        401,
        "the flag's (empty) database, not DISPATCH_DB's"
    );
    drop(running);

    // A bad value from the environment is refused like a bad flag; a flag given replaces it
    // without it being looked at.
    let out = run(
        &["serve", "--db", dir.path().join("x.db").to_str().unwrap()],
        &[("DISPATCH_LISTEN", "8080")],
    );
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("HOST:PORT"), "{message}");
    let running = serve(
        dir.path(),
        &["--listen", "127.0.0.1:0"],
        &[
            ("DISPATCH_LISTEN", "8080"),
            ("DISPATCH_DB", env_db.as_str()),
        ],
    );
    drop(running);

    // Other subcommands read DISPATCH_DB too.
    let out = run(&["keys", "list"], &[("DISPATCH_DB", env_db.as_str())]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("North"));
}

/// The long flags of `SUBCOMMAND --help`, in order, each with its `[default: ...]` if shown.
fn help_flags(subcommand: &str) -> (Vec<(String, Option<String>)>, String) {
    let out = run(&[subcommand, "--help"], &[]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut flags: Vec<(String, Option<String>)> = Vec::new();
    for line in help.lines().map(str::trim_start) {
        if line.starts_with('-') {
            if let Some(flag) = line.split(' ').find(|w| w.starts_with("--")) {
                let flag = flag.trim_end_matches(',').trim_end_matches('=').to_owned();
                flags.push((flag, None));
            }
        } else if let Some(default) = line.strip_prefix("[default: ") {
            let last = flags.last_mut().expect("a default under its flag");
            last.1 = Some(default.trim_end_matches(']').to_owned());
        }
    }
    flags.retain(|(f, _)| f != "--help" && f != "--version");
    (flags, help)
}

/// The configuration table of docs/configuration.md: each row's flag and its default column.
fn config_table() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md"),
    )
    .unwrap();
    let start = readme
        .find("## Flags and variables")
        .expect("the Flags and variables section");
    let section = &readme[start..];
    let section = &section[..section[2..].find("\n## ").map_or(section.len(), |i| i + 2)];
    section
        .lines()
        .filter(|l| l.starts_with("| `--"))
        .map(|line| {
            // Cells split at `|` not escaped as `\|` (which spells alternatives: `on\|off`).
            let cells: Vec<&str> = line
                .split(" | ")
                .map(|c| c.trim_matches(|ch| ch == '|' || ch == ' '))
                .collect();
            let flag = cells[0][1..].split([' ', '`']).next().unwrap().to_owned();
            (flag, format!("{} | {}", cells[1], cells[2]))
        })
        .collect()
}

/// `serve --help` and `worker --help` name the `DISPATCH_*` variable of every flag; the
/// configuration table (docs/configuration.md) has a row for each with that variable and the default
/// `--help` shows, and no row for a flag neither has.
#[test]
fn serve_and_worker_help_name_the_variable_of_every_flag_and_the_configuration_doc_lists_them_all()
{
    let table = config_table();
    let mut listed = std::collections::BTreeSet::new();
    for (subcommand, at_least) in [("serve", 20), ("worker", 15)] {
        let (flags, help) = help_flags(subcommand);
        assert!(flags.len() >= at_least, "{subcommand}: {flags:?}");
        for (flag, default) in &flags {
            listed.insert(flag.clone());
            let var = format!("DISPATCH_{}", flag[2..].replace('-', "_").to_uppercase());
            assert!(
                help.contains(&format!("[env: {var}]")),
                "{subcommand} {flag}: {var} in --help"
            );
            let (_, row) = table
                .iter()
                .find(|(f, _)| f == flag)
                .unwrap_or_else(|| panic!("docs/configuration.md's table has no row for {flag}"));
            assert!(
                row.starts_with(&format!("`{var}` |")),
                "{flag}: {var} in {row}"
            );
            if let Some(default) = default {
                assert!(
                    row.contains(&format!("`{default}`")),
                    "{subcommand} {flag}: the default `{default}` in {row}"
                );
            }
        }
    }
    for (flag, _) in &table {
        assert!(
            listed.contains(flag),
            "docs/configuration.md's table lists {flag}, which no --help has"
        );
    }
    // Values given by the environment never show in --help (some are credentials).
    for subcommand in ["serve", "worker"] {
        let out = run(
            &[subcommand, "--help"],
            &[("DISPATCH_SMS_GATEWAY_AUTH", "Bearer very-secret")],
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains("very-secret"));
    }
}

#[test]
fn listen_without_a_host_says_host_port_is_expected() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["8080", "localhost", "127.0.0.1:http", ":8080"] {
        let out = run(
            &[
                "serve",
                "--db",
                dir.path().join("x.db").to_str().unwrap(),
                "--listen",
                bad,
            ],
            &[],
        );
        assert!(!out.status.success(), "{bad}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains("HOST:PORT"), "{bad}: {message}");
        assert!(
            !message.contains("invalid socket address"),
            "{bad}: {message}"
        );
    }
    let out = run(&["serve", "--listen", "8080"], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.1:8080"));
    assert!(!dir.path().join("x.db").exists());
}

#[test]
fn dispatch_help_describes_the_program() {
    let out = run(&["--help"], &[]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("routing-and-dispatch engine"), "{help}");
    for subcommand in ["serve", "seed", "solve", "keys"] {
        assert!(
            help.contains(&format!("dispatch {subcommand}")),
            "{subcommand}: {help}"
        );
    }
    assert!(
        !help.contains("adapter"),
        "the crate's description is not the program's: {help}"
    );
}

#[test]
fn logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(dir.path().join("serve.log")).unwrap();
    let mut serving = Serving::start(
        Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(dir.path().join("colour.db"))
            .env_remove("NO_COLOR")
            .env("RUST_LOG", "debug")
            .stderr(log),
    );
    let addr = serving.addr.clone();
    assert_eq!(
        send(&addr, Request::new("GET", "/healthz", None)).status,
        200
    );
    assert_eq!(
        send(&addr, Request::new("GET", "/v2/nowhere", None)).status,
        404
    );
    serving.terminate();
    let text = std::fs::read_to_string(dir.path().join("serve.log")).unwrap();
    assert!(text.contains("request"), "{text}");
    assert!(!text.contains('\u{1b}'), "escape codes in {text}");
}
