//! The committed `out/` is the build of the bundled `content/`: anyone opening the repository
//! sees the API, and any change to the output shows up as a reviewed diff.

use crate::common;

use content_api::deploy::{DEPLOY_RECORD_PATH, DeployRecord};

use common::*;

const UPDATE: &str = "If the change is intended, rebuild it with `cargo run -- --once --today 2026-11-22` and review the diff of out/.";

#[test]
fn once_reproduces_the_committed_out_folder_byte_for_byte() {
    // The history of published API paths is an input of the build (it decides `_redirects`):
    // the committed `content-api.history` beside `watch.toml`, as in a fresh clone.
    let out = built_sample();
    // The fingerprint is a local cache of a checkout's last build (ignored by git): a fresh
    // build into an empty folder has none yet.
    let mut committed = read_tree(&repo().join("out"));
    committed.remove(".content-api/fingerprint.json");
    // The deploy record is written by a recorded build, and a build into another folder than
    // the history's records nothing: the committed one holds the committed history.
    let record = committed
        .remove(DEPLOY_RECORD_PATH)
        .expect("the committed out/ holds its deploy record");
    let record = DeployRecord::parse(&record, "https://lucia-montoya.example", 200_000)
        .unwrap_or_else(|why| panic!("{DEPLOY_RECORD_PATH}: {why}"))
        .record;
    let history = std::fs::read_to_string(repo().join("content-api.history")).unwrap();
    let committed_history: Vec<&str> = history.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(record.history, committed_history, "{UPDATE}");
    let manifest = committed.get_mut(".content-api/manifest.json").unwrap();
    let line = format!("    \"{DEPLOY_RECORD_PATH}\",\n");
    let text = String::from_utf8(manifest.clone()).unwrap();
    assert!(text.contains(&line), "the manifest lists the deploy record");
    *manifest = text.replace(&line, "").into_bytes();
    assert_same_tree(&committed, &read_tree(out.path()), UPDATE);
}

#[test]
fn a_second_build_rewrites_nothing() {
    let out = tempfile::tempdir().unwrap();
    let content = repo().join("content");
    build(&content, out.path(), &[]);
    let mtimes = |dir: &std::path::Path| -> Vec<(std::path::PathBuf, std::time::SystemTime)> {
        walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            // The tool's state (`.content-api/`) is not output: the second build saves the
            // fingerprint the first could not (its outputs were too recent to trust).
            .filter(|e| {
                !e.path()
                    .strip_prefix(dir)
                    .unwrap()
                    .starts_with(".content-api")
            })
            .map(|e| {
                (
                    e.path().to_owned(),
                    e.metadata().unwrap().modified().unwrap(),
                )
            })
            .collect()
    };
    let before = mtimes(out.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = build(&content, out.path(), &[]);
    assert_eq!(
        before,
        mtimes(out.path()),
        "an unchanged file was rewritten"
    );
    let log = String::from_utf8_lossy(&second.stderr);
    assert!(log.contains(" 0 written"), "{log}");
}

#[test]
fn files_the_tool_did_not_write_are_left_alone_and_stale_outputs_are_removed() {
    let out = tempfile::tempdir().unwrap();
    let content = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("content"), content.path());
    build(content.path(), out.path(), &[]);
    std::fs::write(out.path().join("api/notes.txt"), "mine").unwrap();
    std::fs::write(out.path().join("CNAME"), "example.com").unwrap();
    assert!(
        out.path()
            .join("api/timeline/en/half-marathon.json")
            .exists()
    );
    // Remove every post tagged half-marathon: its timelines must disappear.
    for lang in ["en", "es"] {
        std::fs::remove_file(content.path().join(format!(
            "blog/{lang}/2023-08-27_training-for-my-first-half-marathon.md"
        )))
        .unwrap();
    }
    build(content.path(), out.path(), &[]);
    assert!(
        !out.path()
            .join("api/timeline/en/half-marathon.json")
            .exists()
    );
    assert!(
        !out.path()
            .join("api/timeline/es/half-marathon.json")
            .exists()
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("api/notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("CNAME")).unwrap(),
        "example.com"
    );
}

#[test]
fn no_temporary_files_are_left_behind() {
    // The second build replaces files (through temporary files: the first, into an empty
    // folder, creates them in place).
    let out = tempfile::tempdir().unwrap();
    let content = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("content"), content.path());
    build(content.path(), out.path(), &[]);
    let post = content
        .path()
        .join("blog/en/2023-04-09_hello-from-medellin.md");
    let text = std::fs::read_to_string(&post).unwrap();
    std::fs::write(&post, text.replace("Medellín", "Medellin")).unwrap();
    let second = build(content.path(), out.path(), &[]);
    let log = String::from_utf8_lossy(&second.stderr);
    assert!(!log.contains(" 0 written"), "{log}");
    let leftovers: Vec<_> = read_tree(out.path())
        .into_keys()
        .filter(|p| p.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn a_symlink_inside_the_output_folder_is_never_written_through() {
    let out = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), out.path().join("api")).unwrap();
    let result = build_sample(out.path());
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert!(
        read_tree(outside.path()).is_empty(),
        "something was written outside the output folder"
    );
}
