//! The layering ARCHITECTURE.md states, drawn from the code: the crate graph its table gives,
//! and no import loop inside a crate except among the siblings of the folders it names.
//!
//! Imports are read from the source as written (`use` trees and `crate::`/`super::`/`self::`
//! paths, comments and literals left out), resolved to the deepest module they name. Test code
//! (modules behind `#[cfg(test)]` or the `conformance` feature) may import anything and is not
//! read. An import between two modules is a dependency between the two siblings under their
//! closest common module; a circle among the siblings of one module is an import loop there.

mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use source::{code_only, imports, modules};

/// The crate folders: the workspace's library and binary crates.
const CRATES: &[&str] = &[
    "dispatch-core",
    "dispatch-store-sql",
    "dispatch-store-sqlite",
    "dispatch-store-postgres",
    "dispatch-http",
    "dispatch-adapters",
    "dispatch-server",
];

/// The folders whose siblings may import each other in a circle (ARCHITECTURE.md,
/// "Invariants"), as (crate, module path).
const LOOPS_ALLOWED: &[(&str, &str)] = &[
    ("dispatch-core", "solver::operators"),
    ("dispatch-core", "solver::formats::vroom"),
    ("dispatch-core", "optimise"),
    ("dispatch-core", "ports"),
    ("dispatch-http", "v2"),
];

/// A module's path in its crate (empty for the crate root).
type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The circles among siblings, as (parent module, the siblings of one circle).
fn sibling_loops(all: &BTreeMap<Module, (PathBuf, String)>) -> Vec<(String, Vec<String>)> {
    let mut graphs: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, (_, code)) in all {
        for target in imports(module, code, all) {
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common == module.len() || common == target.len() {
                continue; // a module and its own descendant
            }
            graphs
                .entry(module[..common].to_vec())
                .or_default()
                .entry(module[common].clone())
                .or_default()
                .insert(target[common].clone());
        }
    }
    let mut out = Vec::new();
    for (parent, graph) in graphs {
        for circle in circles(&graph) {
            out.push((parent.join("::"), circle));
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, (usize, usize)>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, (n, n));
        w.stack.push(v);
        for next in w.graph.get(v).into_iter().flatten() {
            let next = next.as_str();
            match w.index.get(next).copied() {
                None => {
                    visit(w, next);
                    let low = w.index[next].1.min(w.index[v].1);
                    w.index.get_mut(v).unwrap().1 = low;
                }
                Some((i, _)) if w.stack.contains(&next) => {
                    let low = i.min(w.index[v].1);
                    w.index.get_mut(v).unwrap().1 = low;
                }
                Some(_) => {}
            }
        }
        if w.index[v].0 == w.index[v].1 {
            let at = w.stack.iter().rposition(|&x| x == v).unwrap();
            let mut part: Vec<String> = w.stack.drain(at..).map(str::to_owned).collect();
            if part.len() > 1 {
                part.sort();
                w.out.push(part);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.out
}

#[test]
fn modules_import_each_other_in_a_circle_only_in_the_folders_architecture_names() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut found = Vec::new();
    for krate in CRATES {
        let all = modules(&root().join(krate).join("src"));
        assert!(all.len() > 3, "{krate}: its modules were read");
        for (parent, circle) in sibling_loops(&all) {
            if !LOOPS_ALLOWED.contains(&(krate, parent.as_str())) {
                found.push(format!(
                    "{krate} {}: {}",
                    if parent.is_empty() {
                        "(crate root)"
                    } else {
                        &parent
                    },
                    circle.join(", ")
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other in a circle outside the folders ARCHITECTURE.md names \
         (move what they share to a module below them):\n{}",
        found.join("\n")
    );
    for (_, folder) in LOOPS_ALLOWED {
        let named = format!("`{}/`", folder.replace("::", "/"));
        assert!(
            architecture.contains(&named),
            "ARCHITECTURE.md names {named} among the folders whose siblings may import each other"
        );
    }
}

#[test]
fn a_circle_of_imports_across_folders_is_found() {
    let code = |s: &str| (PathBuf::new(), code_only(s));
    let all: BTreeMap<Module, (PathBuf, String)> = [
        (vec![], code("mod a; mod b;")),
        (vec!["a".into()], code("use crate::b::Thing; // crate::c")),
        (
            vec!["b".into()],
            code("pub fn f() { super::a::g(\"crate::c\") }"),
        ),
        (
            vec!["b".into(), "c".into()],
            code("use super::super::a::{x, y::z};"),
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        sibling_loops(&all),
        vec![(String::new(), vec!["a".to_owned(), "b".to_owned()])]
    );
}

/// The workspace crates a crate's `[dependencies]` name.
fn dependencies(krate: &str) -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
    let table = manifest.split("\n[dependencies]\n").nth(1).unwrap_or("");
    let table = table.split("\n[").next().unwrap();
    table
        .lines()
        .filter_map(|l| l.split(['=', '.', ' ']).next())
        .filter(|name| CRATES.contains(name))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_crate_graph_is_the_one_architecture_draws() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    for krate in CRATES {
        let row = architecture
            .lines()
            .find(|l| l.starts_with(&format!("| `{krate}` |")))
            .unwrap_or_else(|| panic!("ARCHITECTURE.md's crate table has a row for {krate}"));
        let depends_on = row.trim_end_matches('|').rsplit('|').next().unwrap();
        let words: BTreeSet<&str> = depends_on
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .collect();
        let mut drawn = BTreeSet::new();
        for (word, name) in [
            ("core", "dispatch-core"),
            ("store-sql", "dispatch-store-sql"),
            ("http", "dispatch-http"),
            ("adapters", "dispatch-adapters"),
        ] {
            if words.contains(word) {
                drawn.insert(name.to_owned());
            }
        }
        if depends_on.contains("both stores") {
            drawn.insert("dispatch-store-sqlite".to_owned());
            drawn.insert("dispatch-store-postgres".to_owned());
        }
        assert_eq!(
            dependencies(krate),
            drawn,
            "{krate}: its Cargo.toml against ARCHITECTURE.md"
        );
    }
    assert!(
        dependencies("dispatch-core").is_empty(),
        "the core depends on no other crate of ours"
    );
    for edge in ["dispatch-http", "dispatch-adapters", "dispatch-store-sql"] {
        assert_eq!(
            dependencies(edge),
            BTreeSet::from(["dispatch-core".to_owned()]),
            "{edge} depends on the core only"
        );
    }
}
