//! Minimal work is asserted, not assumed: salsa's `WillExecute` events show which queries ran
//! for an edit, and the publish report shows which files were written.

use crate::common;

use common::{
    copy_sample_content, query_names, runs_of, sample_config_in, sample_today, synthetic,
};
use content_api::db::Database;
use content_api::session::{Outcome, Session};
use content_api::source::ChangeSet;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

struct Site {
    _dir: tempfile::TempDir,
    content: PathBuf,
    session: Session,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        copy_sample_content(&content);
        let config = sample_config_in(&content, &dir.path().join("out"));
        let (session, _) = Session::start_with_database(
            Database::recording(),
            Arc::new(config),
            sample_today(),
            false,
        )
        .unwrap();
        session.database().take_executions();
        let mut site = Site {
            _dir: dir,
            content,
            session,
        };
        // The first edit of a file lowers its durability (HIGH as loaded, LOW once edited).
        // salsa cannot backdate across that drop, so the file's dependents re-run once (their
        // bytes are equal: nothing is rewritten). The tests measure the edits that follow.
        let (executed, outcome) = site.edit(POST, |text| text + "\nFirst edit.\n");
        assert_eq!(count(&executed, "parse_post"), 1, "{executed:?}");
        let api: Vec<String> = written(&outcome)
            .into_iter()
            .filter(|p| p.starts_with("api/"))
            .collect();
        assert!(api.is_empty(), "the first edit rewrote {api:?}");
        site
    }

    /// Rewrites `path` with `edit`, tells the session, and returns the queries that executed
    /// (by name) and the outcome.
    fn edit(&mut self, path: &str, edit: impl FnOnce(String) -> String) -> (Vec<String>, Outcome) {
        let file = self.content.join(path);
        std::fs::write(&file, edit(std::fs::read_to_string(&file).unwrap())).unwrap();
        let outcome = self
            .session
            .apply(&ChangeSet {
                paths: [path.to_string()].into(),
                ..Default::default()
            })
            .unwrap();
        let executed = query_names(&self.session.database().take_executions());
        (executed, outcome)
    }
}

/// How many times `query` ran; panics for a name no build runs (see [`runs_of`]).
fn count(executed: &[String], query: &str) -> usize {
    runs_of(executed, query)
}

fn written(outcome: &Outcome) -> BTreeSet<String> {
    outcome
        .report
        .as_ref()
        .unwrap()
        .written
        .iter()
        .map(|p| p.to_string())
        .collect()
}

/// `text` with the front-matter line `field: …` replaced by `field: value`.
fn with_field(text: &str, field: &str, value: &str) -> String {
    let prefix = format!("{field}:");
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with(&prefix) {
                format!("{field}: {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(lines.iter().any(|l| l.starts_with(&prefix)), "no {field}");
    lines.join("\n") + "\n"
}

/// The written files under `api/`.
fn api_files(outcome: &Outcome) -> BTreeSet<String> {
    written(outcome)
        .into_iter()
        .filter(|p| p.starts_with("api/"))
        .collect()
}

const POST: &str = "blog/en/2024-06-02_running-up-las-palmas.md";

#[test]
fn a_body_edit_reparses_one_file_and_rewrites_no_api_file() {
    let mut site = Site::new();
    let (executed, outcome) = site.edit(POST, |text| text + "\nOne more paragraph.\n");
    assert_eq!(count(&executed, "parse_post"), 1, "{executed:?}");
    for query in [
        "parse_deck",
        "parse_tag",
        "parse_series",
        "post_entry_json",
        "timeline_post_json",
        "posts_json",
        "all_posts_json",
        "tag_timeline_json",
        "series_detail_json",
        "api_index_json",
    ] {
        assert_eq!(
            count(&executed, query),
            0,
            "{query} ran for a body edit: {executed:?}"
        );
    }
    let api: Vec<String> = written(&outcome)
        .into_iter()
        .filter(|p| p.starts_with("api/"))
        .collect();
    assert!(api.is_empty(), "a body edit rewrote {api:?}");
}

#[test]
fn a_tag_change_rerenders_only_the_affected_timelines_and_indexes() {
    let mut site = Site::new();
    // The post's tags are [personal, running, colombia]; drop colombia, add travel and rust.
    let (executed, outcome) = site.edit(POST, |text| {
        with_field(
            &text,
            "tags",
            "[\"personal\", \"running\", \"travel\", \"rust\"]",
        )
    });
    let old: BTreeSet<&str> = ["personal", "running", "colombia"].into();
    let new: BTreeSet<&str> = ["personal", "running", "travel", "rust"].into();
    let affected: BTreeSet<&str> = old.union(&new).copied().collect();
    assert_eq!(
        count(&executed, "tag_timeline_json"),
        affected.len(),
        "{executed:?}"
    );
    assert_eq!(count(&executed, "parse_post"), 1);
    assert_eq!(
        count(&executed, "post_entry_json"),
        1,
        "one index entry is serialized again"
    );
    let mut expected: BTreeSet<String> = affected
        .iter()
        .map(|tag| format!("api/timeline/en/{tag}.json"))
        .collect();
    expected.extend([
        "api/posts.json".to_string(),
        "api/posts-en.json".to_string(),
    ]);
    // Other posts still carry colombia and travel: the set of URLs is unchanged, so is the
    // index. The post's Markdown variant and llms-full.txt show its tags too.
    assert_eq!(api_files(&outcome), expected);
    assert!(written(&outcome).contains("blog/running-up-las-palmas.md"));
    assert!(written(&outcome).contains("llms-full.txt"));
}

#[test]
fn the_index_is_rewritten_only_when_the_set_of_urls_changes() {
    let mut site = Site::new();
    let (_, outcome) = site.edit(POST, |text| {
        text.replacen("tags: [", "tags: [\"brand-new-tag\", ", 1)
    });
    let files = written(&outcome);
    assert!(
        files.contains("api/index.json"),
        "a new tag adds a URL: {files:?}"
    );
    assert!(files.contains("api/timeline/en/brand-new-tag.json"));
    let (executed, outcome) = site.edit(POST, |text| {
        text.replacen("title:", "title: \"Retitled\"\nx-was:", 1)
    });
    assert_eq!(
        count(&executed, "api_index_json"),
        0,
        "a title edit does not touch the index: {executed:?}"
    );
    assert!(!written(&outcome).contains("api/index.json"));
}

#[test]
fn a_title_edit_touches_only_outputs_that_show_the_post() {
    let mut site = Site::new();
    let (executed, outcome) = site.edit(POST, |text| {
        text.replacen("title:", "title: \"New title\"\nx-was:", 1)
    });
    assert_eq!(count(&executed, "parse_post"), 1);
    // The indexes are inputs: the order and the members lists were not set, so nothing that
    // reads only them ran (see the date edit below for the same queries running).
    assert_eq!(
        count(&executed, "output_groups"),
        0,
        "the published order was not set again: {executed:?}"
    );
    assert_eq!(
        count(&executed, "tag_items"),
        0,
        "no tag's members input was set: {executed:?}"
    );
    assert_eq!(
        count(&executed, "tag_names"),
        0,
        "the set of tags was not set again: {executed:?}"
    );
    let mut expected: BTreeSet<String> = ["personal", "running", "colombia"]
        .iter()
        .map(|t| format!("api/timeline/en/{t}.json"))
        .collect();
    expected.extend([
        "api/posts.json".to_string(),
        "api/posts-en.json".to_string(),
    ]);
    assert_eq!(api_files(&outcome), expected);
}

/// The counterpart of the title edit: a new date moves the post in the published order and in
/// each of its tags' member lists, so the queries that read only those indexes run.
#[test]
fn a_date_edit_sets_the_order_and_the_members_of_the_post_tags() {
    let mut site = Site::new();
    let (executed, _) = site.edit(POST, |text| with_field(&text, "pubDate", "2019-01-01"));
    assert_eq!(count(&executed, "output_groups"), 1, "{executed:?}");
    assert!(count(&executed, "tag_items") >= 1, "{executed:?}");
    assert_eq!(
        count(&executed, "tag_names"),
        0,
        "the same tags have posts: {executed:?}"
    );
}

#[test]
#[should_panic(expected = "is not a query a full build executes")]
fn counting_a_name_no_build_runs_fails_the_test() {
    // `published_posts` reads an index input; it is a plain function, not a salsa query, so it
    // never appears in the log and "it did not run" would hold whatever the code does.
    count(&[], "published_posts");
}

/// A watch session on a generated corpus of `posts` posts per language, and its content folder.
/// The English posts' paths, sorted.
fn english_posts(content: &std::path::Path) -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir(content.join("blog/en"))
        .unwrap()
        .map(|e| format!("blog/en/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    paths.sort();
    paths
}

/// Whether the post at `path` is a series chapter.
fn is_chapter(content: &std::path::Path, path: &str) -> bool {
    std::fs::read_to_string(content.join(path))
        .unwrap()
        .contains("\nseries:")
}

fn generated_session(posts: usize) -> (tempfile::TempDir, PathBuf, Session) {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    synthetic::generate(&content, synthetic::Shape::scaled(posts));
    let config = sample_config_in(&content, &dir.path().join("out"));
    let (session, outcome) = Session::start_with_database(
        Database::recording(),
        Arc::new(config),
        sample_today(),
        false,
    )
    .unwrap();
    assert_eq!(outcome.errors, 0);
    (dir, content, session)
}

/// Sets `path`'s title, tells the session, and returns the names of the queries that executed
/// and of the memos salsa validated without executing them.
fn retitle(
    session: &mut Session,
    content: &std::path::Path,
    path: &str,
    title: &str,
) -> (Vec<String>, Vec<String>) {
    let file = content.join(path);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, with_field(&text, "title", title)).unwrap();
    session.database().take_executions();
    session.database().take_validations();
    let outcome = session
        .apply(&ChangeSet {
            paths: [path.to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert!(api_files(&outcome).contains("api/posts-en.json"));
    let executed = query_names(&session.database().take_executions());
    let validated = query_names(&session.database().take_validations());
    (executed, validated)
}

/// The first edit of a file loaded at the start used to lower its input from HIGH to LOW
/// durability, which told salsa that every HIGH value might be stale: the rebuild walked the
/// dependencies of every memo of every file (each post's parse, entry, Markdown variant...).
/// The file now gets a new input and only what lists it is looked at again; no other file's
/// own queries are re-validated or re-run, whatever the size of the corpus.
#[test]
fn a_first_title_edit_looks_at_no_other_file_s_parse_at_any_corpus_size() {
    for posts in [60, 240] {
        let (_dir, content, mut session) = generated_session(posts);
        let paths = english_posts(&content);
        for path in [&paths[paths.len() / 2], &paths[paths.len() / 3]] {
            for title in ["\"First\"", "\"Again\""] {
                let (executed, validated) = retitle(&mut session, &content, path, title);
                for query in ["parse_post", "post_entry_json", "post_markdown", "sort_key"] {
                    assert_eq!(count(&executed, query), 1, "{posts}: {executed:?}");
                }
                let parses = validated
                    .iter()
                    .filter(|q| q.starts_with("parse_") || *q == "post_diagnostics")
                    .count();
                assert!(
                    parses <= 2,
                    "{posts} posts per language: {title} edit of {path} re-validated {parses} \
                     parses of other files"
                );
            }
        }
    }
}

/// A first edit swaps the file's new input into every list that holds it. The lists are cut
/// into interned runs, and what renders a run is keyed by the run, not by the list: a post's
/// first title edit looks at the entries of the runs that hold it, not at every post's entry.
/// (Before, every run read its list, and every post's entry was verified after each first
/// edit: 480 here.)
#[test]
fn a_first_title_edit_looks_at_the_entries_of_its_own_runs_only() {
    const RUN: usize = 64;
    let (_dir, content, mut session) = generated_session(240);
    let paths: Vec<String> = english_posts(&content)
        .into_iter()
        // A series chapter's first edit also sets its series' files, which salsa then
        // re-validates with every MEDIUM value: that edit still verifies each chapter.
        .filter(|p| !is_chapter(&content, p))
        .collect();
    let path = &paths[paths.len() / 2];
    let (executed, validated) = retitle(&mut session, &content, path, "\"First\"");
    let entries = count(&executed, "post_entry_json") + count(&validated, "post_entry_json");
    // The post's run in `posts-en.json` and in `posts.json`.
    assert!(
        entries <= 2 * RUN,
        "a first title edit of {path} looked at {entries} post entries: {validated:?}"
    );
}

/// Every edited post stays LOW for the rest of the session, and so does what reads it. Edits
/// across many posts (a search and replace, a `git pull`) used to leave each later edit
/// re-validating the neighbours of every post edited before, in every list holding it (the
/// runs of 64 they share), and every chapter of a series one of them belongs to: 431 post
/// entries here. An edited post now has a run of its own, and a chapter's position reads its
/// series' paths, which a chapter's first edit leaves as they were.
#[test]
fn after_edits_across_many_posts_a_title_edit_looks_at_the_edited_posts_entries_only() {
    let (_dir, content, mut session) = generated_session(240);
    let paths = english_posts(&content);
    let (chapters, others): (Vec<&String>, Vec<&String>) =
        paths.iter().partition(|path| is_chapter(&content, path));
    // Posts across the list, a third of them series chapters (a quarter of the corpus is).
    let mut edited: Vec<&String> = chapters.into_iter().step_by(7).take(7).collect();
    edited.extend(others.into_iter().step_by(13).take(13));
    assert_eq!(edited.len(), 20);
    for path in &edited {
        let file = content.join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, with_field(&text, "title", "\"Edited\"")).unwrap();
        session
            .apply(&ChangeSet {
                paths: [path.to_string()].into(),
                ..Default::default()
            })
            .unwrap();
    }
    let again = edited[edited.len() / 2];
    let (executed, validated) = retitle(&mut session, &content, again, "\"Again\"");
    // The edited posts' own entries; a series whose chapter was edited also re-checks its
    // chapters' timeline entries for its detail file.
    for query in ["post_entry_json", "timeline_post_json"] {
        let looked_at = count(&executed, query) + count(&validated, query);
        assert!(
            looked_at <= 2 * edited.len(),
            "after {} first edits, a title edit of {again} looked at {looked_at} {query}",
            edited.len()
        );
    }
}
