//! The README's walk-through ("Five minutes with curl") keeps what it writes — the database,
//! the seed output with access keys in clear text, uploads, job and problem files — under
//! `demo/`, which git ignores: a newcomer following it leaves no key in the repository root and
//! nothing `git status` would offer to commit.

use std::path::Path;

fn walkthrough() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme
        .find("## Five minutes with curl")
        .expect("the walk-through section");
    let rest = &readme[start + 2..];
    let end = rest.find("\n## ").map_or(rest.len(), |i| i);
    rest[..end].to_owned()
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
            ">" | ">>" | "tee" | "--out" | "--db" => out.extend(next),
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
fn the_walkthrough_writes_only_under_demo_which_git_ignores() {
    let section = walkthrough();
    let files: Vec<String> = commands(&section)
        .iter()
        .flat_map(|line| written(line))
        .collect();
    // The database, the seed output, an upload, the job and the exported problem at least.
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        assert!(
            file.starts_with("demo/"),
            "the walk-through writes {file} outside demo/"
        );
    }
    let ignore = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".gitignore"))
        .expect(".gitignore");
    assert!(
        ignore.lines().any(|l| l.trim() == "/demo/"),
        "demo/ is not ignored by git"
    );
    assert!(
        section.contains("mkdir -p demo"),
        "the walk-through creates demo/ first"
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
