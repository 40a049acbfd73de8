//! Faults of the write side, the content folder and the state files: each test reproduces one
//! fault as a user meets it, through the binary, and checks the behaviour the user relies on.

use crate::common;

use common::{EN_POST, EN_POST_TEXT, Site, TODAY};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(20);

/// A valid post dated in May 2024 with `tags` and a body of `body`.
fn post(title: &str, tags: &str, body: &str) -> String {
    format!(
        "---\ntitle: \"{title}\"\ndescription: \"About {title}\"\npubDate: 2024-05-02\ntags: [{tags}]\n---\n\n{body}\n"
    )
}

/// Every file below `dir` (relative path → bytes), without the state folder and the deploy
/// record (which only a recorded `build` writes, never a watch session).
fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    common::read_tree(dir)
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with(".content-api/") && path != content_api::deploy::DEPLOY_RECORD_PATH
        })
        .collect()
}

/// A `--once` build of the site's content into a new folder, `fresh`.
fn fresh_build(site: &Site) -> PathBuf {
    site.run(&[
        "--once",
        "--content",
        "content",
        "--out",
        "fresh",
        "--today",
        TODAY,
    ])
    .assert_success();
    site.root().join("fresh")
}

/// Asserts two output folders hold the same files (state folder and `except` aside), naming
/// the paths that differ.
fn assert_same_files_but(ours: &Path, fresh: &Path, except: &[&str]) {
    let (ours, theirs) = (files_of(ours), files_of(fresh));
    let differ: Vec<&String> = ours
        .keys()
        .chain(theirs.keys())
        .filter(|path| !except.contains(&path.as_str()) && ours.get(*path) != theirs.get(*path))
        .collect();
    assert!(differ.is_empty(), "differs from a fresh build: {differ:?}");
}

fn assert_same_files(ours: &Path, fresh: &Path) {
    assert_same_files_but(ours, fresh, &[]);
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

// ---- Every build is all or nothing. ----

#[test]
fn a_build_that_fails_on_a_name_too_long_leaves_the_output_folder_exactly_as_it_was() {
    let site = Site::new();
    site.build().assert_success();
    let before = site.out_snapshot();
    // The tag passes the slug rules; its timeline's file name (`<tag>.json`, 256 bytes) does not
    // fit in a file name. Its index entries, llms.txt and twin would be written before it.
    let tag = "t".repeat(251);
    site.write(
        format!("tags/{tag}.md"),
        format!("---\nname: {tag}\ndescription: \"Long\"\ntier: primary\n---\n"),
    );
    site.write(
        "blog/en/2024-05-02_long.md",
        post("Long", &format!("\"{tag}\""), "Body."),
    );
    let run = site.build();
    run.assert_code(1);
    assert!(
        run.stderr.contains(&format!("{tag}.json")) && run.stderr.contains("256 bytes"),
        "the message names the path and its length:\n{}",
        run.stderr
    );
    assert!(run.stderr.contains("shorten"), "{}", run.stderr);
    common::assert_same(&before, &site.out_snapshot());
}

#[test]
fn leftover_temporary_files_are_removed_and_files_of_the_site_never_are() {
    let site = Site::new();
    site.build().assert_success();
    let out = site.out();
    // What an interrupted writer leaves: files in the tool's own folder for them.
    std::fs::create_dir_all(out.join(".content-api/tmp")).unwrap();
    std::fs::write(out.join(".content-api/tmp/.posts.json.4242-17.tmp"), "half").unwrap();
    // Files of the site's that look like temporary files of older versions.
    let look_alikes = [
        "api/.posts.json.4242-17.tmp",
        ".llms.txt.4242-18.tmp",
        ".backup.2024-01.tmp",
        "api/.notes.1-1.tmp",
        "api/notes.tmp",
    ];
    for name in look_alikes {
        std::fs::write(out.join(name), "mine").unwrap();
    }
    // A change, so the build replaces files (a daemon's publisher runs the same steps).
    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "Another body."));
    site.build().assert_success();
    assert!(
        !out.join(".content-api/tmp/.posts.json.4242-17.tmp")
            .exists()
    );
    for name in look_alikes {
        assert_eq!(std::fs::read(out.join(name)).unwrap(), b"mine", "{name}");
    }
}

/// Starts `--once` on the site and kills it (`kill -9`) after a pseudo-random share of `full`,
/// the time of a whole build, drawn from `seed`. True when the kill landed during the build.
fn kill_a_build(site: &Site, seed: &mut u64, full: Duration) -> bool {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let delay = full.mul_f64((*seed >> 33) as f64 / (1u64 << 31) as f64);
    let mut child = Command::new(common::BIN)
        .args(["--once", "--content", "content", "--out", "out"])
        .args(["--today", TODAY])
        .current_dir(site.root())
        // The site has no watch.toml: placeholder settings, an error when CI is set.
        .env_remove("CI")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let mid_build = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    mid_build
}

/// `kill -9` at random moments of builds that add a post, the post removed again after each
/// kill: the next complete build leaves the folder equal to a fresh build (no orphan of a killed
/// build, no temporary file), whatever the moment of each kill.
#[test]
fn builds_killed_at_any_moment_converge_on_the_next_build() {
    let site = Site::new();
    for i in 0..150 {
        site.write(
            format!("blog/en/2024-05-02_p{i}.md"),
            post(&format!("P{i}"), "\"rust\"", &"Words. ".repeat(200)),
        );
    }
    let started = Instant::now();
    site.build().assert_success();
    let full = started.elapsed();
    let mut seed: u64 = 0x5eed_1234;
    let mut killed_mid_build = 0;
    for i in 0..12 {
        let new = format!("blog/en/2024-05-03_new{i}.md");
        site.write(&new, post(&format!("New {i}"), "\"rust\"", "Fresh."));
        if kill_a_build(&site, &mut seed, full) {
            killed_mid_build += 1;
        }
        site.remove(&new);
    }
    site.build().assert_success();
    let fresh = fresh_build(&site);
    // The history may remember an API path a killed build published (then `_redirects` lists
    // it as gone, as it should): compare everything else.
    assert_same_files_but(&site.out(), &fresh, &["_redirects"]);
    assert!(killed_mid_build > 0, "no kill landed during a build");
    let leftovers: Vec<String> = common::read_tree(&site.out())
        .into_keys()
        .filter(|path| path.ends_with(".tmp") || path.ends_with("intent.json"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn first_builds_killed_mid_write_into_an_empty_folder_converge_on_the_next_build() {
    // A cold build writes new files in place (no temporary file): a file cut short by the kill
    // must be found and rewritten by the next build, which owns it through the intent record.
    let site = Site::new();
    for i in 0..150 {
        site.write(
            format!("blog/en/2024-05-02_p{i}.md"),
            post(&format!("P{i}"), "\"rust\"", &"Words. ".repeat(200)),
        );
    }
    let started = Instant::now();
    site.build().assert_success();
    let full = started.elapsed();
    let fresh = fresh_build(&site);
    let mut seed: u64 = 0xc01d_5eed;
    let mut killed_mid_build = 0;
    for _ in 0..10 {
        std::fs::remove_dir_all(site.out()).unwrap();
        if kill_a_build(&site, &mut seed, full) {
            killed_mid_build += 1;
        }
        site.build().assert_success();
        assert_same_files(&site.out(), &fresh);
        let leftovers: Vec<String> = common::read_tree(&site.out())
            .into_keys()
            .filter(|path| path.ends_with(".tmp") || path.ends_with("intent.json"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
    assert!(killed_mid_build > 0, "no kill landed during a build");
}

// ---- Nothing outside the output folder is touched, whatever the state files say. ----

#[test]
fn manifest_entries_that_leave_the_folder_or_cross_a_link_remove_nothing() {
    let site = Site::new();
    site.build().assert_success();
    let outside = site.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.txt"), "keep me").unwrap();
    std::fs::write(site.root().join("sibling.txt"), "keep me").unwrap();
    std::os::unix::fs::symlink(&outside, site.out().join("linked")).unwrap();
    std::fs::create_dir_all(site.out().join("real")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.txt"), site.out().join("real/link.txt"))
        .unwrap();
    let manifest_path = site.out().join(".content-api/manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let files = manifest["files"].as_array_mut().unwrap();
    for hostile in [
        "linked/victim.txt",
        "real/link.txt",
        "../sibling.txt",
        "/etc/hostname",
        ".content-api/published.json",
    ] {
        files.push(hostile.into());
    }
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    site.build().assert_success();
    assert_eq!(
        std::fs::read(outside.join("victim.txt")).unwrap(),
        b"keep me"
    );
    assert_eq!(
        std::fs::read(site.root().join("sibling.txt")).unwrap(),
        b"keep me"
    );
    assert!(
        site.out().join("real/link.txt").is_symlink(),
        "a link is not a file we wrote"
    );
    assert!(site.out().join(".content-api/manifest.json").is_file());
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    assert!(
        !manifest.contains("victim") && !manifest.contains(".."),
        "{manifest}"
    );
}

#[test]
fn an_output_folder_with_a_link_in_the_way_is_refused_before_any_write() {
    let site = Site::new();
    site.build().assert_success();
    let elsewhere = site.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::remove_dir_all(site.out().join("api/timeline")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, site.out().join("api/timeline")).unwrap();
    site.write(
        common::EN_POST,
        common::EN_POST_TEXT.replace("Body.", "Changed."),
    );
    let before = site.out_snapshot();
    let run = site.build();
    run.assert_code(3);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
    common::assert_same(&before, &site.out_snapshot());
}

/// A watch daemon on the site, with its log.
struct Daemon {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Daemon {
    fn start(site: &Site, out: &str) -> Daemon {
        std::fs::write(
            site.root().join("watch.toml"),
            "[watch]\ndebounce_ms = 20\n",
        )
        .unwrap();
        let (child, log) = common::spawn_logged(
            Command::new(common::BIN)
                .env_remove("CI")
                .args(["--content", "content", "--out", out, "--today", TODAY])
                .current_dir(site.root())
                .env("RUST_LOG", "info,salsa=warn"),
        );
        let daemon = Daemon { child, log };
        daemon.wait_for(
            || daemon.logged(common::DAEMON_READY),
            "the daemon to start",
        );
        daemon
    }

    fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    fn wait_for(&self, done: impl Fn() -> bool, what: &str) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < PATIENCE,
                "timed out waiting for {what}; log:\n{}",
                self.log.lock().unwrap().join("\n")
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_second_writer_is_refused_with_the_first_ones_pid_and_a_killed_ones_lock_is_taken_over() {
    let site = Site::new();
    let mut daemon = Daemon::start(&site, "out");
    let run = site.build();
    run.assert_code(3);
    let pid = daemon.child.id().to_string();
    assert!(
        run.stderr.contains(&format!("pid {pid}")) && run.stderr.contains("content-api"),
        "the message names the other process:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--out"),
        "and what to do:\n{}",
        run.stderr
    );
    // kill -9: no chance to release anything.
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    site.build().assert_success();
}

// ---- Content that cannot hang or explode the build. ----

#[test]
fn a_fifo_named_like_a_post_is_skipped_with_a_warning_in_both_modes() {
    let site = Site::new();
    mkfifo(&site.path("blog/en/2024-05-02_pipe.md"));
    let run = site.build();
    run.assert_success();
    assert!(
        run.stderr.contains("2024-05-02_pipe.md") && run.stderr.contains("FIFO"),
        "{}",
        run.stderr
    );
    // In watch mode, a FIFO appearing is read through the watcher's path: it must not block
    // the daemon, which goes on publishing edits.
    let daemon = Daemon::start(&site, "out");
    mkfifo(&site.path("blog/en/2024-05-03_pipe2.md"));
    std::thread::sleep(Duration::from_millis(200));
    site.write(
        common::EN_POST,
        common::EN_POST_TEXT.replace("\"Hello\"", "\"Hello again\""),
    );
    daemon.wait_for(
        || {
            std::fs::read_to_string(site.out().join("api/posts-en.json"))
                .is_ok_and(|text| text.contains("Hello again"))
        },
        "the edit after the FIFO to be published",
    );
}

#[test]
fn a_link_to_the_root_inside_the_content_folder_is_not_walked() {
    let site = Site::new();
    std::os::unix::fs::symlink("/", site.path("blog/en/root")).unwrap();
    std::os::unix::fs::symlink(site.root(), site.path("tags/up")).unwrap();
    let started = Instant::now();
    let run = site.build();
    run.assert_success();
    assert!(started.elapsed() < common::TIMEOUT);
    assert!(
        run.stderr.contains("blog/en/root") && run.stderr.contains("outside the content folder"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_oversized_content_file_is_an_error_naming_the_file_and_the_limit() {
    let site = Site::new();
    let big = post("Big", "\"rust\"", &"x".repeat(9 << 20));
    site.write("blog/en/2024-05-02_big.md", big);
    let run = site.build();
    run.assert_code(1);
    for needle in [
        "blog/en/2024-05-02_big.md",
        "8 MB limit",
        "move large assets",
    ] {
        assert!(run.stderr.contains(needle), "{needle}:\n{}", run.stderr);
    }
}

// ---- Recovery: a damaged output is restored, a failed write retried, a fault named. ----

#[test]
fn a_deleted_subfolder_of_the_output_is_restored_by_the_daemon() {
    let site = Site::new();
    let daemon = Daemon::start(&site, "out");
    let timeline = site.out().join("api/timeline");
    assert!(timeline.is_dir());
    let before = files_of(&site.out());
    std::fs::remove_dir_all(&timeline).unwrap();
    // The daemon writes while the test reads: a live snapshot skips files caught mid-rename.
    daemon.wait_for(
        || common::live_snapshot(&site.out()) == before,
        "the folder to be restored",
    );
    // A single deleted file, too.
    std::fs::remove_file(site.out().join("api/posts.json")).unwrap();
    daemon.wait_for(
        || common::live_snapshot(&site.out()) == before,
        "the file to be restored",
    );
}

/// A tiny tmpfs, mounted for the test (root only: elsewhere, `common::need::ROOT`'s rule).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: PathBuf, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(&at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        ok.then_some(Tmpfs(at))
    }

    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_write_that_fails_for_lack_of_space_is_retried_until_it_succeeds() {
    let site = Site::new();
    let Some(disk) = Tmpfs::mount(site.root().join("disk"), "4m") else {
        common::need::ROOT.missing("cannot mount a tmpfs here");
        return;
    };
    let daemon = Daemon::start(&site, "disk/out");
    // Its body is published twice (the post's Markdown twin and llms-full.txt): 2 × 3 MB does
    // not fit in 4 MB.
    let body = "Long words. ".repeat(1 << 18);
    // Renamed into place: one file event, so only the daemon's tick can retry the write.
    let staged = site.root().join("big.md");
    std::fs::write(&staged, post("Big", "\"rust\"", &body)).unwrap();
    std::fs::rename(&staged, site.path("blog/en/2024-05-02_big.md")).unwrap();
    daemon.wait_for(|| daemon.logged("No space left"), "the write to fail");
    disk.resize("64m");
    // The write that failed is the API lane's (the folder is repaired) or, when the twin fit,
    // the documents lane's (retried on its own).
    daemon.wait_for(
        || daemon.logged("output folder repaired: wrote") || daemon.logged("documents lane: wrote"),
        "the failed write to be retried",
    );
    drop(daemon);
    let fresh = fresh_build(&site);
    assert_same_files(&site.root().join("disk/out"), &fresh);
}

#[test]
fn a_first_build_that_cannot_be_written_keeps_the_daemon_and_is_retried() {
    let site = Site::new();
    // A file where the build needs the folder `api`: the first publish fails.
    std::fs::create_dir_all(site.out()).unwrap();
    std::fs::write(site.out().join("api"), "in the way").unwrap();
    let daemon = Daemon::start(&site, "out");
    daemon.wait_for(
        || daemon.logged("retrying every second"),
        "the failure to be reported (the daemon keeps running)",
    );
    std::fs::remove_file(site.out().join("api")).unwrap();
    daemon.wait_for(
        || daemon.logged("output folder repaired: wrote"),
        "the first publish to be retried",
    );
    drop(daemon);
    let fresh = fresh_build(&site);
    assert_same_files(&site.out(), &fresh);
}

#[test]
fn an_output_folder_that_cannot_be_written_exits_3_not_1() {
    let site = Site::new();
    std::fs::write(site.out(), "a file where the output folder should be").unwrap();
    let run = site.build();
    run.assert_code(3);
    assert!(run.stderr.contains("out"), "{}", run.stderr);
    let help = site.run(&["--help"]);
    let words = help.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("1 when the content has errors")
            && words.contains("3 when the output folder cannot be written"),
        "--help documents the code: {}",
        help.stdout
    );
}

/// `content-api serve` on a free port; killed on drop.
struct Server(common::Served);

impl Server {
    fn start(site: &Site) -> Server {
        Server(common::Served::spawn(
            Command::new(common::BIN)
                .env_remove("CI")
                .args(["serve", "--addr", "127.0.0.1:0", "--content", "content"])
                .args(["--out", "out", "--today", TODAY])
                .current_dir(site.root())
                .stderr(Stdio::null()),
        ))
    }

    /// Sends `request` as raw bytes and returns the status and the body of the answer.
    fn raw(&self, request: &[u8]) -> (u16, Vec<u8>) {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(self.0.addr()).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        // The server may answer (and close) before it has read everything.
        let _ = stream.write_all(request);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let split = answer
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(&answer)));
        let head = String::from_utf8_lossy(&answer[..split]).to_string();
        let status = head[9..12].parse().unwrap();
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{head}"
        );
        (status, answer[split + 4..].to_vec())
    }
}

#[test]
fn requests_hyper_cannot_read_get_the_contracts_json_errors() {
    let site = Site::new();
    let server = Server::start(&site);
    let long_target = format!(
        "GET /api/{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let big_header = format!(
        "GET /api/posts.json HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "b".repeat(500_000)
    );
    let cases: [(&[u8], u16); 3] = [
        (b"NOT HTTP AT ALL\r\n\r\n", 400),
        (long_target.as_bytes(), 414),
        (big_header.as_bytes(), 431),
    ];
    for (request, status) in cases {
        let (got, body) = server.raw(request);
        assert_eq!(got, status);
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["status"], status);
        assert!(json["error"]["code"].is_string() && json["detail"].is_string());
    }
    // The server goes on answering (a host it serves: another name is refused, 403).
    let (status, _) =
        server.raw(b"GET /api/nope.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 404);
}

#[test]
fn a_fifo_or_a_device_in_place_of_a_state_file_is_reported_never_a_hang() {
    for state in [".content-api/manifest.json", ".content-api/intent.json"] {
        let site = Site::new();
        site.build().assert_success();
        let path = site.out().join(state);
        let _ = std::fs::remove_file(&path);
        mkfifo(&path);
        // Within the run's time limit (a hang fails the test).
        let run = site.build();
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(run.stderr.contains("FIFO"), "{state}: {}", run.stderr);
        assert!(path.exists(), "{state}: kept where it is");
    }
    let site = Site::new();
    site.build().assert_success();
    let manifest = site.out().join(".content-api/manifest.json");
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    let run = site.build();
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    // What the warning says is what happens: the publish replaces the manifest.
    assert!(
        run.stderr
            .contains("replaces the manifest when it publishes"),
        "{}",
        run.stderr
    );
    assert!(manifest.symlink_metadata().unwrap().is_file(), "replaced");
    // A history given as a FIFO: an error naming it, at once.
    let fifo = site.root().join("history.fifo");
    mkfifo(&fifo);
    let run = site.build_with(&["--history", "history.fifo"]);
    assert_eq!(run.code(), 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("history.fifo") && run.stderr.contains("FIFO"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unreadable_legacy_history_is_kept_where_it_is_and_the_message_says_so() {
    let site = Site::new();
    site.build().assert_success();
    let legacy = site.out().join(".content-api/published.json");
    std::fs::write(&legacy, "{ not json").unwrap();
    let run = site.build();
    run.assert_success();
    assert!(run.stderr.contains("stays where it is"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&legacy).unwrap(),
        "{ not json",
        "never deleted"
    );
}

#[test]
fn a_state_folder_that_is_a_link_is_never_written_through() {
    let site = Site::new();
    std::fs::write(site.root().join("watch.toml"), "").unwrap();
    let elsewhere = site.root().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, site.root().join(".content-api")).unwrap();
    let run = site.run(&["--once", "--today", TODAY]);
    run.assert_success();
    assert!(
        run.stderr.contains(".content-api is a symbolic link"),
        "named, with what to do:\n{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written through the link"
    );
}
