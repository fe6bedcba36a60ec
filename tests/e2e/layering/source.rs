//! Reading a crate's module tree and imports from its source, for the layering checks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::Module;

/// The source with comments, string and character literals blanked out.
pub(super) fn code_only(src: &str) -> String {
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
pub(super) fn modules(src: &Path) -> BTreeMap<Module, (PathBuf, String)> {
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
pub(super) fn imports(
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
