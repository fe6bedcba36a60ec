//! The documents name only files that exist: every relative link and every repository path
//! written as code (`dispatch-core/src/...`, `tests/...`) in README.md, ARCHITECTURE.md,
//! docs/, benches/README.md and bench-results/README.md.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn documents() -> Vec<PathBuf> {
    let mut out = vec![
        root().join("README.md"),
        root().join("ARCHITECTURE.md"),
        root().join("benches/README.md"),
        root().join("bench-results/README.md"),
    ];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out
}

/// The targets of the document's relative links, anchors dropped.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find([')', ' ']).unwrap_or(rest.len());
        let target = rest[..end].split('#').next().unwrap();
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target.to_owned());
        }
    }
    out
}

/// Repository paths written as code: a backticked word with a `/` and a file extension.
fn code_paths(text: &str) -> Vec<String> {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".md", ".sql", ".mjs", ".js", ".sh", ".toml", ".json", ".css", ".html", ".py",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            w.contains('/')
                && EXTENSIONS.iter().any(|e| w.ends_with(e))
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        })
        .map(str::to_owned)
        .collect()
}

/// The folders a document may name a path from: the repository, and each crate with its
/// `src/` (documents name files inside a crate from either).
const BASES: &[&str] = &[
    "",
    "dispatch-core",
    "dispatch-core/src",
    "dispatch-store-sql",
    "dispatch-store-sql/src",
    "dispatch-store-sqlite",
    "dispatch-store-sqlite/src",
    "dispatch-store-postgres",
    "dispatch-store-postgres/src",
    "dispatch-http",
    "dispatch-http/src",
    "dispatch-adapters",
    "dispatch-adapters/src",
    "dispatch-server",
    "dispatch-server/src",
];

/// Whether `path` names a file of the repository: from the document's folder or one of
/// [`BASES`].
fn exists(document: &Path, path: &str) -> bool {
    document.parent().unwrap().join(path).exists()
        || BASES
            .iter()
            .any(|base| root().join(base).join(path).exists())
}

/// Files a document names that are made by the commands it shows, or placeholders.
fn written_by_the_reader(path: &str) -> bool {
    path.starts_with("demo/") || path.split('/').any(|s| s.starts_with("TOKEN"))
}

#[test]
fn every_link_and_repository_path_in_the_documents_exists() {
    let mut missing = Vec::new();
    for document in documents() {
        let text = std::fs::read_to_string(&document).unwrap();
        let name = document.strip_prefix(root()).unwrap().display().to_string();
        for link in links(&text) {
            if !document.parent().unwrap().join(&link).exists() {
                missing.push(format!("{name}: link {link}"));
            }
        }
        for path in code_paths(&text) {
            if !written_by_the_reader(&path) && !exists(&document, &path) {
                missing.push(format!("{name}: {path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named but not there:\n{}",
        missing.join("\n")
    );
}

#[test]
fn links_and_code_paths_are_read_as_written() {
    let text = "See [the API](docs/api.md#paging) and [a site](https://x.org/a.md); \
                `dispatch-core/src/lib.rs`, `serve --db` and `a/b.rs` too.";
    assert_eq!(links(text), vec!["docs/api.md"]);
    assert_eq!(code_paths(text), vec!["dispatch-core/src/lib.rs", "a/b.rs"]);
    assert!(!exists(&root().join("README.md"), "a/b.rs"));
    assert!(exists(
        &root().join("README.md"),
        "dispatch-core/src/lib.rs"
    ));
}
