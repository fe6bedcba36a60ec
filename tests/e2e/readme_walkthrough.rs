//! The curl walk-throughs (the README's five-minute tour and docs/walkthrough.md) keep what
//! they write — the database, the seed output with access keys in clear text, uploads, job and
//! problem files — under `demo/`, which git ignores: a newcomer following them leaves no key in
//! the repository root and nothing `git status` would offer to commit.

use std::path::Path;

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect(file)
}

/// The README's tour (its "Five minutes" section) and the whole of docs/walkthrough.md.
fn walkthroughs() -> Vec<(&'static str, String)> {
    let readme = read("README.md");
    let start = readme.find("## Five minutes").expect("the README's tour");
    let rest = &readme[start + 2..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i);
    vec![
        ("README.md", rest[..end].to_owned()),
        ("docs/walkthrough.md", read("docs/walkthrough.md")),
    ]
}

/// The shell lines of the section's code blocks.
fn commands(section: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in section.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if inside {
            out.push(line.to_owned());
        }
    }
    out
}

/// The files a command line writes: `> file`, `tee file`, `--out file`, `--db file`.
fn written(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(|w| w.trim_matches('"').to_owned());
        match *word {
            ">" | ">>" | "2>" | "tee" | "--out" | "--db" => out.extend(next),
            w if w.starts_with('>') && w.len() > 1 && !w.starts_with(">&") => {
                out.push(w.trim_start_matches('>').to_owned());
            }
            _ => {}
        }
    }
    out.retain(|f| f != "/dev/null");
    out
}

#[test]
fn the_walkthroughs_write_only_under_demo_which_git_ignores() {
    for (doc, section) in walkthroughs() {
        let files: Vec<String> = commands(&section)
            .iter()
            .flat_map(|line| written(line))
            .collect();
        // The database, the server's output or the seed's, and the job file at least.
        assert!(files.len() >= 3, "{doc}: {files:?}");
        for file in &files {
            assert!(
                file.starts_with("demo/"),
                "{doc} writes {file} outside demo/"
            );
        }
        assert!(
            section.contains("mkdir -p demo"),
            "{doc} creates demo/ first"
        );
    }
    let ignore = read(".gitignore");
    assert!(
        ignore.lines().any(|l| l.trim() == "/demo/"),
        "demo/ is not ignored by git"
    );
}

#[test]
fn the_reader_of_written_files_sees_redirections_and_output_flags() {
    assert_eq!(
        written("dispatch seed --db a.db x.json > out.json"),
        ["a.db", "out.json"]
    );
    assert_eq!(written("curl -s x | tee demo/job.json"), ["demo/job.json"]);
    assert_eq!(written("printf x >demo/p.pdf"), ["demo/p.pdf"]);
    assert_eq!(
        written("dispatch export-problem --out p.json 2>&1"),
        ["p.json"]
    );
    assert!(written("curl -s x > /dev/null").is_empty());
}
