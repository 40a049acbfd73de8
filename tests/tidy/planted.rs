//! The tidy checks, tested: each rule gets a small tree with one planted violation, and the
//! check must report it with its file, line and rule (and stay quiet on the clean version).

use super::*;

const RENDER: &str = "crates/engine/src/render";

/// A clean tree: every file has a header, and no two modules of a crate use each other.
fn clean() -> Vec<(String, String)> {
    [
        ("src/main.rs", "//! The binary.\nfn main() {}\n"),
        ("src/lib.rs", "//! The library.\npub mod cli;\n"),
        (
            "src/cli.rs",
            "//! Commands.\nuse content_api_engine::render;\n",
        ),
        ("crates/model/src/lib.rs", "//! Values.\npub struct Post;\n"),
        (
            "crates/engine/src/lib.rs",
            "//! Engine.\npub mod render;\nuse content_api_model as model;\n",
        ),
        (
            "crates/engine/src/render.rs",
            "//! Bytes.\nuse crate::model::Post;\nmod a;\nmod b;\npub use b::thing;\n\
             #[derive(serde::Serialize)]\npub struct Wire;\n",
        ),
        (
            "crates/engine/src/render/a.rs",
            "//! A.\nuse super::b::thing;\n",
        ),
        (
            "crates/engine/src/render/b.rs",
            "//! B.\npub fn thing() {}\n",
        ),
        (
            "crates/write/src/lib.rs",
            "//! Files.\nuse crate::{model::Post, render::{self, Wire}};\nuse std::fs;\n",
        ),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect()
}

/// The clean tree's manifests: crate folder → dependencies.
fn manifests() -> BTreeMap<String, Manifest> {
    [
        ("model", &[][..]),
        ("engine", &["content-api-model", "salsa", "serde"][..]),
        ("session", &["content-api-engine", "rustix"][..]),
        ("serve", &["content-api-write", "tokio", "hyper"][..]),
    ]
    .into_iter()
    .map(|(name, deps)| {
        let manifest = Manifest {
            dependencies: deps.iter().map(|d| d.to_string()).collect(),
            dev_dependencies: vec!["tempfile".into()],
            workspace_lints: true,
        };
        (name.to_string(), manifest)
    })
    .collect()
}

/// `clean()` with `path` replaced by (or extended with) `text`.
fn planted(path: &str, text: &str) -> Vec<(String, String)> {
    let mut files = clean();
    files.retain(|(p, _)| p != path);
    files.push((path.to_string(), text.to_string()));
    files
}

/// The problems `check_all` reports, as `path:line: [rule]` prefixes.
fn reported(files: &[(String, String)]) -> Vec<String> {
    shown(check_all(files, &manifests(), &[]))
}

fn shown(problems: Vec<Problem>) -> Vec<String> {
    problems
        .iter()
        .map(|p| format!("{}:{}: [{}]", p.path, p.line, p.rule))
        .collect()
}

#[test]
fn the_clean_tree_passes() {
    assert_eq!(reported(&clean()), Vec::<String>::new());
}

#[test]
fn a_file_is_named_by_its_crate_and_module() {
    let cases = [
        (
            "crates/engine/src/render/docs/mcp.rs",
            "engine::render::docs::mcp",
        ),
        ("crates/engine/src/render/mod.rs", "engine::render"),
        ("crates/write/src/dir.rs", "write::dir"),
        ("crates/write/src/lib.rs", "write"),
        ("src/cli/new/post.rs", "content-api::cli::new::post"),
        ("src/main.rs", "content-api"),
    ];
    for (path, module) in cases {
        assert_eq!(module_path(path).join("::"), module, "{path}");
    }
}

#[test]
fn a_crate_linking_what_its_rule_forbids_is_reported_with_the_chain() {
    let mut linked = manifests();
    linked
        .get_mut("model")
        .unwrap()
        .dependencies
        .push("tokio".into());
    let problems = check_all(&clean(), &linked, &[]);
    assert_eq!(
        shown(problems.iter().map(clone_problem).collect()),
        [
            "crates/model/Cargo.toml:1: [links]",
            "crates/model/Cargo.toml:1: [links]",
            "crates/model/Cargo.toml:1: [links]",
        ]
    );
    let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("`model` links `tokio` (through model)"))
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("`session` links `tokio` (through session → engine → model)")),
        "{messages:?}"
    );
    // `serve` may link tokio; the model may not link salsa.
    let mut salsa = manifests();
    salsa
        .get_mut("model")
        .unwrap()
        .dependencies
        .push("salsa".into());
    assert_eq!(
        shown(check_all(&clean(), &salsa, &[])),
        ["crates/model/Cargo.toml:1: [links]"]
    );
}

#[test]
fn the_engine_is_reported_by_name_where_a_rule_forbids_it() {
    // `deploy` naming the engine breaks its row of LAYERS and the rule that keeps the engine
    // out of `deploy` and `serve`; `serve` links it through `deploy`.
    let mut engine = manifests();
    for (name, dependency) in [
        ("deploy", "content-api-engine"),
        ("serve", "content-api-deploy"),
    ] {
        engine
            .entry(name.into())
            .or_insert_with(|| Manifest {
                workspace_lints: true,
                ..Manifest::default()
            })
            .dependencies
            .push(dependency.into());
    }
    let problems = check_all(&clean(), &engine, &[]);
    assert_eq!(
        shown(problems.iter().map(clone_problem).collect()),
        [
            "crates/deploy/Cargo.toml:1: [layers]",
            "crates/deploy/Cargo.toml:1: [links]",
            "crates/deploy/Cargo.toml:1: [links]",
        ]
    );
    let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        messages[0].contains("`deploy` depends on `engine`"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("`deploy` links `content-api-engine` (through deploy)"),
        "{messages:?}"
    );
    assert!(
        messages[2].starts_with("`serve` links `content-api-engine` (through serve → deploy)"),
        "{messages:?}"
    );
}

#[test]
fn a_dev_dependency_counts_for_its_own_crate_only() {
    // The engine's tests linking an HTTP client is reported; `session`, which depends on the
    // engine, does not link the engine's dev-dependencies.
    let mut tests_link = manifests();
    let engine = tests_link.get_mut("engine").unwrap();
    engine.dev_dependencies.push("reqwest".into());
    let problems = check_all(&clean(), &tests_link, &[]);
    assert_eq!(
        shown(problems.iter().map(clone_problem).collect()),
        ["crates/engine/Cargo.toml:1: [links]"]
    );
    assert!(
        problems[0]
            .message
            .contains("(through engine, for its tests)"),
        "{}",
        problems[0]
    );
}

#[test]
fn a_crate_depending_on_a_layer_its_row_does_not_name_is_reported() {
    let mut upward = manifests();
    upward
        .get_mut("engine")
        .unwrap()
        .dev_dependencies
        .push("content-api-source".into());
    upward.insert(
        "extra".into(),
        Manifest {
            workspace_lints: true,
            ..Manifest::default()
        },
    );
    let problems = check_all(&clean(), &upward, &[]);
    assert_eq!(
        shown(problems.iter().map(clone_problem).collect()),
        [
            "crates/engine/Cargo.toml:1: [layers]",
            "crates/extra/Cargo.toml:1: [layers]",
        ]
    );
    assert!(problems[0].message.contains("`engine` depends on `source`"));
}

#[test]
fn a_crate_without_the_workspaces_lints_is_reported() {
    let mut unlinted = manifests();
    unlinted.get_mut("serve").unwrap().workspace_lints = false;
    let problems = check_all(&clean(), &unlinted, &[]);
    assert_eq!(
        shown(problems.iter().map(clone_problem).collect()),
        ["crates/serve/Cargo.toml:1: [lints]"]
    );
    assert!(problems[0].message.contains("workspace = true"));
}

#[test]
fn a_mod_rs_file_is_reported() {
    let files = planted(
        "crates/engine/src/render/docs/mod.rs",
        "//! Docs.\npub fn f() {}\n",
    );
    assert_eq!(
        reported(&files),
        ["crates/engine/src/render/docs/mod.rs:1: [module files]"]
    );
}

fn clone_problem(p: &Problem) -> Problem {
    Problem {
        path: p.path.clone(),
        line: p.line,
        rule: p.rule,
        message: p.message.clone(),
    }
}

#[test]
fn a_cycle_between_sibling_modules_is_reported() {
    let files = planted(
        &format!("{RENDER}/b.rs"),
        "//! B.\nuse crate::render::a;\npub fn thing() {}\n",
    );
    assert_eq!(reported(&files), [format!("{RENDER}/a.rs:2: [no cycles]")]);
    let problems = check_all(&files, &manifests(), &[]);
    assert!(
        problems[0]
            .message
            .contains("engine::render::a, engine::render::b")
    );
}

#[test]
fn a_cycle_between_the_top_modules_of_a_crate_is_reported() {
    let mut files = clean();
    files.push((
        "crates/engine/src/db.rs".into(),
        "//! Inputs.\npub struct Site;\nfn f() { crate::workspace::set(); }\n".into(),
    ));
    files.push((
        "crates/engine/src/workspace.rs".into(),
        "//! Setters.\nuse crate::db::Site;\npub fn set() {}\n".into(),
    ));
    assert_eq!(reported(&files), ["crates/engine/src/db.rs:3: [no cycles]"]);
}

#[test]
fn a_cycle_between_nested_sibling_modules_is_reported() {
    let mut files = planted(
        &format!("{RENDER}.rs"),
        "//! Bytes.\nuse crate::model::Post;\nmod a;\nmod b;\nmod docs;\n",
    );
    files.push((
        format!("{RENDER}/docs.rs"),
        "//! Docs.\nmod x;\nmod y;\n".into(),
    ));
    files.push((
        format!("{RENDER}/docs/x.rs"),
        "//! X.\nuse super::y::f;\n".into(),
    ));
    files.push((
        format!("{RENDER}/docs/y.rs"),
        "//! Y.\npub fn f() {}\n".into(),
    ));
    assert_eq!(reported(&files), Vec::<String>::new());
    files.retain(|(p, _)| !p.ends_with("docs/y.rs"));
    files.push((
        format!("{RENDER}/docs/y.rs"),
        "//! Y.\npub fn f() {}\nfn g() { crate::render::docs::x::h(); }\n".into(),
    ));
    assert_eq!(
        reported(&files),
        [format!("{RENDER}/docs/x.rs:2: [no cycles]")]
    );
    let problems = check_all(&files, &manifests(), &[]);
    assert!(
        problems[0]
            .message
            .contains("engine::render::docs::x, engine::render::docs::y")
    );
}

#[test]
fn a_known_cycle_is_let_through_and_a_stale_one_is_reported() {
    let files = planted(
        &format!("{RENDER}/b.rs"),
        "//! B.\nuse crate::render::a;\npub fn thing() {}\n",
    );
    let known: &[&[&str]] = &[&["engine::render::a", "engine::render::b"]];
    assert!(check_all(&files, &manifests(), known).is_empty());
    let stale = check_all(&clean(), &manifests(), known);
    assert_eq!(stale.len(), 1);
    assert_eq!(
        (stale[0].path.as_str(), stale[0].rule),
        ("tests/tidy.rs", "no cycles")
    );
}

#[test]
fn a_use_of_the_parents_own_item_is_not_a_cycle() {
    let files = planted(
        &format!("{RENDER}/b.rs"),
        "//! B.\nuse super::Wire;\npub fn thing() {}\n",
    );
    assert_eq!(reported(&files), Vec::<String>::new());
}

#[test]
fn a_cycle_through_the_parents_re_export_is_reported() {
    // `a` uses `b::thing`; `b` uses `super::Helper`, which `render.rs` takes from `a`.
    let mut files = planted(
        &format!("{RENDER}.rs"),
        "//! Bytes.\nmod a;\nmod b;\npub use a::Helper;\npub use b::thing;\n",
    );
    files.retain(|(p, _)| !p.ends_with("render/b.rs"));
    files.push((
        format!("{RENDER}/b.rs"),
        "//! B.\nuse super::Helper;\npub fn thing() {}\n".into(),
    ));
    assert_eq!(reported(&files), [format!("{RENDER}/a.rs:2: [no cycles]")]);
}

#[test]
fn a_use_from_unit_tests_is_not_an_edge() {
    let files = planted(
        &format!("{RENDER}/b.rs"),
        "//! B.\npub fn thing() {}\n#[cfg(test)]\nmod tests {\n    use crate::render::a;\n}\n",
    );
    assert_eq!(reported(&files), Vec::<String>::new());
}

#[test]
fn a_salsa_setter_outside_workspace_is_reported() {
    let files = planted(
        &format!("{RENDER}/b.rs"),
        "//! B.\nfn f(db: &mut Db, s: Site) {\n    s.set_today(db)\n        .with_durability(HIGH)\n        .to(x);\n    s.set_config(db).to(c);\n    workspace.set_today(today);\n}\n",
    );
    assert_eq!(
        reported(&files),
        [
            format!("{RENDER}/b.rs:3: [salsa setters]"),
            format!("{RENDER}/b.rs:6: [salsa setters]")
        ]
    );
    let mut allowed = clean();
    allowed.push((
        "crates/engine/src/workspace.rs".into(),
        "//! W.\nfn f() { s.set_today(db).to(x); }\n".into(),
    ));
    let problems = check_all(&allowed, &manifests(), &[]);
    assert!(problems.iter().all(|p| p.rule != "salsa setters"));
}

#[test]
fn serialize_outside_render_is_reported_unless_excepted() {
    let files = planted(
        "crates/model/src/lib.rs",
        "//! V.\n#[derive(Clone, serde::Serialize)]\n#[serde(rename_all = \"camelCase\")]\npub struct Post;\nimpl Serialize for Other {}\n",
    );
    assert_eq!(
        reported(&files),
        [
            "crates/model/src/lib.rs:2: [Serialize]",
            "crates/model/src/lib.rs:5: [Serialize]"
        ]
    );
    let problems = check_all(&files, &manifests(), &[]);
    assert!(problems[0].message.contains("`Post`"), "{}", problems[0]);
    let excepted = planted(
        "crates/write/src/manifest.rs",
        "//! M.\n#[derive(serde::Serialize)]\nstruct ManifestFile;\n",
    );
    assert_eq!(reported(&excepted), Vec::<String>::new());
    let in_the_contract = planted(
        "crates/contract/src/wire.rs",
        "//! W.\n#[derive(serde::Serialize)]\npub struct Post;\n",
    );
    assert_eq!(reported(&in_the_contract), Vec::<String>::new());
    let same_name_elsewhere = planted(
        "crates/write/src/other.rs",
        "//! O.\n#[derive(serde::Serialize)]\nstruct ManifestFile;\n",
    );
    assert_eq!(
        reported(&same_name_elsewhere),
        ["crates/write/src/other.rs:2: [Serialize]"]
    );
}

#[test]
fn a_missing_header_is_reported() {
    let files = planted(&format!("{RENDER}/b.rs"), "pub fn thing() {}\n");
    assert_eq!(reported(&files), [format!("{RENDER}/b.rs:1: [header]")]);
}

#[test]
fn problems_name_file_line_and_rule() {
    let files = planted(
        "crates/model/src/lib.rs",
        "//! V.\n#[derive(serde::Serialize)]\npub struct Post;\n",
    );
    let shown = check_all(&files, &manifests(), &[])[0].to_string();
    assert!(
        shown.starts_with("crates/model/src/lib.rs:2: [Serialize] `Post` is serializable"),
        "{shown}"
    );
}
