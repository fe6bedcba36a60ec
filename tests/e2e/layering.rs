//! The layering ARCHITECTURE.md states, drawn from the code: the crate graph its table gives,
//! and no import loop inside a crate except among the siblings of the folders it names.
//!
//! Imports are read from the source as written (`use` trees and `crate::`/`super::`/`self::`
//! paths, comments and literals left out), resolved to the deepest module they name. Test code
//! (modules behind `#[cfg(test)]` or the `conformance` feature) may import anything and is not
//! read. An import between two modules is a dependency between the two siblings under their
//! closest common module; a circle among the siblings of one module is an import loop there.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

type Module = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source with comments, string and character literals blanked out.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#") || rest.starts_with(b"br"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let start = i + if b[i] == b'b' { 2 } else { 1 };
            let hashes = b[start..].iter().take_while(|&&c| c == b'#').count();
            if b.get(start + hashes) != Some(&b'"') {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i = start + hashes + 1;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && (b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'')) {
            // A character literal ('a', '\n', '\u{..}'); a lifetime has no closing quote.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether the attributes just before byte `at` of `code` gate what follows to tests.
fn test_only(code: &str, at: usize) -> bool {
    let mut attrs = String::new();
    let mut head = code[..at].trim_end();
    while head.ends_with(']') {
        let Some(open) = head.rfind("#[") else { break };
        attrs.push_str(&head[open..]);
        head = head[..open].trim_end();
    }
    // Literals are blanked by now: `cfg(any(test, feature = "conformance"))` reads as
    // `cfg(any(test, feature = ""))`.
    attrs.contains("cfg(test)") || attrs.contains("cfg(any(test,")
}

/// One `mod` declaration.
struct Declaration {
    name: String,
    /// Whether a `#[path]` names its file.
    has_path: bool,
    /// Behind `#[cfg(test)]` or the `conformance` feature.
    gated: bool,
    /// The byte range of an inline module's braces.
    body: Option<(usize, usize)>,
}

/// The `mod` declarations of a file.
fn declarations(code: &str) -> Vec<Declaration> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("mod ") {
        let at = from + found;
        from = at + 4;
        if at > 0 && is_ident(code[..at].chars().last().unwrap()) {
            continue;
        }
        let name: String = code[at + 4..]
            .trim_start()
            .chars()
            .take_while(|&c| is_ident(c))
            .collect();
        let after = code[at + 4..].trim_start()[name.len()..].trim_start();
        if name.is_empty() || !(after.starts_with(';') || after.starts_with('{')) {
            continue;
        }
        // The item starts at its visibility, if any; attributes come before that.
        let mut start = at;
        let head = code[..at].trim_end();
        for vis in ["pub(crate)", "pub(super)", "pub"] {
            if head.ends_with(vis) {
                start = head.len() - vis.len();
                break;
            }
        }
        let gated = test_only(code, start);
        // The literal of a `#[path]` is blanked: the caller reads it from the original.
        let has_path = code[..start]
            .trim_end()
            .rfind("#[path")
            .is_some_and(|p| !code[p..start].contains(';'));
        let body = after.starts_with('{').then(|| {
            let open = code.len() - after.len();
            let mut depth = 0;
            let mut end = open;
            for (k, c) in code[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            (open, end)
        });
        out.push(Declaration {
            name,
            has_path,
            gated,
            body,
        });
    }
    out
}

/// The `#[path = "..."]` value of the declaration of `name` in the original source.
fn path_attribute(src: &str, name: &str) -> Option<String> {
    let at = src.find(&format!("mod {name};"))?;
    let head = &src[..at];
    let attr = head.rfind("#[path = \"")?;
    let value = &head[attr + 10..];
    Some(value[..value.find('"')?].to_owned())
}

/// Every non-test module of the crate at `src` with its file and code (inline test modules
/// blanked out).
fn modules(src: &Path) -> BTreeMap<Module, (PathBuf, String)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![(Module::new(), src.join("lib.rs"), true)];
    while let Some((module, file, dir_owner)) = todo.pop() {
        let original =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut code = code_only(&original);
        let dir = file.parent().unwrap().to_path_buf();
        // A `mod.rs`, `lib.rs` or `main.rs` owns its folder; `x.rs` owns `x/`.
        let children_dir = if dir_owner {
            dir.clone()
        } else {
            dir.join(file.file_stem().unwrap())
        };
        let mut blank = Vec::new();
        for Declaration {
            name,
            has_path,
            gated,
            body,
        } in declarations(&code)
        {
            if let Some(range) = body {
                if gated {
                    blank.push(range);
                }
                continue;
            }
            if gated {
                continue;
            }
            let mut child = module.clone();
            child.push(name.clone());
            let attribute = has_path.then(|| path_attribute(&original, &name)).flatten();
            let (child_file, owner) = match attribute {
                Some(p) => (dir.join(p), true),
                None if children_dir.join(format!("{name}.rs")).is_file() => {
                    (children_dir.join(format!("{name}.rs")), false)
                }
                None => (children_dir.join(name).join("mod.rs"), true),
            };
            todo.push((child, child_file, owner));
        }
        for (open, end) in blank.into_iter().rev() {
            code.replace_range(open..=end, &" ".repeat(end - open + 1));
        }
        out.insert(module, (file, code));
    }
    out
}

/// The paths a `use` tree names, from the text after `use` up to its `;`.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let mut head: Vec<String> = prefix.to_vec();
            head.extend(segments(&tree[..open]));
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let (mut depth, mut start) = (0, 0);
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&head, &inner[start..k], out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            walk(&head, &inner[start..], out);
        } else {
            let mut path = prefix.to_vec();
            path.extend(segments(tree.split(" as ").next().unwrap()));
            if !path.is_empty() {
                out.push(path);
            }
        }
    }
    fn segments(s: &str) -> Vec<String> {
        s.split("::")
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty() && p != "*" && p != "self")
            .collect()
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// The modules `module`'s code imports, resolved to the deepest module each path names.
fn imports(
    module: &Module,
    code: &str,
    all: &BTreeMap<Module, (PathBuf, String)>,
) -> BTreeSet<Module> {
    let mut paths: Vec<Vec<String>> = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("use ") {
        let at = from + found;
        from = at + 4;
        if at > 0 && is_ident(code[..at].chars().last().unwrap()) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        paths.extend(use_paths(&code[at + 4..end]));
    }
    for anchor in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(anchor) {
            let at = from + found;
            from = at + anchor.len();
            if at > 0 && is_ident(code[..at].chars().last().unwrap()) {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|&c| is_ident(c) || c == ':')
                .collect();
            paths.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    let mut out = BTreeSet::new();
    for path in paths {
        let mut at: Module = match path.first().map(String::as_str) {
            Some("crate") => Module::new(),
            Some("self" | "super") => module.clone(),
            Some(first) => {
                // A path from a child module of this one (`use child::Item` in its parent).
                let mut child = module.clone();
                child.push(first.to_owned());
                if !all.contains_key(&child) {
                    continue;
                }
                module.clone()
            }
            None => continue,
        };
        let mut rest = path.as_slice();
        if matches!(rest[0].as_str(), "crate" | "self") {
            rest = &rest[1..];
        }
        while let Some("super") = rest.first().map(String::as_str) {
            at.pop();
            rest = &rest[1..];
        }
        for segment in rest {
            let mut deeper = at.clone();
            deeper.push(segment.clone());
            if !all.contains_key(&deeper) {
                break;
            }
            at = deeper;
        }
        if at != *module {
            out.insert(at);
        }
    }
    out
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
