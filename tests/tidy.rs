//! Tidy: the architecture keeps itself. These checks read `src/` as text and fail with
//! `path:line: [rule] what to do` for every breach of a rule ARCHITECTURE.md states:
//!
//! - layer order: a top-level module names (`crate::x`, `super::x`) only modules listed above it
//!   in ARCHITECTURE.md's "Code map" (parsed from its `### `name`` headings, so the document and
//!   the check cannot drift), and every module is listed there;
//! - no cycle between the modules inside one top-level module (the layer order already rules
//!   them out between top-level modules);
//! - forbidden APIs per layer ([`FORBIDDEN`]);
//! - salsa input setters only in [`SETTERS_ONLY_IN`];
//! - `Serialize` only in [`SERIALIZE_HOME`] and the [`SERIALIZE_EXCEPTIONS`];
//! - a `//!` header on every file, and no file over [`MAX_LINES`] lines.
//!
//! The rules are tables at the top, so a change of the architecture is a change of one table
//! row (with its reason). Each check is a function over (path, text) pairs, and the unit tests at
//! the bottom plant a violation of each and assert it is reported.

#[path = "tidy/lex.rs"]
mod lex;

use lex::PathRef;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

// ---- The rules. ----

/// Layers whose code is a pure function of its inputs: no disk, network, clock or environment.
const PURE: &[&str] = &["model", "parse", "derive", "render"];

/// APIs a layer must not name: (layers, path prefixes, exceptions, why).
const FORBIDDEN: &[Forbidden] = &[
    Forbidden {
        layers: PURE,
        paths: &["std::fs", "fs::read", "fs::write", "walkdir"],
        except: &[],
        why: "reads or writes files: only `source` reads content and only `write` writes output",
    },
    Forbidden {
        layers: PURE,
        paths: &["std::net", "tokio", "hyper"],
        // Address types are values (parsing one is not network access).
        except: &[
            "std::net::IpAddr",
            "std::net::Ipv4Addr",
            "std::net::Ipv6Addr",
        ],
        why: "network access belongs to `serve`",
    },
    Forbidden {
        layers: PURE,
        paths: &[
            "std::time::SystemTime",
            "std::time::Instant",
            "SystemTime",
            "Instant",
            "chrono::Utc::now",
            "Utc::now",
            "chrono::Local",
            "chrono::offset::Local",
            "Local::now",
        ],
        except: &[],
        why: "reads the clock: today's date is the `Site.today` input",
    },
    Forbidden {
        layers: PURE,
        paths: &["std::env", "env::var", "env::vars", "env::current_dir"],
        except: &[],
        why: "reads the environment: the output depends only on content, config, today, history",
    },
    Forbidden {
        layers: PURE,
        paths: &["std::process", "notify"],
        except: &[],
        why: "runs or watches something: orchestration belongs to `cli` and `watch`",
    },
];

/// The only files that may call a salsa input setter (`x.set_field(db)….to(v)`).
const SETTERS_ONLY_IN: &str = "src/workspace/";

/// Where the wire format lives: `Serialize` is derived (or implemented) only here...
const SERIALIZE_HOME: &str = "src/render/";

/// ...and for these types: (file or folder, type, why).
const SERIALIZE_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "src/write/history.rs",
        "SiteIdentity",
        "state: the site a publishing history belongs to, one JSON line in the history's header",
    ),
    (
        "src/write/site_documents.rs",
        "Record",
        "state file `.content-api/documents.json`: the hashes of the documents a site may replace, as this tool wrote them",
    ),
    (
        "src/write/manifest.rs",
        "OnDisk",
        "state file `.content-api/manifest.json`: the files this tool wrote, read back next build",
    ),
    (
        "src/write/fingerprint.rs",
        "OnDisk",
        "state file `.content-api/fingerprint.json`: the last build's inputs and output, compared by the next build",
    ),
    (
        "src/write/last_build.rs",
        "Record",
        "state file `.content-api/outputs.json` beside the history: what the last recorded build published, the next purge list's baseline",
    ),
    (
        "src/serve/",
        "Rebuild",
        "the change stream: one Server-Sent Event per publish at `/__events`",
    ),
    (
        "src/serve/preview/",
        "ContentDiagnostic",
        "the preview's change stream and `/__diagnostics`: the content's errors as JSON for the landing page",
    ),
];

/// Longer files are split by question (one question per file).
const MAX_LINES: usize = 500;

/// Cycles known and being removed, as sorted module lists (`["render::a", "render::b"]`). An
/// entry that no longer is a cycle is reported too, so the table cannot go stale: when a cycle
/// is broken (or changes shape), this table changes with it.
const KNOWN_CYCLES: &[&[&str]] = &[];

// ---- The test. ----

#[test]
fn the_source_tree_keeps_the_architecture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let files = read_sources(root);
    assert!(files.len() > 50, "read only {} files", files.len());
    let problems = check_all(&architecture, &files, KNOWN_CYCLES);
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

/// Every `.rs` file under `src/`, as (`src/…` path with `/`, text), sorted by path.
fn read_sources(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root.join("src")).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "rs") {
            let relative = entry.path().strip_prefix(root).unwrap();
            let path = relative.to_str().unwrap().replace('\\', "/");
            out.push((path, std::fs::read_to_string(entry.path()).unwrap()));
        }
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

struct Forbidden {
    layers: &'static [&'static str],
    paths: &'static [&'static str],
    except: &'static [&'static str],
    why: &'static str,
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
            let paths = lex::paths(&tokens);
            File {
                path,
                text,
                tokens,
                paths,
            }
        })
        .collect()
}

fn check_all(
    architecture: &str,
    files: &[(String, String)],
    known_cycles: &[&[&str]],
) -> Vec<Problem> {
    let files = lex_all(files);
    let mut problems = Vec::new();
    problems.extend(check_layers(architecture, &files));
    problems.extend(check_cycles(&files, known_cycles));
    for file in &files {
        problems.extend(check_forbidden(file));
        problems.extend(check_setters(file));
        problems.extend(check_serialize(file));
        problems.extend(check_header_and_length(file));
    }
    problems.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    problems
}

// ---- Layers. ----

/// The module names of the `### `name`` headings under `## Code map`, in order.
fn layer_order(architecture: &str) -> Vec<String> {
    let mut in_map = false;
    let mut order = Vec::new();
    for line in architecture.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            in_map = title.trim() == "Code map";
        } else if in_map
            && let Some(name) = line
                .strip_prefix("### `")
                .and_then(|rest| rest.strip_suffix('`'))
        {
            order.push(name.to_string());
        }
    }
    order
}

/// `src/render/docs/mcp.rs` → `["render", "docs", "mcp"]`; `src/render/mod.rs` → `["render"]`;
/// the crate roots (`lib.rs`, `main.rs`) → `[]`.
fn module_path(path: &str) -> Vec<String> {
    let inner = path.strip_prefix("src/").unwrap_or(path);
    let inner = inner.strip_suffix(".rs").unwrap_or(inner);
    let mut parts: Vec<String> = inner.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The full module path a `crate::`/`super::` path names, or `None` for any other path.
fn resolve(from: &[String], path: &PathRef) -> Option<Vec<String>> {
    let segments = &path.segments;
    match segments[0].as_str() {
        "crate" => Some(segments[1..].to_vec()),
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

fn check_layers(architecture: &str, files: &[File]) -> Vec<Problem> {
    let order = layer_order(architecture);
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let mut problems = Vec::new();
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_path(f.path).first().cloned())
        .collect();
    for module in &modules {
        if !rank.contains_key(module.as_str()) {
            let path = files
                .iter()
                .find(|f| module_path(f.path).first() == Some(module))
                .map_or("src/", |f| f.path);
            problems.push(Problem {
                path: path.to_string(),
                line: 1,
                rule: "layer order",
                message: format!(
                    "module `{module}` has no \"### `{module}`\" heading in ARCHITECTURE.md's \
                     Code map: add one where it belongs in the layer order"
                ),
            });
        }
    }
    for name in &order {
        if !modules.contains(name) {
            problems.push(Problem {
                path: "ARCHITECTURE.md".into(),
                line: 1,
                rule: "layer order",
                message: format!("the Code map lists `{name}`, which is not a module of src/"),
            });
        }
    }
    for file in files {
        let from = module_path(file.path);
        let Some(own) = from
            .first()
            .and_then(|m| rank.get(m.as_str()).map(|&r| (m, r)))
        else {
            continue;
        };
        // One problem per (line, module used), however many items the line names.
        let mut reported = BTreeSet::new();
        for path in &file.paths {
            let Some(target) = resolve(&from, path) else {
                continue;
            };
            let Some(used) = target.first() else { continue };
            if let Some(&used_rank) = rank.get(used.as_str())
                && used_rank > own.1
                && reported.insert((path.line, used.clone()))
            {
                problems.push(Problem {
                    path: file.path.to_string(),
                    line: path.line,
                    rule: "layer order",
                    message: format!(
                        "`{}` uses `{used}` (`{}`), which ARCHITECTURE.md's Code map lists below \
                         it: a module uses only modules listed above it; move the code or the heading",
                        own.0,
                        path.joined()
                    ),
                });
            }
        }
    }
    problems
}

// ---- Cycles inside a top-level module. ----

/// Edges between sibling modules at any depth (`render::plan` → `render::hosting`,
/// `render::docs::llms_map` → `render::docs::page`), each with one place that makes it: a use
/// of `a::b::c::x` from `a::d::e` is an edge `a::d` → `a::b`, between the children of the
/// modules' deepest common parent. Uses of a parent or an ancestor (`super::Output`,
/// re-exported by `mod.rs`) are not edges: a `mod.rs` is its children's facade. Between
/// top-level modules there is no cycle by construction: the layer order allows uses of the
/// modules above only, so a cycle would need a use the layer check reports.
fn sibling_edges(files: &[File]) -> BTreeMap<(String, String), (String, usize)> {
    let mut edges = BTreeMap::new();
    for file in files {
        let from = module_path(file.path);
        for path in &file.paths {
            let Some(target) = resolve(&from, path) else {
                continue;
            };
            let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == 0 || common >= from.len() || common >= target.len() {
                continue;
            }
            let sibling = &target[..=common];
            let is_module = files
                .iter()
                .any(|f| module_path(f.path).starts_with(sibling));
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

// ---- Forbidden APIs, setters, Serialize, headers, length. ----

fn check_forbidden(file: &File) -> Vec<Problem> {
    let layer = module_path(file.path).first().cloned().unwrap_or_default();
    let mut problems = Vec::new();
    for rule in FORBIDDEN
        .iter()
        .filter(|r| r.layers.contains(&layer.as_str()))
    {
        for path in &file.paths {
            let named = rule.paths.iter().find(|p| path.starts_with(p));
            let excepted = rule.except.iter().any(|e| path.starts_with(e));
            if let Some(named) = named
                && !excepted
            {
                problems.push(Problem {
                    path: file.path.to_string(),
                    line: path.line,
                    rule: "forbidden API",
                    message: format!(
                        "`{layer}` names `{}` ({named}): it {}",
                        path.joined(),
                        rule.why
                    ),
                });
            }
        }
    }
    problems
}

/// `.set_x(…)` directly followed by `.to(` or `.with_durability(`: salsa's setter builder.
fn check_setters(file: &File) -> Vec<Problem> {
    if file.path.starts_with(SETTERS_ONLY_IN) {
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
    if file.path.starts_with(SERIALIZE_HOME) {
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
                "`{name}` is serializable outside {SERIALIZE_HOME}: only `render` knows the wire \
                 format; convert in `render`, or name the type in SERIALIZE_EXCEPTIONS with why"
            ),
        })
        .collect()
}

fn check_header_and_length(file: &File) -> Vec<Problem> {
    let mut problems = Vec::new();
    if !file.text.starts_with("//!") {
        problems.push(Problem {
            path: file.path.to_string(),
            line: 1,
            rule: "header",
            message: "no `//!` header: open the file with what it owns (and what it does not)"
                .into(),
        });
    }
    let lines = file.text.lines().count();
    if lines > MAX_LINES {
        problems.push(Problem {
            path: file.path.to_string(),
            line: MAX_LINES + 1,
            rule: "file length",
            message: format!("{lines} lines (at most {MAX_LINES}): split it by question"),
        });
    }
    problems
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

#[path = "tidy/planted.rs"]
mod planted;
