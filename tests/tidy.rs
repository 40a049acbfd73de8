//! Tidy: what the compiler cannot check of the architecture. The crates hold the layers (a
//! crate names only the crates it depends on, and Cargo refuses a cycle between them), and each
//! pure crate's `clippy.toml` refuses the file system, clock, environment and process APIs.
//! These checks read the sources and manifests as text and fail with
//! `path:line: [rule] what to do` for every breach of what remains:
//!
//! - which crates of the workspace a crate depends on: only those its row of [`LAYERS`] names
//!   (the code map of ARCHITECTURE.md; Cargo alone refuses only cycles);
//! - every crate takes the workspace's lints (`[lints] workspace = true`: `missing_docs`...);
//! - what a crate links: the crates in [`LINK_RULES`] never depend, directly, through another
//!   crate of the workspace or for their own tests, on the listed crates (so their tests link
//!   no HTTP server, async runtime or file watcher);
//! - no cycle between the modules of one crate (at any depth: `render::groups` and
//!   `render::host_files`, or the engine's `db` and `workspace`), a use through a parent's
//!   re-export (`super::Output`, where `render.rs` has `pub use output::Output`) counting as a use
//!   of the module that defines it;
//! - salsa input setters only in [`SETTERS_ONLY_IN`];
//! - `Serialize` only in [`SERIALIZE_HOME`] and the [`SERIALIZE_EXCEPTIONS`];
//! - a `//!` header on every file, and no `mod.rs` (a module is `name.rs` beside `name/`);
//! - CONTRIBUTING.md's test tables, from the files (`tidy/contributing.rs`), and its recipes:
//!   the files, items and test modules they name exist, and the output documents' table is the
//!   one place their facts are stated (`tidy/recipes.rs`).
//!
//! The rules are tables at the top, so a change of the architecture is a change of one table
//! row (with its reason). Each check is a function over (path, text) pairs, and the unit tests
//! (`tidy/planted.rs`) plant a violation of each and assert it is reported.

mod lex;

use lex::PathRef;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

// ---- The rules. ----

/// Each crate of the workspace and the workspace crates it may depend on, for its tests too:
/// (crate, crates, why). Bottom to top, as the root `Cargo.toml` lists them: a row names only
/// crates of the rows above it.
const LAYERS: &[(&str, &[&str], &str)] = &[
    ("model", &[], "plain values: the bottom layer"),
    (
        "source",
        &["model"],
        "it reads the disk into the model's values",
    ),
    (
        "contract",
        &["model"],
        "the API's published rules and shapes: plain tables over the settings, no I/O",
    ),
    (
        "engine",
        &["model", "contract"],
        "a pure function of its inputs: no crate that reads the disk; the one read it makes is \
         through the `BodyReader` its input carries",
    ),
    (
        "write",
        &["model", "source", "contract"],
        "it writes output files (`model::output`), whoever rendered them: not the engine's queries",
    ),
    (
        "deploy",
        &["model", "source", "contract", "write"],
        "what a one-shot build records beside the site, and runs after its publish: files and \
         paths, never the engine's queries",
    ),
    (
        "session",
        &["model", "source", "engine", "write", "deploy"],
        "it reads the content, sets the engine's inputs and publishes",
    ),
    (
        "watch",
        &["source"],
        "it turns events into changes and reads no content",
    ),
    (
        "verify",
        &["contract"],
        "it checks a site over HTTP against the contract",
    ),
    (
        "serve",
        &["model", "contract", "write", "deploy"],
        "it serves what `write` published (and the history's removed paths) by the contract's \
         rules, never the engine's queries",
    ),
    (
        "mcp",
        &["model", "contract", "write", "verify"],
        "it answers the contract's tools from a published folder or a live site",
    ),
];

/// Crates that must not link some others: (crates, what they must not link, why).
const LINK_RULES: &[(&[&str], &[&str], &str)] = &[
    (
        &[
            "model", "source", "contract", "engine", "write", "deploy", "session", "watch",
        ],
        &["tokio", "hyper", "hyper-util", "reqwest", "rmcp"],
        "the build side runs without an async runtime or a network stack: only `serve`, `mcp`, \
         `verify` and the binary use them",
    ),
    (
        &[
            "model", "source", "contract", "engine", "write", "deploy", "session",
        ],
        &["notify"],
        "only `watch` watches files: the build side is driven by the changes it is handed",
    ),
    (
        &["model"],
        &["salsa", "serde", "serde_json"],
        "plain values: no query engine and no wire format",
    ),
    (
        &["contract", "write", "deploy", "verify", "serve", "mcp"],
        &["content-api-engine", "salsa", "saphyr", "saphyr-parser"],
        "the contract is tables and pure functions, `write` writes bytes, `deploy` records what \
         was published, `serve`, `verify` and `mcp` speak the contract over HTTP or from a \
         folder: none links the engine, its query engine or the YAML parser",
    ),
];

/// The only files that may call a salsa input setter (`x.set_field(db)….to(v)`).
const SETTERS_ONLY_IN: &str = "crates/engine/src/workspace";

/// Where the wire format lives: `Serialize` is derived (or implemented) only in the contract and
/// in the engine's rendering...
const SERIALIZE_HOME: &[&str] = &["crates/contract/src", "crates/engine/src/render"];

/// ...and for these types: (file or folder, type, why).
const SERIALIZE_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "crates/deploy/src/history.rs",
        "SiteIdentity",
        "state: the site a publishing history belongs to, one JSON line in the history's header",
    ),
    (
        "crates/write/src/yielding_documents.rs",
        "YieldingHashesFile",
        "state file `.content-api/documents.json`: the hashes of the documents a site may replace, as this tool wrote them",
    ),
    (
        "crates/write/src/manifest.rs",
        "ManifestFile",
        "state file `.content-api/manifest.json`: the files this tool wrote, read back next build",
    ),
    (
        "crates/deploy/src/fingerprint.rs",
        "FingerprintFile",
        "state file `.content-api/fingerprint.json`: the last build's inputs and output, compared by the next build",
    ),
    (
        "crates/deploy/src/last_build.rs",
        "LastBuildFile",
        "state file `.content-api/outputs.json` beside the history: what the last recorded build published, the next purge list's baseline",
    ),
    (
        "crates/deploy/src/deploy_record.rs",
        "Wire",
        "the deploy record `.well-known/content-api/deploy.json`: the tool's own state, published for the next build to read from the live site, not a contract document",
    ),
    (
        "crates/serve/src/",
        "Rebuild",
        "the change stream: one Server-Sent Event per publish at `/__events`",
    ),
    (
        "src/cli/summary.rs",
        "LangSummary",
        "machine output: one language's counts, an entry of `check --format json`'s `summary` (docs/machine-output.md), not a contract document",
    ),
    (
        "src/cli/machine.rs",
        "CheckJson",
        "machine output: `check --format json`'s one object on stdout (docs/machine-output.md, whose example tests/cli compares key for key), not a contract document",
    ),
    (
        "src/cli/machine.rs",
        "DiagnosticJson",
        "machine output: one diagnostic of `check --format json`",
    ),
    (
        "src/cli/machine.rs",
        "ListEntryJson",
        "machine output: one entry of `list --format json`'s array",
    ),
    (
        "src/cli/machine.rs",
        "VerifyJson",
        "machine output: `verify --format json`'s one object on stdout",
    ),
    (
        "src/cli/machine.rs",
        "VerifyCheckJson",
        "machine output: one check of `verify --format json`",
    ),
    (
        "src/cli/machine.rs",
        "FindingJson",
        "machine output: one finding of a check of `verify --format json`",
    ),
    (
        "src/cli/machine.rs",
        "VerifyCountsJson",
        "machine output: the counts of `verify --format json`, its text's last line",
    ),
];

/// Cycles known and being removed, as sorted module lists (`["render::a", "render::b"]`). An
/// entry that no longer is a cycle is reported too, so the table cannot go stale: when a cycle
/// is broken (or changes shape), this table changes with it.
const KNOWN_CYCLES: &[&[&str]] = &[];

// ---- The tests. ----

#[test]
fn the_source_tree_keeps_the_architecture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = read_sources(root);
    assert!(files.len() > 50, "read only {} files", files.len());
    let manifests = read_manifests(root);
    assert!(
        manifests.len() > 5,
        "read only {} manifests",
        manifests.len()
    );
    let problems = check_all(&files, &manifests, KNOWN_CYCLES);
    assert!(
        problems.is_empty(),
        "{} tidy problem(s):\n{}",
        problems.len(),
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// [`LINK_RULES`] over the whole resolved graph, external crates included (a dev-dependency
/// that pulls in an HTTP client is caught here, where the manifests alone do not show it):
/// what `cargo tree` says each crate and its tests link.
#[test]
fn no_crate_links_what_its_rule_forbids_through_any_dependency() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (crates, forbidden, why) in LINK_RULES {
        for name in *crates {
            let output = std::process::Command::new(env!("CARGO"))
                .args(["tree", "--offline", "--quiet", "--edges", "normal,dev"])
                .args([
                    "--prefix",
                    "none",
                    "--package",
                    &format!("content-api-{name}"),
                ])
                .current_dir(root)
                .output()
                .expect("cargo tree runs");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let linked: BTreeSet<&str> = std::str::from_utf8(&output.stdout)
                .unwrap()
                .lines()
                .filter_map(|line| line.split(' ').next())
                .collect();
            let found: Vec<&&str> = forbidden.iter().filter(|c| linked.contains(**c)).collect();
            assert!(
                found.is_empty(),
                "`{name}` links {found:?} (see `cargo tree -p content-api-{name} -e normal,dev -i \
                 {}`): {why}",
                found[0]
            );
        }
    }
}

/// Every `.rs` file under `src/` and `crates/*/src/`, as (path from the root with `/`, text),
/// sorted by path.
fn read_sources(root: &Path) -> Vec<(String, String)> {
    let mut folders = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        folders.push(entry.unwrap().path().join("src"));
    }
    let mut out = Vec::new();
    for folder in folders {
        for entry in walkdir::WalkDir::new(folder) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "rs") {
                let relative = entry.path().strip_prefix(root).unwrap();
                let path = relative.to_str().unwrap().replace('\\', "/");
                out.push((path, std::fs::read_to_string(entry.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// What a crate's `Cargo.toml` names: its `[dependencies]`, the `[dev-dependencies]` its own
/// tests link, and whether it takes the workspace's lints.
#[derive(Clone, Debug, Default)]
struct Manifest {
    dependencies: Vec<String>,
    dev_dependencies: Vec<String>,
    /// `[lints] workspace = true`.
    workspace_lints: bool,
}

/// Each crate of `crates/` (by folder name) with its manifest.
fn read_manifests(root: &Path) -> BTreeMap<String, Manifest> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let folder = entry.unwrap().path();
        let text = std::fs::read_to_string(folder.join("Cargo.toml")).unwrap();
        let manifest: toml::Table = text.parse().unwrap();
        let keys = |table: &str| -> Vec<String> {
            manifest
                .get(table)
                .and_then(|d| d.as_table())
                .map(|d| d.keys().cloned().collect())
                .unwrap_or_default()
        };
        let name = folder.file_name().unwrap().to_str().unwrap().to_string();
        out.insert(
            name,
            Manifest {
                dependencies: keys("dependencies"),
                dev_dependencies: keys("dev-dependencies"),
                workspace_lints: manifest
                    .get("lints")
                    .and_then(|lints| lints.get("workspace"))
                    .and_then(|workspace| workspace.as_bool())
                    == Some(true),
            },
        );
    }
    out
}

/// A broken rule: where and what to do.
#[derive(Debug, PartialEq, Eq)]
struct Problem {
    path: String,
    line: usize,
    rule: &'static str,
    message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: [{}] {}",
            self.path, self.line, self.rule, self.message
        )
    }
}

/// One source file, lexed once.
struct File<'a> {
    path: &'a str,
    text: &'a str,
    tokens: Vec<lex::Token>,
    paths: Vec<PathRef>,
}

fn lex_all(files: &[(String, String)]) -> Vec<File<'_>> {
    files
        .iter()
        .map(|(path, text)| {
            let tokens = lex::tokens(&lex::code_only(text));
            // A file's unit tests may use any module of its crate: their uses are not edges.
            let tests_from = tests_module_line(&tokens);
            let paths = lex::paths(&tokens)
                .into_iter()
                .filter(|p| p.line < tests_from)
                .collect();
            File {
                path,
                text,
                tokens,
                paths,
            }
        })
        .collect()
}

/// The line of `#[cfg(test)] mod …` (the unit tests, at the end of a file by convention),
/// or `usize::MAX` when the file has none.
fn tests_module_line(tokens: &[lex::Token]) -> usize {
    const CFG_TEST: [&str; 8] = ["#", "[", "cfg", "(", "test", ")", "]", "mod"];
    tokens
        .windows(CFG_TEST.len())
        .find(|w| w.iter().zip(CFG_TEST).all(|(t, text)| t.text == text))
        .map_or(usize::MAX, |w| w[0].line)
}

fn check_all(
    files: &[(String, String)],
    manifests: &BTreeMap<String, Manifest>,
    known_cycles: &[&[&str]],
) -> Vec<Problem> {
    let files = lex_all(files);
    let mut problems = Vec::new();
    problems.extend(check_layers(manifests));
    problems.extend(check_links(manifests));
    problems.extend(check_lints(manifests));
    problems.extend(check_cycles(&files, known_cycles));
    for file in &files {
        problems.extend(check_setters(file));
        problems.extend(check_serialize(file));
        problems.extend(check_header(file));
        problems.extend(check_module_file(file));
    }
    problems.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    problems
}

/// Every crate takes the workspace's lints, so `missing_docs` and the others hold in each one,
/// a new crate included.
fn check_lints(manifests: &BTreeMap<String, Manifest>) -> Vec<Problem> {
    manifests
        .iter()
        .filter(|(_, manifest)| !manifest.workspace_lints)
        .map(|(name, _)| Problem {
            path: format!("crates/{name}/Cargo.toml"),
            line: 1,
            rule: "lints",
            message: "add `[lints]` with `workspace = true`: the workspace's lints (the root \
                      `Cargo.toml`'s `[workspace.lints]`) hold in every crate"
                .into(),
        })
        .collect()
}

// ---- What a crate links. ----

/// The workspace crate a dependency names (`content-api-engine` → `engine`), if it is one.
fn workspace_crate(dependency: &str) -> Option<&str> {
    dependency.strip_prefix("content-api-")
}

/// Every workspace crate a manifest names (for its tests too) that its row of [`LAYERS`] does
/// not, and every crate without a row.
fn check_layers(manifests: &BTreeMap<String, Manifest>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (at, (name, allowed, _)) in LAYERS.iter().enumerate() {
        for inner in allowed
            .iter()
            .filter(|inner| !LAYERS[..at].iter().any(|(above, ..)| above == *inner))
        {
            problems.push(Problem {
                path: "tests/tidy.rs".into(),
                line: 1,
                rule: "layers",
                message: format!("`{name}`'s row names `{inner}`, which is not a row above it"),
            });
        }
    }
    for (name, manifest) in manifests {
        let path = format!("crates/{name}/Cargo.toml");
        let Some((_, allowed, why)) = LAYERS.iter().find(|(layer, ..)| layer == name) else {
            problems.push(Problem {
                path,
                line: 1,
                rule: "layers",
                message: format!("`{name}` has no row in LAYERS: add one, with its reason"),
            });
            continue;
        };
        let named = manifest
            .dependencies
            .iter()
            .chain(&manifest.dev_dependencies);
        for inner in named.filter_map(|dependency| workspace_crate(dependency)) {
            if !allowed.contains(&inner) {
                problems.push(Problem {
                    path: path.clone(),
                    line: 1,
                    rule: "layers",
                    message: format!(
                        "`{name}` depends on `{inner}`, which its row of LAYERS does not name \
                         ({why}): move what it needs to a crate it may use"
                    ),
                });
            }
        }
    }
    problems
}

/// For each rule's crate, every forbidden crate it links, with the chain of workspace crates
/// that brings it in: its dependencies, theirs, and so on, and its own dev-dependencies (what
/// its tests link).
fn check_links(manifests: &BTreeMap<String, Manifest>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (crates, forbidden, why) in LINK_RULES {
        for name in *crates {
            // Depth-first over workspace crates, remembering how each was reached.
            let mut reached: BTreeMap<&str, Vec<&str>> = BTreeMap::from([(*name, vec![*name])]);
            let mut stack = vec![*name];
            while let Some(current) = stack.pop() {
                let chain = reached[current].clone();
                let Some(manifest) = manifests.get(current) else {
                    continue;
                };
                let dev = if current == *name {
                    manifest.dev_dependencies.as_slice()
                } else {
                    &[]
                };
                let named = manifest.dependencies.iter().map(|d| (d, false));
                for (dependency, for_tests) in named.chain(dev.iter().map(|d| (d, true))) {
                    // A forbidden crate of the workspace is reported by its own name, not by
                    // what it links in turn.
                    if forbidden.contains(&dependency.as_str()) {
                        let tests = if for_tests { ", for its tests" } else { "" };
                        problems.push(Problem {
                            path: format!("crates/{current}/Cargo.toml"),
                            line: 1,
                            rule: "links",
                            message: format!(
                                "`{name}` links `{dependency}` (through {}{tests}): {why}",
                                chain.join(" → ")
                            ),
                        });
                    } else if let Some(inner) = workspace_crate(dependency)
                        && !reached.contains_key(inner)
                    {
                        let mut next = chain.clone();
                        next.push(inner);
                        reached.insert(inner, next);
                        stack.push(inner);
                    }
                }
            }
        }
    }
    problems
}

// ---- Module paths. ----

/// The crate and module a file is: `crates/engine/src/render/docs/mcp.rs` →
/// `["engine", "render", "docs", "mcp"]`; `crates/write/src/dir.rs` → `["write", "dir"]`;
/// `src/cli.rs` → `["content-api", "cli"]`; a crate root (`lib.rs`, `main.rs`) → its crate.
fn module_path(path: &str) -> Vec<String> {
    let (krate, inner) = match path.strip_prefix("crates/") {
        Some(rest) => {
            let (krate, inner) = rest.split_once('/').unwrap_or((rest, ""));
            (krate, inner.strip_prefix("src/").unwrap_or(inner))
        }
        None => ("content-api", path.strip_prefix("src/").unwrap_or(path)),
    };
    let inner = inner.strip_suffix(".rs").unwrap_or(inner);
    let mut parts = vec![krate.to_string()];
    parts.extend(inner.split('/').map(str::to_string));
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The full module path a `crate::`/`super::`/`self::` path names, or `None` for any other path.
fn resolve(from: &[String], path: &PathRef) -> Option<Vec<String>> {
    let segments = &path.segments;
    match segments[0].as_str() {
        "crate" => {
            let mut out = vec![from.first()?.clone()];
            out.extend_from_slice(&segments[1..]);
            Some(out)
        }
        "self" => {
            let mut out = from.to_vec();
            out.extend_from_slice(&segments[1..]);
            Some(out)
        }
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = from.len().checked_sub(ups)?;
            let mut out = from[..base].to_vec();
            out.extend_from_slice(&segments[ups..]);
            Some(out)
        }
        _ => None,
    }
}

// ---- Cycles inside a crate. ----

/// The names a module takes from its child modules (`pub use output::{Output, Chunk}` in
/// `render.rs`: `(render, Output)` → `render::output`), so a use of `super::Output` counts
/// as a use of `render::output`.
fn facades(files: &[File], modules: &BTreeSet<Vec<String>>) -> BTreeMap<Vec<String>, Vec<String>> {
    let mut names = BTreeMap::new();
    for file in files {
        let parent = module_path(file.path);
        for path in &file.paths {
            let segments = match path.segments[0].as_str() {
                "self" => &path.segments[1..],
                "crate" | "super" => continue,
                _ => &path.segments[..],
            };
            let mut child = parent.clone();
            child.push(segments[0].clone());
            if segments.len() > 1 && modules.contains(&child) {
                let mut name = parent.clone();
                name.push(segments.last().unwrap().clone());
                names.entry(name).or_insert(child);
            }
        }
    }
    names
}

/// Edges between sibling modules at any depth (`render::groups` → `render::host_files`,
/// `render::docs::llms_map` → `render::docs::page`, `engine::db` → `engine::workspace`), each
/// with one place that makes it: a use of `a::b::c::x` from `a::d::e` is an edge `a::d` →
/// `a::b`, between the children of the modules' deepest common parent. A use of an ancestor's
/// own item is not an edge; a use of a name an ancestor re-exports from one of its children is
/// an edge to that child.
fn sibling_edges(files: &[File]) -> BTreeMap<(String, String), (String, usize)> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(f.path)).collect();
    let facades = facades(files, &modules);
    let mut edges = BTreeMap::new();
    for file in files {
        let from = module_path(file.path);
        for path in &file.paths {
            let Some(mut target) = resolve(&from, path) else {
                continue;
            };
            // Follow re-exports down to the module that defines the name (a bounded number
            // of hops: a re-export cycle would not compile anyway).
            for _ in 0..8 {
                let Some(end) = (1..=target.len())
                    .rev()
                    .find(|&end| modules.contains(&target[..end]))
                else {
                    break;
                };
                if end == target.len() {
                    break;
                }
                let Some(child) = facades.get(&target[..=end]) else {
                    break;
                };
                if target.starts_with(child) {
                    break;
                }
                let mut followed = child.clone();
                followed.extend_from_slice(&target[end + 1..]);
                target = followed;
            }
            let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == 0 || common >= from.len() || common >= target.len() {
                continue;
            }
            let sibling = &target[..=common];
            let is_module = modules.iter().any(|m| m.starts_with(sibling));
            if is_module {
                edges
                    .entry((from[..=common].join("::"), sibling.join("::")))
                    .or_insert((file.path.to_string(), path.line));
            }
        }
    }
    edges
}

fn check_cycles(files: &[File], known_cycles: &[&[&str]]) -> Vec<Problem> {
    let edges = sibling_edges(files);
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
    }
    let mut problems = Vec::new();
    let cycles = strongly_connected(&graph);
    for cycle in &cycles {
        if known_cycles.iter().any(|known| known == &cycle.as_slice()) {
            continue;
        }
        // Name the place of one edge inside the cycle.
        let (path, line) = edges
            .iter()
            .find(|((a, b), _)| cycle.contains(&a.as_str()) && cycle.contains(&b.as_str()))
            .map(|(_, place)| place.clone())
            .unwrap();
        let uses: Vec<String> = edges
            .iter()
            .filter(|((a, b), _)| cycle.contains(&a.as_str()) && cycle.contains(&b.as_str()))
            .map(|((a, b), (path, line))| format!("{a} → {b} at {path}:{line}"))
            .collect();
        problems.push(Problem {
            path,
            line,
            rule: "no cycles",
            message: format!(
                "modules {} use each other ({}): move what they share into a module both can use",
                cycle.join(", "),
                uses.join("; ")
            ),
        });
    }
    for known in known_cycles {
        if !cycles.iter().any(|c| c.as_slice() == *known) {
            problems.push(Problem {
                path: "tests/tidy.rs".into(),
                line: 1,
                rule: "no cycles",
                message: format!("{known:?} is no longer a cycle: remove it from KNOWN_CYCLES"),
            });
        }
    }
    problems
}

/// The strongly connected components with more than one node (Tarjan), each sorted.
fn strongly_connected<'a>(graph: &BTreeMap<&'a str, Vec<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(node: &'a str, graph: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(node, i);
        s.low.insert(node, i);
        s.stack.push(node);
        for &next in graph.get(node).into_iter().flatten() {
            if !s.index.contains_key(next) {
                visit(next, graph, s);
                s.low.insert(node, s.low[node].min(s.low[next]));
            } else if s.stack.contains(&next) {
                s.low.insert(node, s.low[node].min(s.index[next]));
            }
        }
        if s.low[node] == s.index[node] {
            let at = s.stack.iter().rposition(|&n| n == node).unwrap();
            let mut component: Vec<&str> = s.stack.split_off(at);
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for &node in graph.keys() {
        if !state.index.contains_key(node) {
            visit(node, graph, &mut state);
        }
    }
    state.out.sort();
    state.out
}

// ---- Setters, Serialize, headers. ----

/// `.set_x(…)` directly followed by `.to(` or `.with_durability(`: salsa's setter builder.
fn check_setters(file: &File) -> Vec<Problem> {
    if in_module(file.path, SETTERS_ONLY_IN) {
        return Vec::new();
    }
    let t = &file.tokens;
    let mut problems = Vec::new();
    for i in 1..t.len() {
        if t[i - 1].text != "." || !t[i].text.starts_with("set_") {
            continue;
        }
        if t.get(i + 1).is_none_or(|t| t.text != "(") {
            continue;
        }
        let Some(close) = matching(t, i + 1) else {
            continue;
        };
        let builder = t.get(close + 1).is_some_and(|t| t.text == ".")
            && t.get(close + 2)
                .is_some_and(|t| t.text == "to" || t.text == "with_durability")
            && t.get(close + 3).is_some_and(|t| t.text == "(");
        if builder {
            problems.push(Problem {
                path: file.path.to_string(),
                line: t[i].line,
                rule: "salsa setters",
                message: format!(
                    "`{}` sets a salsa input outside {SETTERS_ONLY_IN}: go through `Workspace`, \
                     which compares before it sets",
                    t[i].text
                ),
            });
        }
    }
    problems
}

/// The index of the `)` closing the `(` at `open`.
fn matching(t: &[lex::Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in t.iter().enumerate().skip(open) {
        match token.text.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Types that get `Serialize`, by `#[derive(…Serialize…)]` or `impl … Serialize for`, with the
/// line of the derive or impl.
fn serialized_types(tokens: &[lex::Token]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        let line = tokens[i].line;
        if tokens[i].text == "derive" && tokens.get(i + 1).is_some_and(|t| t.text == "(") {
            let Some(close) = matching(tokens, i + 1) else {
                continue;
            };
            if !tokens[i + 1..close].iter().any(|t| t.text == "Serialize") {
                continue;
            }
            let name = tokens[close..]
                .windows(2)
                .find(|w| matches!(w[0].text.as_str(), "struct" | "enum" | "union"))
                .map(|w| w[1].text.clone());
            out.push((name.unwrap_or_default(), line));
        } else if tokens[i].text == "impl" {
            let rest = &tokens[i + 1..];
            let Some(for_at) = rest.iter().position(|t| t.text == "for" || t.text == "{") else {
                continue;
            };
            if rest[for_at].text == "for"
                && for_at > 0
                && rest[for_at - 1].text == "Serialize"
                && let Some(name) = rest.get(for_at + 1)
            {
                out.push((name.text.clone(), line));
            }
        }
    }
    out
}

fn check_serialize(file: &File) -> Vec<Problem> {
    if SERIALIZE_HOME.iter().any(|home| in_module(file.path, home)) {
        return Vec::new();
    }
    serialized_types(&file.tokens)
        .into_iter()
        .filter(|(name, _)| {
            !SERIALIZE_EXCEPTIONS
                .iter()
                .any(|(folder, ty, _)| file.path.starts_with(folder) && name == ty)
        })
        .map(|(name, line)| Problem {
            path: file.path.to_string(),
            line,
            rule: "Serialize",
            message: format!(
                "`{name}` is serializable outside {SERIALIZE_HOME:?}: only the contract and \
                 `render` know the wire format; convert there, or name the type in \
                 SERIALIZE_EXCEPTIONS with why"
            ),
        })
        .collect()
}

fn check_header(file: &File) -> Vec<Problem> {
    if file.text.starts_with("//!") {
        return Vec::new();
    }
    vec![Problem {
        path: file.path.to_string(),
        line: 1,
        rule: "header",
        message: "no `//!` header: open the file with what it owns (and what it does not)".into(),
    }]
}

/// Whether `path` is the module `module` (a path without `.rs`): its file or a file of its
/// folder.
fn in_module(path: &str, module: &str) -> bool {
    path.strip_prefix(module)
        .is_some_and(|rest| rest == ".rs" || rest.starts_with('/'))
}

/// One module-file style: a module with submodules is `name.rs` beside its folder `name/`.
fn check_module_file(file: &File) -> Vec<Problem> {
    let Some(folder) = file.path.strip_suffix("/mod.rs") else {
        return Vec::new();
    };
    vec![Problem {
        path: file.path.to_string(),
        line: 1,
        rule: "module files",
        message: format!("move it to `{folder}.rs`: a module is `name.rs` beside its folder"),
    }]
}

/// Every Serialize exception still names a type that exists (a stale row hides nothing, but it
/// misleads the reader of the table).
#[test]
fn every_serialize_exception_is_in_use() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = read_sources(root);
    let files = lex_all(&sources);
    for (folder, ty, why) in SERIALIZE_EXCEPTIONS {
        let used = files
            .iter()
            .filter(|f| f.path.starts_with(folder))
            .any(|f| serialized_types(&f.tokens).iter().any(|(n, _)| n == ty));
        assert!(
            used,
            "SERIALIZE_EXCEPTIONS lists {ty} in {folder} ({why}), which is not there"
        );
    }
}

mod contributing;
mod planted;
mod recipes;
