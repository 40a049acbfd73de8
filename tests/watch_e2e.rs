//! The real binary in watch mode, on a temporary site, under the file operations that editors
//! and tools really perform. After each one the test waits until the output folder equals a
//! fresh build of the content on disk (and fails if it never does).

use crate::common;

use common::{
    SAMPLE_TODAY, copy_sample_content, fresh_build, live_snapshot, load_config, read_tree,
    sample_today,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(20);

struct Daemon {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    site: tempfile::TempDir,
    /// Where the content really is (the content folder may be a symlink to it).
    content: PathBuf,
}

impl Daemon {
    /// Starts `content-api` (watch mode) on a copy of the sample site. With `symlinked`, the
    /// site's `content` is a symbolic link to a folder elsewhere.
    fn start(symlinked: bool, extra: &[&str]) -> Daemon {
        Daemon::start_with(symlinked, extra, |_| {})
    }

    /// [`Daemon::start`], with `prepare` changing the copied content (the site's `watch.toml`
    /// is written already) before the daemon starts.
    fn start_with(symlinked: bool, extra: &[&str], prepare: impl FnOnce(&Path)) -> Daemon {
        let site = tempfile::tempdir().unwrap();
        let content = if symlinked {
            site.path().join("real-content")
        } else {
            site.path().join("content")
        };
        copy_sample_content(&content);
        std::fs::write(
            site.path().join("watch.toml"),
            "base_url = \"https://watch.example\"\n[watch]\ndebounce_ms = 20\n",
        )
        .unwrap();
        prepare(&content);
        if symlinked {
            std::os::unix::fs::symlink(&content, site.path().join("content")).unwrap();
        }
        let (child, log) = common::spawn_logged(
            Command::new(env!("CARGO_BIN_EXE_content-api"))
                .env_remove("CI")
                .args(["--today", SAMPLE_TODAY])
                .args(extra)
                .current_dir(site.path())
                .env("RUST_LOG", "info,salsa=warn"),
        );
        let daemon = Daemon {
            child,
            log,
            site,
            content,
        };
        daemon.wait_for_log(common::DAEMON_READY);
        daemon
    }

    fn out(&self) -> PathBuf {
        self.site.path().join("out")
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.content.join(relative)
    }

    fn wait_for_log(&self, needle: &str) {
        self.wait_until(&format!("a log line with {needle:?}"), || {
            self.log.lock().unwrap().iter().any(|l| l.contains(needle))
        });
    }

    /// Polls `done` until it holds; fails the test after [`PATIENCE`].
    fn wait_until(&self, what: &str, done: impl Fn() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < PATIENCE,
                "waited in vain for {what}: {:#?}",
                self.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn rebuilds(&self) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(" changed") || l.contains("rescan"))
            .count()
    }

    /// A fresh one-shot build of the content on disk, without the manifest.
    fn fresh(&self) -> BTreeMap<String, Vec<u8>> {
        let mut config = load_config(&self.site.path().join("watch.toml"));
        config.content_dir = camino::Utf8PathBuf::from_path_buf(self.content.clone()).unwrap();
        fresh_build(Arc::new(config), sample_today(), &self.out())
    }

    /// The output folder as it is now, without the manifest. The daemon may be writing: files
    /// that vanish during the walk and in-flight temporary files are skipped (the caller polls).
    fn output(&self) -> BTreeMap<String, Vec<u8>> {
        live_snapshot(&self.out())
    }

    /// Waits until the output equals a fresh build of the content on disk.
    fn settles(&self, what: &str) {
        let fresh = self.fresh();
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if self.output() == fresh {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let output = self.output();
        let differing: Vec<&String> = fresh
            .keys()
            .chain(output.keys())
            .filter(|p| fresh.get(*p) != output.get(*p))
            .collect();
        panic!(
            "after {what}, the output never matched a fresh build: {differing:?}\nlog: {:#?}",
            self.log.lock().unwrap()
        );
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn edit_title(path: &Path, title: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| {
            if l.starts_with("title:") {
                format!("title: {title:?}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

const POST: &str = "blog/en/2024-06-02_running-up-las-palmas.md";

#[test]
fn editor_save_patterns_are_followed() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let post = daemon.path(POST);

    // Atomic save (VS Code, most editors): write a temporary file, rename it over the post.
    let temp = daemon.path("blog/en/.2024-06-02_running-up-las-palmas.md.tmp");
    std::fs::write(&temp, edit_title(&post, "Atomic save")).unwrap();
    std::fs::rename(&temp, &post).unwrap();
    daemon.settles("an atomic save");

    // vim with `backupcopy=no`: probe file 4913, rename the original to a backup, write anew,
    // delete the backup. The post is briefly missing.
    let probe = daemon.path("blog/en/4913");
    std::fs::write(&probe, "").unwrap();
    std::fs::remove_file(&probe).unwrap();
    let backup = daemon.path("blog/en/2024-06-02_running-up-las-palmas.md~");
    let new_text = edit_title(&post, "Vim save");
    std::fs::rename(&post, &backup).unwrap();
    std::fs::write(&post, new_text).unwrap();
    std::fs::remove_file(&backup).unwrap();
    daemon.settles("a vim save");

    // JetBrains "safe write": write x___jb_tmp___, rename the original to x___jb_old___,
    // rename the temporary over, delete the old one.
    let jb_tmp = daemon.path("blog/en/2024-06-02_running-up-las-palmas.md___jb_tmp___");
    let jb_old = daemon.path("blog/en/2024-06-02_running-up-las-palmas.md___jb_old___");
    std::fs::write(&jb_tmp, edit_title(&post, "JetBrains save")).unwrap();
    std::fs::rename(&post, &jb_old).unwrap();
    std::fs::rename(&jb_tmp, &post).unwrap();
    std::fs::remove_file(&jb_old).unwrap();
    daemon.settles("a JetBrains save");

    // A plain in-place write (truncate and write, like `echo > file`).
    std::fs::write(&post, edit_title(&post, "In place")).unwrap();
    daemon.settles("an in-place write");
}

#[test]
fn editor_scratch_files_never_trigger_a_rebuild() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let before = daemon.rebuilds();
    for name in [
        ".x.md.swp",
        ".x.md.swx",
        "4913",
        ".#x.md",
        ".goutputstream-XYZ12",
        "x.md___jb_tmp___",
        "x.md~",
    ] {
        std::fs::write(daemon.path(&format!("blog/en/{name}")), "scratch").unwrap();
    }
    // Then a real edit. Events arrive in order, so once its rebuild is logged the daemon has
    // seen every scratch event: any rebuild they caused is logged by then, or they were merged
    // into this one and are named in its line.
    let post = daemon.path(POST);
    std::fs::write(&post, edit_title(&post, "After the scratch files")).unwrap();
    let published = || {
        std::fs::read_to_string(daemon.out().join("api/posts-en.json"))
            .is_ok_and(|json| json.contains("After the scratch files"))
    };
    daemon.wait_until("the edit after the scratch files", || {
        published() && daemon.rebuilds() > before
    });
    let marker = format!("{POST} changed:");
    let log = daemon.log.lock().unwrap().clone();
    let rebuilds: Vec<&String> = log
        .iter()
        .filter(|l| l.contains(" changed") || l.contains("rescan"))
        .skip(before)
        .collect();
    assert_eq!(rebuilds.len(), 1, "one rebuild, for the post: {log:#?}");
    assert!(
        rebuilds[0]
            .trim_start()
            .strip_prefix("INFO ")
            .is_some_and(|what| what.starts_with(&marker)),
        "the rebuild names the post alone: {log:#?}"
    );
    daemon.settles("scratch files and an edit");
}

/// No ghost post (a renamed post still published under its old slug): a rename, then an
/// editor's atomic save of the new name, inside one debounce window. The old slug must go (the
/// debouncer used to drop the rename).
#[test]
fn a_rename_then_an_atomic_save_in_one_window_leaves_no_ghost() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    for (from, to) in [
        (
            "blog/es/2023-04-09_hello-from-medellin.md",
            "blog/es/2023-04-09_hola-medellin.md",
        ),
        // The same across languages.
        (POST, "blog/es/2024-06-02_subiendo-las-palmas.md"),
    ] {
        std::fs::rename(daemon.path(from), daemon.path(to)).unwrap();
        let temp = daemon.path(&format!("{to}.tmp"));
        std::fs::write(&temp, edit_title(&daemon.path(to), "Saved after the move")).unwrap();
        std::fs::rename(&temp, daemon.path(to)).unwrap();
        daemon.settles(&format!("mv {from} {to} and an atomic save of {to}"));
    }
}

#[test]
fn files_and_folders_move_appear_and_disappear() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    // Renaming a post changes its slug.
    std::fs::rename(
        daemon.path(POST),
        daemon.path("blog/en/2024-06-02_up-las-palmas.md"),
    )
    .unwrap();
    daemon.settles("a rename");
    // Moving a post from en/ to es/ (the Spanish twin moves away first).
    std::fs::rename(
        daemon.path("blog/es/2023-04-09_hello-from-medellin.md"),
        daemon.path("blog/es/2023-04-09_hola-desde-medellin.md"),
    )
    .unwrap();
    std::fs::rename(
        daemon.path("blog/en/2023-04-09_hello-from-medellin.md"),
        daemon.path("blog/es/2023-04-09_hello-from-medellin.md"),
    )
    .unwrap();
    daemon.settles("a move between languages");
    // Deleting a whole folder.
    let slides = daemon.path("slides/es");
    let saved = tempfile::tempdir().unwrap();
    std::fs::rename(&slides, saved.path().join("es")).unwrap();
    daemon.settles("deleting a folder");
    // Creating a folder with files in it (moved in at once, like an unzip or a git checkout).
    std::fs::rename(saved.path().join("es"), &slides).unwrap();
    daemon.settles("creating a folder with files");
    // A new folder created first, then filled.
    let extra = daemon.path("slides/es-draft");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::write(
        extra.join("notes.md"),
        "not content: unsupported language folder\n",
    )
    .unwrap();
    daemon.settles("a folder that is not content");
}

#[test]
fn a_checkout_of_hundreds_of_files_is_one_consistent_rebuild() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    // Like `git checkout` of another branch: hundreds of files written in a burst.
    for i in 0..300 {
        let lang = if i % 2 == 0 { "en" } else { "es" };
        let text = format!(
            "---\ntitle: \"Checkout post {i}\"\ndescription: \"Generated\"\npubDate: 2025-{:02}-{:02}\ntags: [\"tech\", \"rust\"]\n---\n\nBody {i}.\n",
            1 + i % 12,
            1 + i % 28
        );
        std::fs::write(
            daemon.path(&format!(
                "blog/{lang}/2025-{:02}-{:02}_checkout-{i}.md",
                1 + i % 12,
                1 + i % 28
            )),
            text,
        )
        .unwrap();
    }
    daemon.settles("writing 300 files at once");
    for i in (0..300).step_by(3) {
        let lang = if i % 2 == 0 { "en" } else { "es" };
        std::fs::remove_file(daemon.path(&format!(
            "blog/{lang}/2025-{:02}-{:02}_checkout-{i}.md",
            1 + i % 12,
            1 + i % 28
        )))
        .unwrap();
    }
    daemon.settles("deleting 100 files at once");
}

#[test]
fn a_symlinked_content_folder_is_watched() {
    let daemon = Daemon::start(true, &[]);
    daemon.settles("the first build");
    std::fs::write(
        daemon.path(POST),
        edit_title(&daemon.path(POST), "Through a symlink"),
    )
    .unwrap();
    daemon.settles("an edit in a symlinked content folder");
}

/// Links inside the content folder are watched as `--once` follows them, whichever path an
/// edit goes through: a linked language folder (`blog/es -> ../_shared/es`), a post that is a
/// link to a file outside the content paths, and a post hard-linked to another.
#[test]
fn links_inside_the_content_are_followed_at_every_path() {
    use std::os::unix::fs::symlink;
    const SPANISH: &str = "2024-06-02_running-up-las-palmas.md";
    const HARD_LINK: &str = "blog/en/2024-01-05_a-hard-link.md";
    const HARD_LINKED: &str = "blog/en/2023-04-09_hello-from-medellin.md";
    let daemon = Daemon::start_with(false, &[], |content| {
        std::fs::create_dir(content.join("_shared")).unwrap();
        std::fs::rename(content.join("blog/es"), content.join("_shared/es")).unwrap();
        symlink("../_shared/es", content.join("blog/es")).unwrap();
        std::fs::rename(content.join(POST), content.join("_shared/running.md")).unwrap();
        symlink("../../_shared/running.md", content.join(POST)).unwrap();
        std::fs::hard_link(content.join(HARD_LINKED), content.join(HARD_LINK)).unwrap();
    });
    assert!(
        daemon.path("blog/es").join(SPANISH).is_file(),
        "{SPANISH} exists"
    );
    daemon.settles("the first build");
    // Written in place (truncated, then written): every path keeps reading the same file.
    let edit = |path: &Path, title: &str| std::fs::write(path, edit_title(path, title)).unwrap();

    edit(
        &daemon.path("_shared/es").join(SPANISH),
        "At the folder's target",
    );
    daemon.settles("an edit at a linked folder's target");
    edit(
        &daemon.path("blog/es").join(SPANISH),
        "Through the linked folder",
    );
    daemon.settles("an edit through a linked folder");
    edit(
        &daemon.path("_shared/running.md"),
        "At the linked post's target",
    );
    daemon.settles("an edit at a linked post's target");
    edit(&daemon.path(HARD_LINK), "Through one of two hard links");
    daemon.settles("an edit of a hard-linked post");
    edit(&daemon.path(HARD_LINKED), "Through the other hard link");
    daemon.settles("an edit of the other hard link");

    // A linked folder moved away and back (inotify's one watch of its target went with it).
    std::fs::rename(daemon.path("blog/es"), daemon.path(".es-aside")).unwrap();
    daemon.settles("a linked folder moved away");
    std::fs::rename(daemon.path(".es-aside"), daemon.path("blog/es")).unwrap();
    daemon.settles("a linked folder moved back");
    edit(
        &daemon.path("_shared/es").join(SPANISH),
        "After the move back",
    );
    daemon.settles("an edit at the target of a linked folder moved back");

    // A link made while watching is followed too.
    std::fs::copy(
        daemon.path("blog/en/2024-02-10_what-incremental-really-means.md"),
        daemon.path("_shared/more.md"),
    )
    .unwrap();
    symlink(
        "../../_shared/more.md",
        daemon.path("blog/en/2024-03-01_more.md"),
    )
    .unwrap();
    daemon.settles("a new linked post");
    edit(&daemon.path("_shared/more.md"), "At a new link's target");
    daemon.settles("an edit at a new link's target");
}

/// A post that is a link to nothing yet (a restore writes links before their targets) is an
/// error of the content; the target appearing later is seen through the link, and the error
/// goes with it.
#[test]
fn a_link_whose_target_appears_later_is_followed() {
    const LATER: &str = "blog/en/2024-07-01_later.md";
    let daemon = Daemon::start_with(false, &[], |content| {
        std::os::unix::fs::symlink("../../_shared/later.md", content.join(LATER)).unwrap();
    });
    daemon.wait_for_log("nothing is published until it builds");
    std::fs::create_dir(daemon.path("_shared")).unwrap();
    std::fs::copy(daemon.path(POST), daemon.path("_shared/later.md")).unwrap();
    daemon.settles("the target of a link appearing");
    assert!(daemon.output().contains_key("blog/later.md"));
}

/// A link made while watching that leads out of the content folder is never read,
/// whether its event names the link or only its folder's listing changed: a linked post and a
/// linked language folder, both to files outside, publish nothing of theirs.
#[test]
fn a_link_out_of_the_content_folder_made_while_watching_publishes_nothing() {
    use std::os::unix::fs::symlink;
    const SECRET: &str = "Outside-the-content secret";
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let elsewhere = daemon.site.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("es")).unwrap();
    let secret_post = edit_title(&daemon.path(POST), SECRET);
    std::fs::write(elsewhere.join("secret.md"), &secret_post).unwrap();
    std::fs::write(elsewhere.join("es/2024-06-03_secreto.md"), &secret_post).unwrap();

    symlink(
        elsewhere.join("secret.md"),
        daemon.path("blog/en/2026-01-01_leak.md"),
    )
    .unwrap();
    // A second file in the same folder and the same batch: the folder is listed again.
    std::fs::copy(
        daemon.path(POST),
        daemon.path("blog/en/2024-06-04_a-copy.md"),
    )
    .unwrap();
    daemon.wait_for_log("leads outside the content folder");
    daemon.settles("a link to a file outside the content folder");

    std::fs::rename(daemon.path("blog/es"), daemon.path(".es-aside")).unwrap();
    symlink(elsewhere.join("es"), daemon.path("blog/es")).unwrap();
    daemon.settles("a language folder replaced by a link to a folder outside");

    let leaked: Vec<String> = daemon
        .output()
        .into_iter()
        .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains(SECRET))
        .map(|(path, _)| path)
        .collect();
    assert!(leaked.is_empty(), "published from outside: {leaked:?}");
}

/// The tool's own state folder removed while the daemon runs (`rm -rf
/// out/.content-api`) is made again, and publishing goes on, as after the output folder's
/// removal.
#[test]
fn the_state_folder_removed_while_watching_is_made_again() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    std::fs::remove_dir_all(daemon.out().join(".content-api")).unwrap();
    std::fs::write(
        daemon.path(POST),
        edit_title(&daemon.path(POST), "After the state folder went"),
    )
    .unwrap();
    daemon.settles("an edit after the state folder was removed");
    daemon.wait_until("the manifest written again", || {
        daemon.out().join(".content-api/manifest.json").is_file()
    });
    let errors: Vec<String> = daemon
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|line| line.contains("ERROR"))
        .cloned()
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// A document a site may write itself (`llms.txt`, `404.html`...) edited by hand in the output
/// is taken as the site's own and kept, as docs/watch-and-preview.md says; deleted, it is the
/// tool's again and written back.
#[test]
fn a_site_document_edited_in_the_output_is_kept_and_written_back_once_deleted() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let llms = daemon.out().join("llms.txt");
    std::fs::write(&llms, "# The site's own\n").unwrap();
    daemon.wait_for_log("llms.txt was replaced by the site's own: keeping it");
    assert_eq!(
        std::fs::read_to_string(&llms).unwrap(),
        "# The site's own\n"
    );
    std::fs::remove_file(&llms).unwrap();
    daemon.settles("the site's own llms.txt deleted");
}

/// A post that is a symbolic link to another post ([`LINK`] → [`TARGET`]).
const LINK: &str = "blog/en/2024-07-01_linked.md";
/// The post [`LINK`] leads to.
const TARGET: &str = "blog/es/2023-08-27_training-for-my-first-half-marathon.md";

/// A daemon on the sample site with [`LINK`] made, after its first build.
fn daemon_with_a_linked_post() -> Daemon {
    let daemon = Daemon::start_with(false, &[], |content| {
        std::os::unix::fs::symlink(
            "../es/2023-08-27_training-for-my-first-half-marathon.md",
            content.join(LINK),
        )
        .unwrap();
    });
    daemon.settles("the first build");
    daemon
}

/// A post that is a link to another post (both content paths). The OS reports an
/// edit at the target's path only; the link's path reads the same file, so it is republished
/// too: after an edit in place, an atomic save (a new file at the target's path), and the
/// target removed (the link then leads nowhere, an error) and written again.
#[test]
fn a_post_linked_to_another_post_is_republished_when_its_target_changes() {
    let daemon = daemon_with_a_linked_post();
    let target = daemon.path(TARGET);
    std::fs::write(&target, edit_title(&target, "Edited in place")).unwrap();
    daemon.settles("an edit in place of a linked post's target");
    let text = edit_title(&target, "Saved atomically");
    std::fs::write(daemon.path("blog/es/.training.md.tmp"), text).unwrap();
    std::fs::rename(daemon.path("blog/es/.training.md.tmp"), &target).unwrap();
    daemon.settles("an atomic save of a linked post's target");
    let text = std::fs::read_to_string(&target).unwrap();
    std::fs::remove_file(&target).unwrap();
    daemon.wait_for_log("2024-07-01_linked.md");
    std::fs::write(&target, text.replace("Saved atomically", "Written again")).unwrap();
    daemon.settles("a linked post's target removed and written again");
    assert!(daemon.output().contains_key("blog/linked.md"));
}

/// A post renamed while another post is a link to it: the link dangles, and the diagnostic
/// names the link (as a fresh build does), not the renamed post or its old path; the rename
/// itself is published, while the broken link keeps its last good version until it is mended.
#[test]
fn a_renamed_link_target_blames_the_link_not_the_renamed_post() {
    const RENAMED: &str = "blog/es/2023-08-27_renamed.md";
    let daemon = daemon_with_a_linked_post();
    let shown = daemon.log.lock().unwrap().len();
    std::fs::rename(daemon.path(TARGET), daemon.path(RENAMED)).unwrap();
    daemon.wait_for_log(&format!("{LINK} has errors"));
    // The line that ends the rebuild's report, after every held-back file is named.
    daemon.wait_until("the rebuild's report", || {
        daemon.log.lock().unwrap()[shown..]
            .iter()
            .any(|line| line.contains(" changed: "))
    });
    let log: Vec<String> = daemon.log.lock().unwrap()[shown..].to_vec();
    let blamed: Vec<&String> = log
        .iter()
        .filter(|line| {
            line.contains("has errors") || line.starts_with("error:") || line.starts_with("-->")
        })
        .collect();
    for line in &blamed {
        assert!(
            !line.contains(RENAMED) && !line.contains(TARGET),
            "the renamed post or its old path is blamed: {line}\n{log:#?}"
        );
    }
    assert!(
        blamed
            .iter()
            .any(|line| line.contains(&format!("--> {LINK}"))),
        "the link is named: {log:#?}"
    );
    // What a fresh check of the same content says: the link, and nothing else.
    let check = Command::new(env!("CARGO_BIN_EXE_content-api"))
        .env_remove("CI")
        .args(["check", "--today", SAMPLE_TODAY])
        .current_dir(daemon.site.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stderr);
    let fresh: Vec<&str> = said
        .lines()
        .filter(|line| line.starts_with("-->"))
        .collect();
    let watched: Vec<&str> = log
        .iter()
        .map(String::as_str)
        .filter(|line| line.starts_with("-->"))
        .collect();
    assert_eq!(watched, fresh, "{said}");
    // The rename is published: the post at its new slug, none at its old one.
    daemon.wait_until("the renamed post to be published", || {
        daemon.out().join("es/blog/renamed.md").is_file()
            && !daemon
                .out()
                .join("es/blog/training-for-my-first-half-marathon.md")
                .exists()
    });
    // Mended by pointing the link at the new name: the output equals a fresh build again.
    std::fs::remove_file(daemon.path(LINK)).unwrap();
    std::os::unix::fs::symlink("../es/2023-08-27_renamed.md", daemon.path(LINK)).unwrap();
    daemon.settles("the link pointed at the renamed post");
}

/// More link shapes, each compared with a fresh build. Hard links between two posts
/// parted by an atomic save; a linked folder's target replaced as a checkout does (removed,
/// then written again file by file); the link replaced by a real folder; a link to another post
/// made and removed while watching.
#[test]
fn links_replaced_parted_made_and_removed_while_watching_are_followed() {
    use std::os::unix::fs::symlink;
    const HARD_LINK: &str = "blog/en/2024-01-05_a-hard-link.md";
    const HARD_LINKED: &str = "blog/en/2023-04-09_hello-from-medellin.md";
    const SPANISH: &str = "2024-06-02_running-up-las-palmas.md";
    let daemon = Daemon::start_with(false, &[], |content| {
        std::fs::create_dir(content.join("_shared")).unwrap();
        std::fs::rename(content.join("blog/es"), content.join("_shared/es")).unwrap();
        symlink("../_shared/es", content.join("blog/es")).unwrap();
        std::fs::hard_link(content.join(HARD_LINKED), content.join(HARD_LINK)).unwrap();
    });
    daemon.settles("the first build");
    let atomic_save = |path: &Path, title: &str| {
        let tmp = path.with_extension("md.tmp");
        std::fs::write(&tmp, edit_title(path, title)).unwrap();
        std::fs::rename(&tmp, path).unwrap();
    };
    atomic_save(&daemon.path(HARD_LINK), "No longer a hard link");
    daemon.settles("an atomic save parting two hard links");
    let other = daemon.path(HARD_LINKED);
    std::fs::write(&other, edit_title(&other, "The other one")).unwrap();
    daemon.settles("an edit of the other, parted, post");

    let shared = daemon.path("_shared/es");
    let aside = daemon.site.path().join("es-aside");
    std::fs::rename(&shared, &aside).unwrap();
    std::fs::create_dir(&shared).unwrap();
    for entry in std::fs::read_dir(&aside).unwrap().flatten() {
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), shared.join(entry.file_name())).unwrap();
        }
    }
    daemon.settles("a linked folder's target replaced");
    let spanish = shared.join(SPANISH);
    std::fs::write(&spanish, edit_title(&spanish, "In the new target")).unwrap();
    daemon.settles("an edit in a linked folder's replaced target");

    std::fs::remove_file(daemon.path("blog/es")).unwrap();
    std::fs::rename(&aside, daemon.path("blog/es")).unwrap();
    daemon.settles("a linked folder replaced by a real folder");
    let edited = daemon.path("blog/es").join(SPANISH);
    std::fs::write(&edited, edit_title(&edited, "In the real folder")).unwrap();
    std::fs::write(&spanish, edit_title(&spanish, "In the old target")).unwrap();
    daemon.settles("edits in the real folder and the old target");

    symlink(format!("../es/{SPANISH}"), daemon.path(LINK)).unwrap();
    daemon.settles("a link to another post made");
    std::fs::write(&edited, edit_title(&edited, "Through a new link")).unwrap();
    daemon.settles("an edit at a new link's target");
    std::fs::remove_file(daemon.path(LINK)).unwrap();
    daemon.settles("a link to another post removed");
    std::fs::write(&edited, edit_title(&edited, "No link any more")).unwrap();
    daemon.settles("an edit at a former link's target");
}

#[test]
fn polling_finds_changes_too() {
    let daemon = Daemon::start(false, &["--poll", "100ms"]);
    daemon.settles("the first build");
    // Modification times are compared at one-second resolution: the first edit must fall in a
    // later second than the copy that created the file.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(
        daemon.path(POST),
        edit_title(&daemon.path(POST), "Found by polling"),
    )
    .unwrap();
    daemon.settles("an edit seen by polling");
    // A second save within the same second is caught by the re-read a second later.
    std::fs::write(
        daemon.path(POST),
        edit_title(&daemon.path(POST), "Saved twice"),
    )
    .unwrap();
    daemon.settles("a second save within the same second");
    std::fs::remove_file(daemon.path("blog/es/2023-04-09_hello-from-medellin.md")).unwrap();
    daemon.settles("a deletion seen by polling");
}

#[test]
fn a_broken_file_keeps_its_last_good_version_and_the_daemon_keeps_running() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let post = daemon.path(POST);
    let good = std::fs::read_to_string(&post).unwrap();
    let before = daemon.output();
    std::fs::write(
        &post,
        good.replacen("---\n", "---\nseriesOrder: \"two\"\n", 1),
    )
    .unwrap();
    daemon.wait_for_log("has errors");
    assert!(
        before == daemon.output(),
        "a broken file changed the output"
    );
    // The rest of the site keeps building.
    let other = daemon.path("blog/es/2023-04-09_hello-from-medellin.md");
    std::fs::write(&other, edit_title(&other, "Sigue funcionando")).unwrap();
    daemon.wait_until("the Spanish edit to be published", || {
        std::fs::read_to_string(daemon.out().join("api/posts-es.json"))
            .is_ok_and(|json| json.contains("Sigue funcionando"))
    });
    let errors = daemon
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("`seriesOrder` must be an integer"))
        .count();
    assert_eq!(errors, 1, "the error is printed once");
    std::fs::write(&post, good).unwrap();
    daemon.settles("fixing the file");
}

#[test]
fn config_changes_and_a_deleted_output_folder_are_followed() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    std::fs::write(
        daemon.site.path().join("watch.toml"),
        "base_url = \"https://moved.example\"\n[watch]\ndebounce_ms = 20\n",
    )
    .unwrap();
    daemon.settles("a new base_url");
    assert!(
        String::from_utf8_lossy(&std::fs::read(daemon.out().join("api/index.json")).unwrap())
            .contains("https://moved.example/api/posts.json")
    );
    std::fs::remove_dir_all(daemon.out()).unwrap();
    daemon.settles("deleting the output folder");
    // A file of the output edited by hand is written again, as a deleted one is.
    std::fs::write(daemon.out().join("api/posts.json"), "[]").unwrap();
    daemon.settles("editing an output file by hand");
}

/// A sync tool or `rm -rf content && git restore` takes the content folder away for
/// a while. The daemon says so, keeps the last good output (never an empty site), and follows
/// the folder when it is back.
#[test]
fn a_vanished_content_folder_keeps_the_output_and_its_return_is_followed() {
    let daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    let before = daemon.output();
    std::fs::remove_dir_all(&daemon.content).unwrap();
    daemon.wait_for_log("is gone");
    // Two ticks of the daemon's clock, to see that nothing is published meanwhile.
    std::thread::sleep(Duration::from_millis(2200));
    assert!(
        daemon.output() == before,
        "the output changed while the content folder was gone"
    );
    copy_sample_content(&daemon.content);
    daemon.wait_for_log("is back");
    daemon.settles("the content folder coming back");
    // The new folder is watched: an edit in it is published.
    let post = daemon.path(POST);
    std::fs::write(&post, edit_title(&post, "After the restore")).unwrap();
    daemon.settles("an edit in the restored folder");
    assert!(
        String::from_utf8_lossy(&std::fs::read(daemon.out().join("api/posts-en.json")).unwrap())
            .contains("After the restore")
    );
}

/// The deploy record a recorded `build` wrote stays in the folder through a watch session, byte
/// for byte: the session records nothing, and removes nothing a build deploys.
#[test]
fn a_watch_session_keeps_the_deploy_record_of_the_build_before_it() {
    const RECORD: &str = ".well-known/content-api/deploy.json";
    let record = Arc::new(Mutex::new(Vec::new()));
    let kept = record.clone();
    let daemon = Daemon::start_with(false, &[], move |content| {
        let site = content.parent().unwrap();
        // Recorded: the site has a `watch.toml`, so the build writes its history beside it.
        let build = Command::new(env!("CARGO_BIN_EXE_content-api"))
            .env_remove("CI")
            .args(["build", "--today", SAMPLE_TODAY])
            .current_dir(site)
            .output()
            .unwrap();
        assert!(build.status.success(), "{build:?}");
        *kept.lock().unwrap() = std::fs::read(site.join("out").join(RECORD)).unwrap();
    });
    let record = record.lock().unwrap().clone();
    assert!(!record.is_empty());
    let post = daemon.path(POST);
    std::fs::write(&post, edit_title(&post, "Edited while watching")).unwrap();
    daemon.wait_until("the edit to be published", || {
        std::fs::read(daemon.out().join("api/posts-en.json"))
            .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains("Edited while watching"))
    });
    // Past the documents lane too (it follows a pause in the edits).
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        std::fs::read(daemon.out().join(RECORD)).ok().as_deref(),
        Some(&record[..]),
        "the deploy record changed or went: {:#?}",
        daemon.log.lock().unwrap()
    );
    let manifest =
        std::fs::read_to_string(daemon.out().join(".content-api/manifest.json")).unwrap();
    assert!(
        manifest.contains(RECORD),
        "the record stays owned: {manifest}"
    );
}

#[test]
fn ctrl_c_stops_cleanly() {
    let mut daemon = Daemon::start(false, &[]);
    daemon.settles("the first build");
    // SIGINT, as Ctrl-C sends.
    let status = Command::new("kill")
        .args(["-INT", &daemon.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    let exit = loop {
        if let Some(exit) = daemon.child.try_wait().unwrap() {
            break exit;
        }
        assert!(start.elapsed() < PATIENCE, "the daemon did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
    let leftovers: Vec<String> = read_tree(&daemon.out())
        .into_keys()
        .filter(|p| p.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
