//! The publisher's cold publish (what it writes in place, what stops it, how a crash converges),
//! and how it notices outputs removed behind its back.

use super::*;

fn outputs(pairs: &[(&str, &str)]) -> Vec<(Arc<str>, Output)> {
    pairs
        .iter()
        .map(|(path, text)| (Arc::from(*path), Output::new(*text)))
        .collect()
}

fn folder() -> (tempfile::TempDir, Utf8PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let out = Utf8PathBuf::from_path_buf(temp.path().join("out")).unwrap();
    (temp, out)
}

fn read(out: &Utf8Path, path: &str) -> String {
    std::fs::read_to_string(out.join(path)).unwrap()
}

const SITE: [(&str, &str); 3] = [
    ("api/posts.json", "[1,2]"),
    ("api/posts/en/a.json", "{\"a\":1}"),
    ("llms.txt", "# Site\n"),
];

#[test]
fn a_cold_publish_writes_every_file_and_commits_the_manifest() {
    let (_temp, out) = folder();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    let report = publisher.publish(&outputs(&SITE)).unwrap();
    assert_eq!(report.written.len(), 3);
    for (path, text) in SITE {
        assert_eq!(read(&out, path), text, "{path}");
    }
    let manifest = Manifest::load(&out);
    assert_eq!(manifest.paths().count(), 3);
    assert!(!out.join(INTENT_PATH).exists());
    // Nothing but the outputs and the state folder: no temporary file left anywhere.
    let names: Vec<String> = walk(&out);
    assert!(
        names.iter().all(|name| !name.ends_with(".tmp")),
        "{names:?}"
    );
}

#[test]
fn a_cold_publish_adopts_a_stray_file_holding_our_bytes_without_rewriting_it() {
    let (_temp, out) = folder();
    std::fs::create_dir_all(out.join("api")).unwrap();
    std::fs::write(out.join("api/posts.json"), "[1,2]").unwrap();
    let stamp = || crate::source::FileStamp::of_path(out.join("api/posts.json").as_std_path());
    let before = stamp().unwrap();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    let report = publisher.publish(&outputs(&SITE)).unwrap();
    assert_eq!(report.written.len(), 2, "{:?}", report.written);
    assert_eq!(report.unchanged, 1);
    let after = stamp().unwrap();
    assert_eq!((before.ino, before.mtime_ns), (after.ino, after.mtime_ns));
    assert!(Manifest::load(&out).contains("api/posts.json"));
}

#[test]
fn a_cold_publish_with_a_stray_file_of_other_bytes_in_the_way_writes_nothing() {
    let (_temp, out) = folder();
    std::fs::create_dir_all(out.join("api/posts/en")).unwrap();
    std::fs::write(out.join("api/posts/en/a.json"), "the site's").unwrap();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    let err = publisher.publish(&outputs(&SITE)).unwrap_err();
    assert!(matches!(err, WriteError::Ownership(_)), "{err}");
    assert_eq!(read(&out, "api/posts/en/a.json"), "the site's");
    assert!(!out.join("llms.txt").exists());
    assert!(!out.join("api/posts.json").exists());
    assert!(!out.join(INTENT_PATH).exists());
}

#[cfg(unix)]
#[test]
fn a_cold_publish_refuses_a_link_at_an_output_path_and_leaves_its_target_alone() {
    let (temp, out) = folder();
    let target = temp.path().join("elsewhere.txt");
    std::fs::write(&target, "not ours").unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&target, out.join("llms.txt")).unwrap();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    assert!(publisher.publish(&outputs(&SITE)).is_err());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "not ours");
}

#[test]
fn a_cold_publish_interrupted_mid_write_converges_on_the_next_build() {
    let (_temp, out) = folder();
    // What a build killed during its cold publish leaves: the intent record (written
    // before the first file), some files whole, one cut short, no manifest.
    std::fs::create_dir_all(out.join("api/posts/en")).unwrap();
    std::fs::create_dir_all(out.join(".content-api")).unwrap();
    let intent = Manifest::from_paths(SITE.iter().map(|(path, _)| Arc::from(*path)));
    std::fs::write(out.join(INTENT_PATH), intent.to_bytes()).unwrap();
    std::fs::write(out.join("api/posts.json"), "[1,2]").unwrap();
    std::fs::write(out.join("api/posts/en/a.json"), "{\"a\"").unwrap();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    // Not cold: the intent record says the folder may hold this tool's files.
    assert!(!publisher.is_cold().unwrap());
    let report = publisher.publish(&outputs(&SITE)).unwrap();
    assert_eq!(
        report.written,
        vec![Arc::from("api/posts/en/a.json"), Arc::from("llms.txt")]
    );
    for (path, text) in SITE {
        assert_eq!(read(&out, path), text, "{path}");
    }
    assert!(!out.join(INTENT_PATH).exists());
    assert_eq!(Manifest::load(&out), intent);
}

#[test]
fn only_a_one_shot_builds_first_publish_into_a_folder_it_owns_nothing_of_is_cold() {
    let (_temp, out) = folder();
    let mut daemon = Publisher::open(&out).unwrap();
    daemon.opened = Some(open_locked(&out).unwrap());
    assert!(!daemon.is_cold().unwrap(), "a daemon's publish");
    drop(daemon);
    let mut build = Publisher::open(&out).unwrap().one_shot();
    assert!(build.is_cold().unwrap());
    build.publish(&outputs(&SITE)).unwrap();
    assert!(!build.is_cold().unwrap(), "the second publish");
    drop(build);
    let next = Publisher::open(&out).unwrap().one_shot();
    assert!(!next.is_cold().unwrap(), "a folder with a manifest");
}

#[test]
fn a_file_removed_while_a_publish_finishes_is_noticed_at_the_next_check() {
    let (_temp, out) = folder();
    let site = outputs(&SITE);
    let mut publisher = Publisher::open(&out).unwrap();
    publisher.publish(&site).unwrap();
    // Once the folders are looked into after their last change, they are stamped.
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert!(publisher.is_intact());
    assert!(publisher.folders.values().all(Option::is_some));
    // A removal while a publish that skips every group is finishing, then its last step.
    std::fs::remove_file(out.join("api/posts.json")).unwrap();
    publisher.remember(&[Files::from(site.as_slice())], true);
    assert!(!publisher.is_intact(), "the removal is seen");
    publisher.publish(&site).unwrap();
    assert_eq!(read(&out, "api/posts.json"), "[1,2]");
    assert!(publisher.is_intact());
}

#[test]
fn a_file_removed_right_after_a_publish_is_noticed() {
    for _ in 0..20 {
        let (_temp, out) = folder();
        let mut publisher = Publisher::open(&out).unwrap();
        publisher.publish(&outputs(&SITE)).unwrap();
        std::fs::remove_file(out.join("api/posts.json")).unwrap();
        assert!(!publisher.is_intact());
        publisher.publish(&outputs(&SITE)).unwrap();
        assert_eq!(read(&out, "api/posts.json"), "[1,2]");
    }
}

#[test]
fn a_file_edited_by_hand_is_noticed_at_the_next_check_and_written_again() {
    let (_temp, out) = folder();
    let site = outputs(&SITE);
    let mut publisher = Publisher::open(&out).unwrap();
    publisher.publish(&site).unwrap();
    assert!(publisher.is_intact());
    // In place, same length (the folder's stamp does not move); then replaced by a rename.
    std::fs::write(out.join("api/posts.json"), "[9,9]").unwrap();
    assert!(!publisher.is_intact(), "the edit is seen");
    let report = publisher.publish(&site).unwrap();
    assert_eq!(report.written, vec![Arc::from("api/posts.json")]);
    assert_eq!(read(&out, "api/posts.json"), "[1,2]");
    assert!(publisher.is_intact());
    std::fs::write(out.join("api/posts/en/a.new"), "{}").unwrap();
    std::fs::rename(
        out.join("api/posts/en/a.new"),
        out.join("api/posts/en/a.json"),
    )
    .unwrap();
    assert!(!publisher.is_intact());
    publisher.publish(&site).unwrap();
    assert_eq!(read(&out, "api/posts/en/a.json"), "{\"a\":1}");
    assert!(publisher.is_intact(), "its own writes are no edit");
}

#[test]
fn a_publish_stopped_in_the_middle_of_a_file_keeps_the_old_one_and_finishes_next_time() {
    let (_temp, out) = folder();
    let mut publisher = Publisher::open(&out).unwrap();
    publisher.publish(&outputs(&SITE)).unwrap();
    // Three blocks of the writer: the stop comes after the first one went to the disk.
    let large = "x".repeat(3 << 20);
    let newer = outputs(&[SITE[0], SITE[1], ("llms.txt", large.as_str())]);
    let groups = [Files::from(newer.as_slice())];
    let asked = std::sync::atomic::AtomicUsize::new(0);
    // Asked before the file, before its first block, then before its second.
    let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 2;
    let stopped = publisher.publish_groups_until(&groups, &stop);
    assert!(matches!(stopped, Err(WriteError::Stopped)), "{stopped:?}");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 3);
    assert_eq!(read(&out, "llms.txt"), "# Site\n", "the old file stays");
    let names = walk(&out);
    assert!(
        names.iter().all(|name| !name.ends_with(".tmp")),
        "{names:?}"
    );
    // Not a failure: the folder holds whole files, each of them known.
    assert!(publisher.is_intact());
    let report = publisher.publish_groups(&groups).unwrap();
    assert_eq!(report.written, vec![Arc::from("llms.txt")]);
    assert_eq!(read(&out, "llms.txt"), large);
}

#[test]
fn a_publish_stopped_before_its_first_file_writes_nothing() {
    let (_temp, out) = folder();
    let mut publisher = Publisher::open(&out).unwrap();
    publisher.publish(&outputs(&SITE)).unwrap();
    let newer = outputs(&[("api/posts.json", "[1,2,3]"), SITE[1], SITE[2]]);
    let groups = [Files::from(newer.as_slice())];
    let stopped = publisher.publish_groups_until(&groups, &|| true);
    assert!(matches!(stopped, Err(WriteError::Stopped)), "{stopped:?}");
    assert_eq!(read(&out, "api/posts.json"), "[1,2]");
    let report = publisher.publish_groups(&groups).unwrap();
    assert_eq!(report.written, vec![Arc::from("api/posts.json")]);
}

#[test]
fn what_a_stopped_publish_wrote_is_reported_by_the_next_one() {
    let (_temp, out) = folder();
    let mut publisher = Publisher::open(&out).unwrap();
    publisher.publish(&outputs(&SITE)).unwrap();
    let large = "x".repeat(3 << 20);
    let newer = outputs(&[("api/posts.json", "[1,2,3]"), SITE[1], ("llms.txt", &large)]);
    let groups = [Files::from(newer.as_slice())];
    // One writing thread: the largest file first, then the other. The stop comes when the
    // first is written: asked before it, before each of its three blocks, then before the next.
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 4;
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let stopped = one_thread.install(|| publisher.publish_groups_until(&groups, &stop));
    assert!(matches!(stopped, Err(WriteError::Stopped)), "{stopped:?}");
    assert_eq!(read(&out, "llms.txt"), large);
    assert_eq!(read(&out, "api/posts.json"), "[1,2]");
    let report = publisher.publish_groups(&groups).unwrap();
    assert_eq!(
        report.written,
        vec![Arc::from("api/posts.json"), Arc::from("llms.txt")],
        "the file written before the stop is reported too (a purge list needs it)"
    );
}

fn walk(dir: &Utf8Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = Utf8PathBuf::from_path_buf(entry.path()).unwrap();
        if entry.file_type().unwrap().is_dir() {
            names.extend(walk(&path));
        } else {
            names.push(path.file_name().unwrap().to_string());
        }
    }
    names
}

#[test]
fn an_unsafe_path_stops_the_publish_before_any_write_and_the_first_one_is_named() {
    let (_temp, out) = folder();
    let mut pairs: Vec<(String, &str)> = (0..1000)
        .map(|i| (format!("api/posts/en/p{i:04}.json"), "{}"))
        .collect();
    // Enough paths for the checks to run on several threads; the first bad one in order wins.
    pairs[400].0 = "api/../../escape.json".into();
    pairs[900].0 = "/etc/passwd".into();
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(path, text)| (&**path, *text)).collect();
    let mut publisher = Publisher::open(&out).unwrap().one_shot();
    match publisher.publish(&outputs(&pairs)) {
        Err(WriteError::Unsafe { path, .. }) => assert_eq!(path, "api/../../escape.json"),
        other => panic!("expected the unsafe path to be refused, got {other:?}"),
    }
    assert!(
        !out.join("api").exists(),
        "nothing is written before the check"
    );
}
