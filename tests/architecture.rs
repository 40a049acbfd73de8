//! The layer order of `render` (ARCHITECTURE.md): no import cycle among its modules. Read
//! from the sources: every `super::x`, `super::super::x` and `crate::render::x` path in
//! `src/render/` is an edge from the file's top-level module to `x` (a name `render/mod.rs`
//! re-exports counts as the module it comes from).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names after `prefix` at each occurrence in `text`: one identifier, or each first
/// identifier of a `{a, b::c}` group.
fn names_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let identifier = |rest: &'a str| {
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        &rest[..end]
    };
    let mut names = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        let rest = &text[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(group.split(',').map(identifier));
        } else {
            names.push(identifier(rest));
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

/// `pub use module::{names}` lines of `render/mod.rs`: name → module.
fn re_exports(mod_rs: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let flat = mod_rs.replace('\n', " ");
    for statement in flat.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        for name in names
            .trim_matches(|c| c == '{' || c == '}' || c == ' ')
            .split(',')
        {
            map.insert(name.trim().to_string(), module.trim().to_string());
        }
    }
    map
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/render");
    let modules: BTreeSet<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "mod")
        .collect();
    let exports = re_exports(&std::fs::read_to_string(root.join("mod.rs")).unwrap());
    let resolve = |name: &str| -> Option<String> {
        if modules.contains(name) {
            Some(name.to_string())
        } else {
            exports.get(name).cloned()
        }
    };
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap();
        let parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let top = parts[0].trim_end_matches(".rs").to_string();
        if top == "mod" {
            continue;
        }
        // How many `super::` reach `render` from this file.
        let is_mod_file = parts.last().is_some_and(|p| p == "mod.rs");
        let depth = parts.len() - usize::from(is_mod_file);
        let text = std::fs::read_to_string(&file).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap();
        let mut targets: Vec<&str> = names_after(text, "crate::render::");
        targets.extend(names_after(text, &"super::".repeat(depth)));
        for target in targets {
            if let Some(module) = resolve(target).filter(|m| *m != top) {
                edges.entry(top.clone()).or_default().insert(module);
            }
        }
        edges.entry(top).or_default();
    }
    edges
}

/// A cycle through `start`, if any (depth-first search).
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|n| n == node) {
            let mut found = stack[i..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

#[test]
fn render_modules_import_each_other_without_a_cycle() {
    let edges = graph();
    assert!(
        edges["assemble"].contains("plan"),
        "the reader sees imports: {edges:?}"
    );
    assert!(edges["plan"].contains("static_docs"), "{edges:?}");
    if let Some(found) = cycle(&edges) {
        panic!("import cycle in render: {}", found.join(" -> "));
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    edges.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycle(&edges).unwrap(), ["a", "b", "c", "a"]);
    edges.get_mut("c").unwrap().clear();
    assert!(cycle(&edges).is_none());
}
