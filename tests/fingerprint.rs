//! `build` with nothing changed reuses the last build's fingerprint without parsing, and a real
//! change is never missed.
//!
//! Each case settles a site (a build, a pause longer than the racy window, a build that saves
//! the fingerprint, a build that reuses it), makes one change, and asserts that the next build
//! did not reuse the fingerprint and left the output folder equal to a fresh build of the same
//! inputs. The changes: a content edit that keeps the size and puts the modification time back
//! (also right after the build, while the file's stamp is racy), a new, a removed and a renamed
//! file, `watch.toml`, the publishing history, `--today`, `--drafts`, `--base-url`, and an
//! output file deleted or edited (same size, same modification time).
//!
//! Whether a build reused the fingerprint is read from its summary line, which says so.

use crate::common;

use common::*;
use content_api::deploy::DEPLOY_RECORD_PATH;
use std::path::Path;
use std::time::Duration;

/// What the summary of a build that reused the fingerprint says.
const REUSED: &str = "its fingerprint matched, nothing was parsed";

/// Longer than the racy window of file systems with sub-second timestamps (100 ms).
const SETTLE: Duration = Duration::from_millis(250);

/// A site with a fingerprint saved by a build that wrote nothing, checked to be reused.
fn settled(extra: &[&str]) -> Site {
    let site = Site::new();
    // The site's publishing history (a build records into an existing one).
    std::fs::write(site.root().join("content-api.history"), "").unwrap();
    build_into(&site, "out", extra).assert_success();
    std::thread::sleep(SETTLE);
    // Usually a full check (the first build's outputs were too recent to vouch for), but a
    // first build that stalled longer than the racy window between its writes and its
    // fingerprint saved one, rightly: then this build already reuses it.
    build_into(&site, "out", extra).assert_success();
    assert!(site.out().join(".content-api/fingerprint.json").is_file());
    let before = site.out_snapshot();
    let again = build_into(&site, "out", extra);
    again.assert_success();
    assert!(
        reused(&again),
        "an untouched site is not rebuilt:\n{}",
        again.stderr
    );
    assert_same(&before, &site.out_snapshot());
    site
}

/// `--once` into `out` (`--today` TODAY unless `extra` gives one) with `extra`.
fn build_into(site: &Site, out: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--once", "--content", "content", "--out", out];
    if !extra.contains(&"--today") {
        args.extend(["--today", TODAY]);
    }
    args.extend(extra);
    site.run(&args)
}

fn reused(run: &Run) -> bool {
    run.stderr.contains(REUSED)
}

/// Builds after a change: it must not reuse the fingerprint, and the output folder must equal
/// a fresh build's (with its own copy of the history, as the site's was before this build).
fn assert_rebuilt(site: &Site, extra: &[&str], change: &str) {
    let history = site.root().join("content-api.history");
    let fresh_history = site.root().join("fresh.history");
    match std::fs::read(&history) {
        Ok(bytes) => std::fs::write(&fresh_history, bytes).unwrap(),
        Err(_) => {
            let _ = std::fs::remove_file(&fresh_history);
        }
    }
    let run = build_into(site, "out", extra);
    run.assert_success();
    assert!(
        !reused(&run),
        "{change}: the change was missed\n{}",
        run.stderr
    );
    let mut fresh_args = extra.to_vec();
    fresh_args.extend(["--history", "fresh.history"]);
    build_into(site, "fresh", &fresh_args).assert_success();
    // The fresh build goes into another folder than the history's, so it records nothing and
    // publishes no deploy record.
    let without_state = |dir: &Path| {
        let mut tree = read_tree(dir);
        tree.retain(|path, _| !path.starts_with(".content-api/") && path != DEPLOY_RECORD_PATH);
        tree
    };
    assert_same_tree(
        &without_state(&site.root().join("fresh")),
        &without_state(&site.out()),
        change,
    );
    std::fs::remove_dir_all(site.root().join("fresh")).unwrap();
    // And once settled again, the new state is reused in turn.
    std::thread::sleep(SETTLE);
    build_into(site, "out", extra).assert_success();
    let again = build_into(site, "out", extra);
    assert!(
        reused(&again),
        "{change}: not reused afterwards\n{}",
        again.stderr
    );
}

/// Writes `text` (of the same length as the file's) and puts the modification time back.
fn edit_keeping_size_and_mtime(path: &Path, text: &str) {
    let meta = std::fs::metadata(path).unwrap();
    assert_eq!(meta.len(), text.len() as u64, "the edit keeps the size");
    std::fs::write(path, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(meta.modified().unwrap())
        .unwrap();
    assert_eq!(
        std::fs::metadata(path).unwrap().modified().unwrap(),
        meta.modified().unwrap()
    );
}

#[test]
fn an_untouched_site_is_not_parsed_and_reports_what_a_build_that_writes_nothing_does() {
    let site = settled(&[]);
    let run = site.build_with(&["--purge-list", "purge.txt"]);
    run.assert_success();
    assert!(reused(&run));
    let summary = run.stderr.lines().find(|l| l.contains(REUSED)).unwrap();
    assert!(summary.contains(": 0 written, "), "{summary}");
    assert!(summary.contains(" unchanged, 0 removed → out"), "{summary}");
    assert_eq!(
        std::fs::read_to_string(site.root().join("purge.txt")).unwrap(),
        "",
        "nothing to purge"
    );
}

#[test]
fn a_content_edit_with_the_same_size_and_modification_time_is_rebuilt() {
    let site = settled(&[]);
    edit_keeping_size_and_mtime(
        &site.path(EN_POST),
        &EN_POST_TEXT.replace("\"Hello\"", "\"Howdy\""),
    );
    assert_rebuilt(&site, &[], "title edit, same size and mtime");
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("Howdy"));
}

#[test]
fn an_edit_right_after_the_build_in_the_racy_window_is_rebuilt() {
    let site = settled(&[]);
    // The same bytes again (a save without changes): the file's stamp is new, so the next build
    // is a full one, and it runs while the stamp is racy. It writes nothing, so it saves a
    // fingerprint holding the hash of the post's text.
    std::fs::write(site.path(EN_POST), EN_POST_TEXT).unwrap();
    site.build().assert_success();
    let fingerprint =
        std::fs::read_to_string(site.out().join(".content-api/fingerprint.json")).unwrap();
    assert!(
        fingerprint.contains(&format!("\"racy\":{{\"{EN_POST}\"")),
        "the racy post is kept with its hash: {fingerprint}"
    );
    // At once (within the same timestamp tick, when the machine is quick enough), the same
    // size and the modification time put back.
    edit_keeping_size_and_mtime(&site.path(EN_POST), &EN_POST_TEXT.replace("Body.", "Bodi."));
    assert_rebuilt(&site, &[], "body edit right after the build");
}

#[test]
fn new_removed_and_renamed_content_files_are_rebuilt() {
    let site = settled(&[]);
    site.write(
        "blog/en/2024-05-02_second.md",
        EN_POST_TEXT.replace("Hello", "Second"),
    );
    assert_rebuilt(&site, &[], "a new post");
    site.remove("blog/en/2024-05-02_second.md");
    assert_rebuilt(&site, &[], "a removed post");
    std::fs::rename(
        site.path(EN_POST),
        site.path("blog/en/2024-05-01_renamed.md"),
    )
    .unwrap();
    assert_rebuilt(&site, &[], "a renamed post");
}

#[test]
fn a_config_change_is_rebuilt() {
    let site = settled(&[]);
    std::fs::write(
        site.root().join("watch.toml"),
        "base_url = \"https://site.example\"\n",
    )
    .unwrap();
    assert_rebuilt(&site, &[], "watch.toml created");
    std::fs::write(
        site.root().join("watch.toml"),
        "base_url = \"https://site.example\"\n[site]\nname = \"Another name\"\n",
    )
    .unwrap();
    assert_rebuilt(&site, &[], "watch.toml edited");
}

#[test]
fn a_history_change_is_rebuilt() {
    let site = settled(&[]);
    let history = site.root().join("content-api.history");
    let mut text = std::fs::read_to_string(&history).unwrap();
    text.push_str("api/tags/retired.json\n");
    std::fs::write(&history, text).unwrap();
    assert_rebuilt(&site, &[], "a path added to the history");
    let gone = std::fs::read_to_string(site.out().join("_nginx_gone.conf")).unwrap();
    assert!(
        gone.contains("location = /api/tags/retired.json {"),
        "{gone}"
    );
}

#[test]
fn other_flags_are_rebuilt() {
    let site = settled(&[]);
    assert_rebuilt(&site, &["--today", "2024-06-02"], "--today");
    let site = settled(&[]);
    assert_rebuilt(&site, &["--drafts"], "--drafts");
    let site = settled(&[]);
    assert_rebuilt(
        &site,
        &["--base-url", "https://other.example"],
        "--base-url",
    );
}

#[test]
fn a_deleted_or_edited_output_file_is_written_again() {
    let site = settled(&[]);
    std::fs::remove_file(site.out().join("api/posts-en.json")).unwrap();
    assert_rebuilt(&site, &[], "a deleted output file");
    let output = site.out().join("api/posts-en.json");
    let text = std::fs::read_to_string(&output).unwrap();
    edit_keeping_size_and_mtime(&output, &text.replace("Hello", "Jello"));
    assert_rebuilt(&site, &[], "an edited output file");
}

#[test]
fn a_temporary_file_an_interrupted_writer_left_is_removed() {
    let site = settled(&[]);
    // What a daemon killed while it replaced `api/posts-en.json` leaves behind: a file in the
    // tool's folder for them, which proves nothing changed in the outputs.
    let left = site
        .out()
        .join(".content-api/tmp/.posts-en.json.4242-17.tmp");
    std::fs::create_dir_all(left.parent().unwrap()).unwrap();
    std::fs::write(&left, "half a file").unwrap();
    std::thread::sleep(SETTLE);
    let run = build_into(&site, "out", &[]);
    run.assert_success();
    assert!(reused(&run), "{}", run.stderr);
    assert!(
        !left.exists(),
        "removed by the build that found nothing changed"
    );
}

#[test]
fn another_binary_is_rebuilt() {
    let site = settled(&[]);
    let copy = site.root().join("content-api-copy");
    std::fs::copy(BIN, &copy).unwrap();
    let run = run_binary_at(&copy, &site);
    run.assert_success();
    assert!(!reused(&run), "{}", run.stderr);
}

fn run_binary_at(binary: &Path, site: &Site) -> Run {
    let mut command = std::process::Command::new(binary);
    command
        .current_dir(site.root())
        .args([
            "--once",
            "--content",
            "content",
            "--out",
            "out",
            "--today",
            TODAY,
        ])
        // Like every build of these sites (see common::run_binary): no watch.toml on purpose.
        .env_remove("CI")
        .env_remove("RUST_LOG");
    // A test thread that forks while this copy is still open for writing (`fs::copy` above)
    // holds it open in its child until that child execs: the kernel refuses to run a file open
    // for writing ("text file busy") for that moment. Try again; bounded.
    let mut attempts = 0;
    let output = loop {
        match command.output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 100 => {
                attempts += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_site_with_warnings_is_always_built_so_they_are_always_shown() {
    let site = Site::new();
    site.write("blog/notes.md", "not a post\n");
    for _ in 0..3 {
        let run = site.build();
        run.assert_success();
        assert!(!reused(&run));
        run.find("this Markdown file is not read as content");
        std::thread::sleep(SETTLE);
    }
}
