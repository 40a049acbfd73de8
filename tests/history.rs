//! The history of published API paths: an input of the build that decides `_redirects`.
//!
//! - `--once` remembers what it published; removing a tag's last post lists its timelines in
//!   `_redirects` as 410, and bringing it back removes the rule.
//! - In a long-lived workspace (watch mode), `_redirects` re-renders only when the set of gone
//!   paths changes, and setting an equal history is not a change.

mod common;

use common::*;
use content_api::build;
use content_api::source::{ContentPath, FileContents};
use content_api::workspace::Workspace;
use content_api::write::HISTORY_PATH;
use std::sync::Arc;

const HALF_MARATHON: [&str; 2] = [
    "blog/en/2023-08-27_training-for-my-first-half-marathon.md",
    "blog/es/2023-08-27_training-for-my-first-half-marathon.md",
];

#[test]
fn once_remembers_what_it_published_and_lists_removed_paths_as_gone() {
    let out = tempfile::tempdir().unwrap();
    let content = tempfile::tempdir().unwrap();
    golden_copy(&repo().join("content"), content.path());
    build(content.path(), out.path(), &[]);
    let redirects = || std::fs::read_to_string(out.path().join("_redirects")).unwrap();
    let gone_rules = || -> Vec<String> {
        redirects()
            .lines()
            .filter(|l| !l.starts_with('#') && l.ends_with(" 410"))
            .map(str::to_string)
            .collect()
    };
    assert!(gone_rules().is_empty(), "{}", redirects());
    let history = std::fs::read_to_string(out.path().join(HISTORY_PATH)).unwrap();
    assert!(history.contains("\"api/timeline/en/half-marathon.json\""));
    assert!(!history.contains("openapi.json"), "only API paths are kept");

    let saved: Vec<(std::path::PathBuf, Vec<u8>)> = HALF_MARATHON
        .iter()
        .map(|p| {
            let path = content.path().join(p);
            let bytes = std::fs::read(&path).unwrap();
            std::fs::remove_file(&path).unwrap();
            (path, bytes)
        })
        .collect();
    build(content.path(), out.path(), &[]);
    assert_eq!(
        gone_rules(),
        [
            "/api/timeline/en/half-marathon.json /api/410.json 410",
            "/api/timeline/es/half-marathon.json /api/410.json 410",
        ]
    );
    assert!(redirects().ends_with("/api/* /api/404.json 404\n"));
    // A third build with the same content rewrites nothing: the gone set is stable.
    let second = build(content.path(), out.path(), &[]);
    assert!(String::from_utf8_lossy(&second.stderr).contains(" 0 written"));

    for (path, bytes) in saved {
        std::fs::write(path, bytes).unwrap();
    }
    build(content.path(), out.path(), &[]);
    assert!(gone_rules().is_empty(), "{}", redirects());
}

fn golden_copy(from: &std::path::Path, to: &std::path::Path) {
    for (path, bytes) in read_tree(from) {
        let target = to.join(&path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

fn redirects_of(workspace: &Workspace) -> String {
    let outputs = build::outputs(workspace.db());
    let (_, output) = outputs
        .iter()
        .find(|(path, _)| &**path == "_redirects")
        .unwrap();
    String::from_utf8(output.to_vec()).unwrap()
}

#[test]
fn redirects_re_render_only_when_the_gone_set_changes() {
    let history: Vec<Arc<str>> = vec!["api/series/en/retired.json".into()];
    let mut workspace = recording_sample_workspace(history.clone().into());
    assert!(redirects_of(&workspace).contains("/api/series/en/retired.json /api/410.json 410\n"));
    // The first edit of a file lowers its durability (HIGH as loaded, LOW once edited), and
    // salsa cannot backdate across that drop: its dependents re-run once. Edit once first.
    let post = ContentPath::new(HALF_MARATHON[0]).unwrap();
    let text = std::fs::read_to_string(repo().join("content").join(HALF_MARATHON[0])).unwrap();
    workspace.apply([(
        post,
        FileContents::Text(Arc::new(format!("{text}\nA first edit.\n"))),
    )]);
    redirects_of(&workspace);
    workspace.db().take_executions();

    // An equal history is not a change.
    assert!(!workspace.set_published(history.clone().into()));

    // A title edit changes posts, not the set of paths: `_redirects` is not rendered again.
    let post = ContentPath::new(HALF_MARATHON[0]).unwrap();
    let text = std::fs::read_to_string(repo().join("content").join(HALF_MARATHON[0])).unwrap();
    let edited = text.replace("Training for My First", "Training for a First");
    let applied = workspace.apply([(post, FileContents::Text(Arc::new(edited)))]);
    assert_eq!(applied.changed.len(), 1);
    redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "post_entry_json") > 0, "{executed:?}");
    assert!(runs_of(&executed, "redirects_file") == 0, "{executed:?}");

    // Publishing the current paths grows the history without changing the gone set.
    let mut grown: Vec<Arc<str>> = build::outputs(workspace.db())
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| path.starts_with("api/"))
        .collect();
    grown.extend(history);
    grown.sort();
    assert!(workspace.set_published(grown.clone().into()));
    redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "redirects_file") == 0, "{executed:?}");

    // A new gone path re-renders it.
    let mut more = grown;
    more.push("api/timeline/es/retired.json".into());
    more.sort();
    assert!(workspace.set_published(more.into()));
    let text = redirects_of(&workspace);
    let executed = query_names(&workspace.db().take_executions());
    assert!(runs_of(&executed, "redirects_file") > 0, "{executed:?}");
    assert!(text.contains("/api/timeline/es/retired.json /api/410.json 410\n"));
}
