//! The racy case made deterministic: a content file whose stamp did not change while its text
//! did (what a change within one timestamp tick looks like) is caught by the hash of the text
//! the build read. The end-to-end cases (every kind of change, through the binary) are in
//! `tests/fingerprint.rs`.

use super::*;
use crate::output::Output;
use std::time::Duration;

struct Site {
    _dir: tempfile::TempDir,
    config: SiteConfig,
    post: std::path::PathBuf,
}

fn site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let config = SiteConfig::defaults(root);
    let post = config
        .content_dir
        .join("blog/en/2024-01-01_a.md")
        .into_std_path_buf();
    std::fs::create_dir_all(post.parent().unwrap()).unwrap();
    std::fs::write(&post, "text one").unwrap();
    Site {
        _dir: dir,
        config,
        post,
    }
}

fn settings(config: &SiteConfig) -> BuildSettings<'_> {
    BuildSettings {
        config,
        config_file: None,
        today: NaiveDate::from_ymd_opt(2024, 6, 1).unwrap(),
        drafts: false,
        future: false,
    }
}

fn outputs() -> Vec<(Arc<str>, Output)> {
    vec![(Arc::from("api/a.json"), Output::new("{}"))]
}

/// Publishes, then waits until the outputs' stamps are trustworthy.
fn published(config: &SiteConfig) -> Publisher {
    let mut publisher = Publisher::open(&config.out_dir).unwrap();
    publisher.publish(&outputs()).unwrap();
    std::thread::sleep(Duration::from_millis(250));
    publisher
}

#[test]
fn a_racy_file_is_trusted_only_when_it_holds_the_text_the_build_read() {
    let site = site();
    let publisher = published(&site.config);
    // Changed just now: racy, so the fingerprint keeps the hash of the text the build read.
    std::fs::write(&site.post, "text two").unwrap();
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(probe.tree[0].stamp.is_racy(probe.taken_ns));
    // The build read other bytes than the disk now holds, under the same stamp: exactly what a
    // second change within one timestamp tick leaves behind.
    let saved = probe
        .save(
            &publisher,
            &outputs(),
            |_| Some(xxh3_64(b"text one")),
            true,
            false,
        )
        .unwrap();
    assert!(saved);
    let on_disk: FingerprintFile =
        serde_json::from_slice(&std::fs::read(site.config.out_dir.join(FINGERPRINT_PATH)).unwrap())
            .unwrap();
    assert_eq!(
        on_disk.racy.keys().collect::<Vec<_>>(),
        ["blog/en/2024-01-01_a.md"]
    );
    let again = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert_eq!(again.content, on_disk.content, "the stamps are the same");
    assert_eq!(again.unchanged(), None);
    // Saved with the text that is on disk, the same stamps match.
    again
        .save(
            &publisher,
            &outputs(),
            |_| Some(xxh3_64(b"text two")),
            true,
            false,
        )
        .unwrap();
    let third = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert_eq!(
        third.unchanged(),
        Some(Reused {
            files: 1,
            sources: 1
        })
    );
}

#[test]
fn old_stamps_are_trusted_without_reading_and_any_change_is_seen() {
    let site = site();
    std::thread::sleep(Duration::from_millis(250));
    let publisher = published(&site.config);
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    // Not racy: no text is needed (a build that held none could still vouch for it).
    assert!(
        probe
            .save(&publisher, &outputs(), |_| None, true, false)
            .unwrap()
    );
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(probe.unchanged().is_some());
    // Same size, modification time put back: the change time still tells.
    let mtime = std::fs::metadata(&site.post).unwrap().modified().unwrap();
    std::fs::write(&site.post, "text ONE").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&site.post)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert_eq!(probe.unchanged(), None);
}

#[test]
fn a_build_that_cannot_be_vouched_for_removes_the_fingerprint() {
    let site = site();
    std::thread::sleep(Duration::from_millis(250));
    let publisher = published(&site.config);
    let path = site.config.out_dir.join(FINGERPRINT_PATH);
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(
        probe
            .save(&publisher, &outputs(), |_| None, true, false)
            .unwrap()
    );
    assert!(path.is_file());
    // Warnings were printed: a build standing in for this one would not print them.
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(
        !probe
            .save(&publisher, &outputs(), |_| None, false, false)
            .unwrap()
    );
    assert!(!path.exists());
    // Outputs written just now: their stamps cannot be trusted yet.
    let mut publisher = publisher;
    let changed = vec![(Arc::from("api/a.json"), Output::new("{\"a\":1}"))];
    publisher.publish(&changed).unwrap();
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(
        !probe
            .save(&publisher, &changed, |_| None, true, false)
            .unwrap()
    );
    assert!(!path.exists());
}

#[test]
fn a_damaged_or_foreign_fingerprint_never_matches() {
    let site = site();
    std::thread::sleep(Duration::from_millis(250));
    let publisher = published(&site.config);
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(
        probe
            .save(&publisher, &outputs(), |_| None, true, false)
            .unwrap()
    );
    let path = site.config.out_dir.join(FINGERPRINT_PATH);
    let good = std::fs::read_to_string(&path).unwrap();
    let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
    assert!(probe.unchanged().is_some());
    for bad in [
        String::from("not json"),
        good.replace("\"format\":1", "\"format\":2"),
        good.replace("\"yielded\":[]", "\"yielded\":[\"../outside\"]"),
        good.replace("\"yielded\":[]", "\"yielded\":[\"api/a.json\"]"),
        good.replace("\"racy\":{}", "\"racy\":{\"../../etc/passwd\":\"0\"}"),
    ] {
        assert_ne!(bad, good);
        std::fs::write(&path, &bad).unwrap();
        let probe = Probe::take(&settings(&site.config), &publisher).unwrap();
        assert_eq!(probe.unchanged(), None, "{bad}");
    }
}
