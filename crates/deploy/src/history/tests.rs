//! The publishing history: its grammar, what is recorded, bad lines, the site it belongs to,
//! the legacy file.

use super::*;

/// A site whose history is `file` and whose output folder is `out`.
fn site(file: &Utf8Path, out: &Utf8Path) -> SiteConfig {
    let mut config = SiteConfig::defaults(file.parent().unwrap());
    config.history_file = file.to_owned();
    config.out_dir = out.to_owned();
    config
}

#[test]
fn a_history_belongs_to_one_site_and_only_that_site_records_into_it() {
    let (_keep, root) = dir();
    let file = root.join("content-api.history");
    let ours = site(&file, &root.join("out"));
    let mut history = HistoryFile::load(&ours).unwrap();
    history.record(["api/a.json"]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(
            r#"# site: {"base_url":"http://localhost:4321","content":"content","out":"out"}"#
        ),
        "{text}"
    );
    // Another site (other content) neither reads nor records it.
    let mut other = ours.clone();
    other.content_dir = root.join("elsewhere");
    let mut theirs = HistoryFile::load(&other).unwrap();
    assert_eq!(theirs.history().paths().count(), 0);
    assert!(
        theirs.warnings[0].contains("neither read nor recorded"),
        "{:?}",
        theirs.warnings
    );
    assert_eq!(theirs.record(["api/b.json"]).unwrap(), 0);
    // A new base URL is the same site, moved: it records (and the header follows).
    let mut moved = ours.clone();
    moved.base_url = "https://moved.example".into();
    let mut history = HistoryFile::load(&moved).unwrap();
    assert!(history.records());
    history.record(["api/a.json"]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("https://moved.example"), "{text}");
    // The same site built into another folder for one run (`--out`) reads it and records
    // nothing.
    let mut elsewhere = moved.clone();
    elsewhere.out_dir = root.join("preview");
    elsewhere.out_dir_for_this_run = true;
    let mut preview = HistoryFile::load(&elsewhere).unwrap();
    assert_eq!(
        preview.history().paths().collect::<Vec<_>>(),
        ["api/a.json"]
    );
    assert!(!preview.records());
    preview.record(["api/c.json"]).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "untouched");
    // `out_dir` changed in watch.toml (the nginx recipe after the Quick start): the history
    // follows the site to its new folder, and records there.
    let mut rehomed = moved.clone();
    rehomed.out_dir = root.join("srv-site-api");
    let mut history = HistoryFile::load(&rehomed).unwrap();
    assert!(history.records());
    history.record(["api/d.json"]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("srv-site-api") && text.contains("api/d.json"),
        "{text}"
    );
}

fn dir() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8Path::from_path(dir.path()).unwrap().to_owned();
    (dir, path)
}

#[test]
fn entries_follow_the_output_grammar_and_nothing_a_host_file_could_read() {
    for good in [
        "api/posts.json",
        "api/timeline/en/half-marathon.json",
        "api/series/es/index.json",
        "api/404.html",
    ] {
        assert!(is_history_entry(good), "{good}");
    }
    for bad in [
        "",
        "api/",
        "api/posts",
        "api/../etc/passwd.json",
        "api/a/../b.json",
        "api/x.json 301",
        "api/x.json\n/ /evil 200",
        "api/*.json",
        "api/Posts.json",
        "api//x.json",
        "/api/x.json",
        "llms.txt",
        "api/x.json!",
        "api/a:b.json",
        "api/x.txt",
        "<<<<<<< HEAD",
    ] {
        assert!(!is_history_entry(bad), "{bad:?} should be refused");
    }
}

#[test]
fn only_api_paths_are_recorded_sorted_one_a_line_and_written_only_when_they_change() {
    let (_keep, root) = dir();
    let file = root.join("site/content-api.history");
    let out = root.join("out");
    let mut history = HistoryFile::load(&site(&file, &out)).unwrap();
    assert_eq!(history.history(), &History::default());
    let added = history
        .record(["api/b.json", "openapi.json", "_headers", "api/a.json"])
        .unwrap();
    assert_eq!(added, 2);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# content-api publishing history"));
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines, ["api/a.json", "api/b.json"]);
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut again = HistoryFile::load(&site(&file, &out)).unwrap();
    assert_eq!(again.record(["api/a.json"]).unwrap(), 0);
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), mtime);
}

#[test]
fn bad_lines_are_reported_with_file_and_line_and_never_kept() {
    let (_keep, root) = dir();
    let file = root.join("content-api.history");
    std::fs::write(root.join("watch.toml"), "").unwrap();
    std::fs::write(
        &file,
        "# comment\napi/ok.json\r\n<<<<<<< HEAD\napi/../../etc/passwd\n\napi/x.json 200\n",
    )
    .unwrap();
    let mut history = HistoryFile::load(&site(&file, &root.join("out"))).unwrap();
    assert_eq!(
        history.history().paths().collect::<Vec<_>>(),
        ["api/ok.json"]
    );
    assert_eq!(history.warnings.len(), 3, "{:?}", history.warnings);
    assert!(history.warnings[0].contains(&format!("{file}:3:")));
    assert!(history.warnings[1].contains(&format!("{file}:4:")));
    assert!(history.warnings[2].contains(&format!("{file}:6:")));
    history.record([]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("passwd") && !text.contains("HEAD"), "{text}");
}

#[test]
fn a_legacy_history_is_validated_merged_and_moved_once() {
    let (_keep, root) = dir();
    let out = root.join("out");
    std::fs::create_dir_all(out.join(".content-api")).unwrap();
    std::fs::write(
        out.join(LEGACY_HISTORY_PATH),
        "{\n  \"generator\": \"content-api\",\n  \"published\": [\n    \"api/old.json\",\n    \"api/../../x.json\"\n  ]\n}\n",
    )
    .unwrap();
    let file = root.join("content-api.history");
    std::fs::write(root.join("watch.toml"), "").unwrap();
    std::fs::write(&file, "api/new.json\n").unwrap();
    let mut history = HistoryFile::load(&site(&file, &out)).unwrap();
    assert!(history.has_legacy());
    assert_eq!(
        history.history().paths().collect::<Vec<_>>(),
        ["api/new.json", "api/old.json"]
    );
    assert_eq!(history.warnings.len(), 1);
    assert!(
        history.warnings[0].contains(&format!("{}:5:", out.join(LEGACY_HISTORY_PATH))),
        "{:?}",
        history.warnings
    );
    history.record([]).unwrap();
    assert!(!out.join(LEGACY_HISTORY_PATH).exists());
    let again = HistoryFile::load(&site(&file, &out)).unwrap();
    assert!(!again.has_legacy());
    assert_eq!(again.history(), history.history());
}

#[test]
fn a_history_no_build_claimed_is_adopted_only_by_the_site_whose_watch_toml_is_beside_it() {
    let (_keep, root) = dir();
    let file = root.join("content-api.history");
    let older = "api/ours.json\n";
    std::fs::write(&file, older).unwrap();
    std::fs::write(root.join("watch.toml"), "content_dir = \"posts\"\n").unwrap();
    // Another site's build run from this folder (other content, or the defaults' folders).
    let mut other = site(&file, &root.join("out"));
    for content in [root.join("content"), root.join("../elsewhere/content")] {
        other.content_dir = content;
        let mut theirs = HistoryFile::load(&other).unwrap();
        assert_eq!(theirs.history().paths().count(), 0, "nothing read");
        assert!(!theirs.records());
        assert_eq!(theirs.warnings.len(), 1, "{:?}", theirs.warnings);
        assert!(
            theirs.warnings[0].contains("neither read nor recorded")
                && theirs.warnings[0].contains("# site: {"),
            "{:?}",
            theirs.warnings
        );
        theirs.record(["api/theirs.json"]).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), older, "untouched");
    }
    // The site of that watch.toml reads it and, recording, claims it.
    let mut ours = site(&file, &root.join("out"));
    ours.content_dir = root.join("posts");
    let mut history = HistoryFile::load(&ours).unwrap();
    assert!(history.warnings.is_empty(), "{:?}", history.warnings);
    assert!(history.records());
    history.record(["api/new.json"]).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(r#""content":"posts""#), "{text}");
    assert!(
        text.contains("api/ours.json\napi/new.json")
            || text.contains("api/new.json\napi/ours.json")
    );
    // Without a watch.toml beside it, no build adopts it, unless it lists nothing yet (a site
    // without one asks to be recorded by creating the file).
    std::fs::write(&file, older).unwrap();
    std::fs::remove_file(root.join("watch.toml")).unwrap();
    assert!(!HistoryFile::load(&ours).unwrap().records());
    std::fs::write(&file, "# nothing yet\n").unwrap();
    assert!(HistoryFile::load(&ours).unwrap().records());
}

#[test]
fn an_unreadable_history_stops_the_build_rather_than_forgetting() {
    let (_keep, root) = dir();
    let file = root.join("content-api.history");
    std::fs::write(&file, [0xff, 0xfe, b'\n']).unwrap();
    let err = HistoryFile::load(&site(&file, &root.join("out"))).unwrap_err();
    assert!(err.to_string().contains(file.as_str()), "{err}");
}
