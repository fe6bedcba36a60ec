//! The operator's first hour through the real binary: `dispatch keys` (list, create, revoke on
//! the database, seen at once by a running `serve`), the first start's key surviving a failed
//! start, and `dispatch seed` refusing unknown keys with their path.

use crate::support;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};
use support::{binary, db_arg, run_seed, seed, serve_command, Fixture, Server, Serving};

fn dispatch(args: &[&str], db: &Path) -> Output {
    Command::new(binary())
        .args(args)
        .arg("--db")
        .arg(db_arg(db))
        .stdin(Stdio::null())
        .output()
        .expect("run dispatch")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `keys create`'s printed key.
fn created_key(out: &Output) -> String {
    assert!(out.status.success(), "keys create: {}", stderr(out));
    let text = stdout(out);
    let key = text
        .trim_end()
        .strip_prefix("access key: ")
        .unwrap_or_else(|| panic!("prints `access key: KEY`: {text}"));
    assert_eq!(key.len(), 64, "{key}");
    key.to_owned()
}

fn north_id(fixture: &Fixture) -> String {
    fixture.north()["id"].as_i64().unwrap().to_string()
}

#[test]
fn keys_list_names_depots_and_keys_but_never_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.db");
    let fixture = Fixture::seed(&db);
    let out = dispatch(&["keys", "list"], &db);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for key in [
        &fixture.key,
        &fixture.read_key,
        &fixture.south_key,
        &fixture.other_key,
    ] {
        assert!(!text.contains(key.as_str()), "a key was printed: {text}");
    }
    let listing: Value = serde_json::from_str(&text).expect("JSON");
    let acme = &listing["organisations"][0];
    assert_eq!(acme["name"], "Acme");
    assert_eq!(acme["depots"][0]["id"], fixture.north()["id"]);
    assert_eq!(acme["depots"][0]["name"], "North");
    assert_eq!(
        acme["depots"][0]["access_keys"],
        json!([{"name": "integration", "permission": "all"}, {"name": "reporting", "permission": "read"}])
    );
    assert_eq!(acme["depots"][1]["name"], "South");
    assert_eq!(listing["organisations"][1]["name"], "Other");
    assert_eq!(
        listing["organisations"][1]["depots"][0]["access_keys"],
        json!([{"name": "main", "permission": "all"}])
    );
}

#[test]
fn a_created_key_works_at_once_and_a_revoked_one_never_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.db");
    let fixture = Fixture::seed(&db);
    let server = Server::start(&db);
    let depot = north_id(&fixture);

    let read = created_key(&dispatch(
        &[
            "keys",
            "create",
            "--depot",
            &depot,
            "--name",
            "ops",
            "--permission",
            "read",
        ],
        &db,
    ));
    let reply = server.get("/v2/depots", &read);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["depots"][0]["name"], "North");
    server
        .post("/v2/vehicles", &read, &json!({"name": "Van"}))
        .assert_envelope("PERMISSION", 403);

    // A name in use is refused, the existing key untouched.
    let again = dispatch(&["keys", "create", "--depot", &depot, "--name", "ops"], &db);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("already has a key named \"ops\""),
        "{}",
        stderr(&again)
    );
    assert!(stdout(&again).is_empty());
    assert_eq!(server.get("/v2/depots", &read).status, 200);

    let revoked = dispatch(&["keys", "revoke", "--depot", &depot, "--name", "ops"], &db);
    assert!(revoked.status.success(), "{}", stderr(&revoked));
    server
        .call("GET", "/v2/depots", Some(&read), None)
        .assert_envelope("UNAUTHORIZED", 401);

    // The same name again is a new key; the revoked one stays refused.
    let fresh = created_key(&dispatch(
        &["keys", "create", "--depot", &depot, "--name", "ops"],
        &db,
    ));
    assert_ne!(fresh, read);
    assert_eq!(server.get("/v2/depots", &fresh).status, 200);
    let van = json!({"name": "Van", "availability": "full_day", "start_location": "depot", "end_location": "depot"});
    let created = server.post("/v2/vehicles", &fresh, &van);
    assert!(created.status < 300, "permission all: {}", created.text());
    server
        .call("GET", "/v2/depots", Some(&read), None)
        .assert_envelope("UNAUTHORIZED", 401);

    // The other keys were never touched.
    assert_eq!(server.get("/v2/depots", &fixture.key).status, 200);
    let listing: Value = serde_json::from_str(&stdout(&dispatch(&["keys", "list"], &db))).unwrap();
    let names: Vec<&str> = listing["organisations"][0]["depots"][0]["access_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["integration", "ops", "reporting"]);
}

#[test]
fn a_revoked_seed_key_is_not_brought_back_by_seeding_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.db");
    let fixture = Fixture::seed(&db);
    let depot = north_id(&fixture);
    let out = dispatch(
        &["keys", "revoke", "--depot", &depot, "--name", "integration"],
        &db,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let again = Fixture::seed(&db);
    assert_ne!(again.key, fixture.key, "a new key, not the revoked one");
    assert_eq!(
        again.read_key, fixture.read_key,
        "untouched keys print the same"
    );
    let server = Server::start(&db);
    server
        .call("GET", "/v2/depots", Some(&fixture.key), None)
        .assert_envelope("UNAUTHORIZED", 401);
    assert_eq!(server.get("/v2/depots", &again.key).status, 200);
}

#[test]
fn keys_commands_refuse_what_they_cannot_do_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.db");
    if support::test_db::on_postgres() {
        // A PostgreSQL database is created by its administrator, never by `keys`: an address
        // naming none is refused.
        let url = db_arg(&db);
        let (server, _) = url.rsplit_once('/').unwrap();
        let absent = format!("{server}/no_such_database");
        let missing = dispatch(&["keys", "list"], Path::new(&absent));
        assert!(!missing.status.success());
        assert!(
            stderr(&missing).contains("no_such_database"),
            "{}",
            stderr(&missing)
        );
    } else {
        let missing = dispatch(&["keys", "list"], &db);
        assert!(!missing.status.success());
        assert!(
            stderr(&missing).contains("no database at"),
            "{}",
            stderr(&missing)
        );
        assert!(!db.exists(), "listing creates no database");
    }

    let fixture = Fixture::seed(&db);
    let depot = north_id(&fixture);
    for (args, message) in [
        (
            vec!["keys", "create", "--depot", "999", "--name", "x"],
            "no depot 999",
        ),
        (
            vec!["keys", "create", "--depot", &depot, "--name", " "],
            "--name must not be empty",
        ),
        (
            vec![
                "keys",
                "create",
                "--depot",
                &depot,
                "--name",
                "x",
                "--permission",
                "root",
            ],
            "root",
        ),
        (
            vec!["keys", "revoke", "--depot", &depot, "--name", "nobody"],
            "has no key named \"nobody\"",
        ),
        (
            vec!["keys", "revoke", "--depot", "999", "--name", "x"],
            "no depot 999",
        ),
    ] {
        let out = dispatch(&args, &db);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
}

#[test]
fn the_first_key_is_printed_by_the_first_start_that_succeeds_with_a_pointer_to_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().to_string();
    let failed = dispatch(&["serve", "--listen", &port], &db);
    assert!(!failed.status.success());
    assert!(
        stderr(&failed).contains("cannot listen on"),
        "{}",
        stderr(&failed)
    );
    assert!(
        !stdout(&failed).contains("access key:"),
        "{}",
        stdout(&failed)
    );
    drop(busy);

    let log_path = dir.path().join("serve.log");
    let serving =
        Serving::start(serve_command(&db).stderr(std::fs::File::create(&log_path).unwrap()));
    assert_eq!(serving.printed.len(), 1, "{:?}", serving.printed);
    let key = serving.printed[0]
        .strip_prefix("access key: ")
        .expect("the key first")
        .to_owned();
    drop(serving);
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("dispatch keys create"), "{log}");
    assert!(log.contains("shown only on this first start"), "{log}");
    assert!(!log.contains(&key), "the key itself stays off stderr");
}

fn seed_failure(db: &Path, file: &str) -> String {
    let out = run_seed(db, file);
    assert!(!out.status.success(), "{file} was accepted");
    assert!(out.stdout.is_empty());
    stderr(&out)
}

#[test]
fn seed_refuses_an_unknown_key_anywhere_naming_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seed.db");
    for (file, path) in [
        (r#"{"orgs": []}"#, "orgs"),
        (
            r#"{"organisations": [{"name": "A", "colour": "red"}]}"#,
            "organisations[0].colour",
        ),
        (
            r#"{"organisations": [{"name": "A", "depots": [{"name": "D", "acess_keys": []}]}]}"#,
            "organisations[0].depots[0].acess_keys",
        ),
        (
            r#"{"organisations": [{"name": "A", "depots": [{"name": "D",
                "settings": {"webhook": {"url": "http://x", "secret": "s"}}}]}]}"#,
            "organisations[0].depots[0].settings.webhook.secret",
        ),
        (
            r#"{"organisations": [{"name": "A", "depots": [{"name": "D",
                "access_keys": [{"name": "k", "permision": "read"}]}]}]}"#,
            "organisations[0].depots[0].access_keys[0].permision",
        ),
        (
            r#"{"organisations": [{"name": "A", "depots": [{"name": "D",
                "zone_groups": [{"name": "G", "zones": [{"name": "Z", "polygn": []}]}]}]}]}"#,
            "organisations[0].depots[0].zone_groups[0].zones[0].polygn",
        ),
    ] {
        let key = path.rsplit('.').next().unwrap();
        let message = seed_failure(&db, file);
        assert!(
            message.contains(&format!("at {path}: unknown field `{key}`")),
            "{file}: {message}"
        );
        assert!(!db.exists(), "{file}: nothing written");
    }
    // A wrong type is named by its path too.
    let message = seed_failure(
        &db,
        r#"{"organisations": [{"name": "A", "depots": [{"name": 5}]}]}"#,
    );
    assert!(
        message.contains("organisations[0].depots[0].name"),
        "{message}"
    );
}

#[test]
fn seed_still_reads_the_documented_formats() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seed.db");
    // The walk-through's file and the operator interface's example (the fixture is that example
    // with more depots) both apply, and seeding twice prints the same document.
    let demo: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/demo-seed.json"))
            .unwrap(),
    )
    .unwrap();
    let first = seed(&db, &demo);
    assert_eq!(seed(&db, &demo), first);
    let spec_example = json!({"organisations": [{
        "name": "Acme", "order_statuses": ["RETURNED"], "third_parties": [{"name": "Courier X"}],
        "depots": [{
            "name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
            "settings": {"allow_orders_without_customer": true, "starting_status": "OPEN",
                         "partial_orders": false, "timezone": "UTC",
                         "webhook": {"url": "http://127.0.0.1:9000/hook", "username": "u", "password": "p"}},
            "access_keys": [{"name": "integration", "permission": "all"}, {"name": "reporting", "permission": "read"}],
            "capacity_types": [{"type": "Weight", "default": "0"}],
            "custom_fields": [{"name": "Gate code"}],
            "tags": ["Fragile"],
            "zone_groups": [{"name": "Central", "zones": [
                {"name": "Z1", "polygon": [[51.49, -0.13], [51.51, -0.13], [51.51, -0.11], [51.49, -0.11]]}]}],
            "notification_templates": [{"type": "SMS", "name": "On the way", "body": "Your order {order_number} is on its way"}],
            "gazetteer": [{"address": "1 High St", "postcode": "AB1 2CD", "lat": 51.5, "lng": -0.12}]
        }]
    }]});
    let out = seed(&db, &spec_example);
    assert_eq!(
        out["organisations"][0]["depots"][0]["access_keys"][1]["permission"],
        "read"
    );
}

/// An operator piping a command into `head` (or a script that stops reading) closes stdout
/// early: the command ends quietly and successfully, as Unix tools do, never with a panic
/// ("failed printing to stdout: Broken pipe", exit 101). The pipe's read end is closed
/// before the command starts, so its first write always finds it closed.
#[test]
fn output_to_a_closed_pipe_ends_quietly_never_with_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pipe.db");
    let fixture = Fixture::seed(&db);
    let seed_file = dir.path().join("seed.json");
    std::fs::write(&seed_file, support::fixture_file().to_string()).unwrap();
    let north = north_id(&fixture);
    let seed_path = seed_file.to_str().unwrap();
    for args in [
        vec!["keys", "list"],
        vec![
            "keys",
            "create",
            "--depot",
            &north,
            "--name",
            "piped",
            "--permission",
            "read",
        ],
        vec!["seed", seed_path],
        vec!["webhooks", "failed"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(binary())
            .args(&args)
            .arg("--db")
            .arg(db_arg(&db))
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("run dispatch");
        assert!(
            out.status.success(),
            "{args:?}: {:?} {}",
            out.status,
            stderr(&out)
        );
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}
