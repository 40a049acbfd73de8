//! The tidy checks, tested: each rule gets a small tree with one planted violation, and the
//! check must report it with its file, line and rule (and stay quiet on the clean version).

use super::*;

const MAP: &str = "# Architecture\n\n## Code map\n\n### `model`\ntext\n\n### `render`\n\n\
                   ### `write`\n\n## Invariants, collected\n\n### `not_a_layer`\n";

/// A clean tree for [`MAP`]: every file has a header, and each module uses only those above it.
fn clean() -> Vec<(String, String)> {
    [
        ("src/lib.rs", "//! The crate.\npub mod model;\npub mod render;\npub mod write;\n"),
        ("src/main.rs", "//! The binary.\nfn main() {}\n"),
        ("src/model/mod.rs", "//! Values.\npub struct Post;\n"),
        (
            "src/render/mod.rs",
            "//! Bytes.\nuse crate::model::Post;\nmod a;\nmod b;\n#[derive(serde::Serialize)]\npub struct Wire;\n",
        ),
        ("src/render/a.rs", "//! A.\nuse super::b::thing;\n"),
        ("src/render/b.rs", "//! B.\npub fn thing() {}\n"),
        (
            "src/write/mod.rs",
            "//! Files.\nuse crate::{model::Post, render::{self, Wire}};\nuse std::fs;\n",
        ),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
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
    check_all(MAP, files, &[])
        .iter()
        .map(|p| format!("{}:{}: [{}]", p.path, p.line, p.rule))
        .collect()
}

#[test]
fn the_clean_tree_passes() {
    assert_eq!(reported(&clean()), Vec::<String>::new());
}

#[test]
fn the_layer_order_is_read_from_the_code_map_only() {
    assert_eq!(layer_order(MAP), ["model", "render", "write"]);
}

#[test]
fn an_upward_import_is_reported_with_its_line() {
    let files = planted(
        "src/model/mod.rs",
        "//! Values.\npub struct Post;\n\nuse crate::{\n    render::Wire,\n};\n",
    );
    assert_eq!(reported(&files), ["src/model/mod.rs:5: [layer order]"]);
    let problems = check_all(MAP, &files, &[]);
    assert!(
        problems[0].message.contains("`model` uses `render`"),
        "{}",
        problems[0]
    );
}

#[test]
fn an_inline_path_and_a_climb_through_super_count_as_imports() {
    let inline = planted(
        "src/render/b.rs",
        "//! B.\npub fn thing() { crate::write::go(); }\n",
    );
    assert_eq!(reported(&inline), ["src/render/b.rs:2: [layer order]"]);
    let climb = planted("src/render/b.rs", "//! B.\nuse super::super::write;\n");
    assert_eq!(reported(&climb), ["src/render/b.rs:2: [layer order]"]);
}

#[test]
fn comments_and_strings_are_not_imports() {
    let files = planted(
        "src/model/mod.rs",
        "//! Values, unlike crate::write.\n// use crate::write;\n/* crate::write /* nested */ crate::write */\nconst A: &str = \"crate::write::x\";\nconst B: &str = r#\"crate::write\"#;\nconst C: char = '\"';\nfn f<'a>(_: &'a str) {}\npub struct Post;\n",
    );
    assert_eq!(reported(&files), Vec::<String>::new());
}

#[test]
fn a_module_missing_from_the_code_map_and_a_stale_heading_are_reported() {
    let mut files = clean();
    files.push(("src/extra.rs".into(), "//! Extra.\n".into()));
    assert_eq!(reported(&files), ["src/extra.rs:1: [layer order]"]);
    let without_write: Vec<_> = clean()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("src/write"))
        .collect();
    assert_eq!(
        reported(&without_write),
        ["ARCHITECTURE.md:1: [layer order]"]
    );
}

#[test]
fn a_cycle_between_sibling_modules_is_reported() {
    let files = planted(
        "src/render/b.rs",
        "//! B.\nuse crate::render::a;\npub fn thing() {}\n",
    );
    assert_eq!(reported(&files), ["src/render/a.rs:2: [no cycles]"]);
    let problems = check_all(MAP, &files, &[]);
    assert!(problems[0].message.contains("render::a, render::b"));
}

#[test]
fn a_cycle_between_nested_sibling_modules_is_reported() {
    let mut files = planted(
        "src/render/mod.rs",
        "//! Bytes.\nuse crate::model::Post;\nmod a;\nmod b;\nmod docs;\n",
    );
    files.push((
        "src/render/docs/mod.rs".into(),
        "//! Docs.\nmod x;\nmod y;\n".into(),
    ));
    files.push((
        "src/render/docs/x.rs".into(),
        "//! X.\nuse super::y::f;\n".into(),
    ));
    files.push((
        "src/render/docs/y.rs".into(),
        "//! Y.\npub fn f() {}\n".into(),
    ));
    assert_eq!(reported(&files), Vec::<String>::new());
    files.retain(|(p, _)| p != "src/render/docs/y.rs");
    files.push((
        "src/render/docs/y.rs".into(),
        "//! Y.\npub fn f() {}\nfn g() { crate::render::docs::x::h(); }\n".into(),
    ));
    assert_eq!(reported(&files), ["src/render/docs/x.rs:2: [no cycles]"]);
    let problems = check_all(MAP, &files, &[]);
    assert!(
        problems[0]
            .message
            .contains("render::docs::x, render::docs::y")
    );
}

#[test]
fn a_known_cycle_is_let_through_and_a_stale_one_is_reported() {
    let files = planted(
        "src/render/b.rs",
        "//! B.\nuse crate::render::a;\npub fn thing() {}\n",
    );
    let known: &[&[&str]] = &[&["render::a", "render::b"]];
    assert!(check_all(MAP, &files, known).is_empty());
    let stale = check_all(MAP, &clean(), known);
    assert_eq!(stale.len(), 1);
    assert_eq!(
        (stale[0].path.as_str(), stale[0].rule),
        ("tests/tidy.rs", "no cycles")
    );
}

#[test]
fn a_use_of_the_parent_facade_is_not_a_cycle() {
    let files = planted(
        "src/render/b.rs",
        "//! B.\nuse super::Wire;\npub fn thing() {}\n",
    );
    assert_eq!(reported(&files), Vec::<String>::new());
}

#[test]
fn forbidden_apis_are_reported_in_pure_layers_only() {
    for (text, line) in [
        ("//! V.\nuse std::fs;\n", 2),
        ("//! V.\nuse std::{\n    io,\n    fs::read,\n};\n", 4),
        ("//! V.\nfn f() { let _ = std::env::var(\"X\"); }\n", 2),
        ("//! V.\nuse std::time::{Duration, Instant};\n", 2),
        ("//! V.\nfn f() { let _ = chrono::Utc::now(); }\n", 2),
        ("//! V.\nuse chrono::Local;\n", 2),
        ("//! V.\nfn f() { let _ = Instant::now(); }\n", 2),
        ("//! V.\nuse std::net::TcpStream;\n", 2),
    ] {
        let files = planted("src/model/mod.rs", text);
        assert_eq!(
            reported(&files),
            [format!("src/model/mod.rs:{line}: [forbidden API]")],
            "{text}"
        );
    }
    // An address type is a value; `write` may use the file system.
    let files = planted("src/model/mod.rs", "//! V.\nuse std::net::IpAddr;\n");
    assert_eq!(reported(&files), Vec::<String>::new());
    assert_eq!(
        reported(&planted(
            "src/write/mod.rs",
            "//! W.\nuse std::time::Instant;\n"
        )),
        Vec::<String>::new()
    );
}

#[test]
fn a_salsa_setter_outside_workspace_is_reported() {
    let files = planted(
        "src/render/b.rs",
        "//! B.\nfn f(db: &mut Db, s: Site) {\n    s.set_today(db)\n        .with_durability(HIGH)\n        .to(x);\n    s.set_config(db).to(c);\n    workspace.set_today(today);\n}\n",
    );
    assert_eq!(
        reported(&files),
        [
            "src/render/b.rs:3: [salsa setters]",
            "src/render/b.rs:6: [salsa setters]"
        ]
    );
    let mut allowed = clean();
    allowed.push((
        "src/workspace/mod.rs".into(),
        "//! W.\nfn f() { s.set_today(db).to(x); }\n".into(),
    ));
    let problems = check_all(MAP, &allowed, &[]);
    assert!(problems.iter().all(|p| p.rule != "salsa setters"));
}

#[test]
fn serialize_outside_render_is_reported_unless_excepted() {
    let files = planted(
        "src/model/mod.rs",
        "//! V.\n#[derive(Clone, serde::Serialize)]\n#[serde(rename_all = \"camelCase\")]\npub struct Post;\nimpl Serialize for Other {}\n",
    );
    assert_eq!(
        reported(&files),
        [
            "src/model/mod.rs:2: [Serialize]",
            "src/model/mod.rs:5: [Serialize]"
        ]
    );
    let problems = check_all(MAP, &files, &[]);
    assert!(problems[0].message.contains("`Post`"), "{}", problems[0]);
    let excepted = planted(
        "src/write/manifest.rs",
        "//! M.\n#[derive(serde::Serialize)]\nstruct OnDisk;\n",
    );
    assert_eq!(reported(&excepted), Vec::<String>::new());
    let same_name_elsewhere = planted(
        "src/write/other.rs",
        "//! O.\n#[derive(serde::Serialize)]\nstruct OnDisk;\n",
    );
    assert_eq!(
        reported(&same_name_elsewhere),
        ["src/write/other.rs:2: [Serialize]"]
    );
}

#[test]
fn a_missing_header_and_a_long_file_are_reported() {
    let files = planted("src/render/b.rs", "pub fn thing() {}\n");
    assert_eq!(reported(&files), ["src/render/b.rs:1: [header]"]);
    let long = format!("//! B.\n{}", "pub fn thing() {}\n".repeat(MAX_LINES));
    let files = planted("src/render/b.rs", &long);
    assert_eq!(
        reported(&files),
        [format!("src/render/b.rs:{}: [file length]", MAX_LINES + 1)]
    );
}

#[test]
fn problems_name_file_line_and_rule() {
    let files = planted("src/model/mod.rs", "//! V.\nuse std::fs;\n");
    let shown = check_all(MAP, &files, &[])[0].to_string();
    assert!(
        shown.starts_with("src/model/mod.rs:2: [forbidden API] `model` names `std::fs`"),
        "{shown}"
    );
}
