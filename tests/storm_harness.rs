//! Edit storms through the real daemon: a generated site, `content-api` watching it, random file
//! operations on the real file system (at burst speed, at a human pace, or each one landing
//! while the daemon writes `llms-full.txt` in its documents lane), then a fresh `--once` build
//! of the same content and history, compared byte for byte with what the daemon published
//! once it is idle (its documents lane has followed the last edit).
//!
//! The site is laid out as the seed's (`blog/{lang}/{date}_{slug}.md`) or as Hugo page bundles
//! with language suffixes ([`Layout`]); the edits are the same, on the layout's paths, plus
//! the bundle layout's own (whole bundles renamed and deleted, resources, translations).
//!
//! Shared by `tests/storm.rs` (a fixed set of seeds in CI) and `benches/storm_soak.rs` (many
//! seeds). Every seed is reproducible: `STORM_SEED=<seed> cargo test --test integration
//! storm::`. The storms need `git` for their `git checkout` edits (the tests ask
//! `common::need::GIT` first).
#![allow(dead_code)]

// Its own copies of two of `tests/common`'s files: `benches/storm_soak.rs` has no `common`.
#[allow(clippy::duplicate_mod)]
#[path = "common/daemon_log.rs"]
mod daemon_log;
#[path = "../benches/support/lanes.rs"]
mod lanes;
#[allow(clippy::duplicate_mod)]
#[path = "common/live_output.rs"]
mod live_output;

use live_output::live_snapshot;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_content-api");
/// Every post is dated before this, so none is scheduled.
const TODAY: &str = "2024-06-01";
const TAGS: [&str; 4] = ["rust", "web", "notes", "travel"];
const SERIES: [&str; 2] = ["intro", "deep-dive"];
const LANGS: [&str; 2] = ["en", "es"];
/// How long the daemon may take to reach the fresh build after the last edit.
const PATIENCE: Duration = Duration::from_secs(20);
/// Part of the line of every API-lane publish (the documents lane follows it).
const API_LANE: &str = "(api lane; the documents lane follows)";
/// The documents lane's line when it stopped to let an edit through (logged at debug).
const GAVE_WAY: &str = "the documents lane gave way to a change";
/// Part of the line of every documents-lane publish: the output then equals a fresh build.
const DOCUMENTS_LANE: &str = "documents lane: ";
/// Idle (the last lane line is the documents lane's) and different from a fresh build for this
/// long, with no lane starting meanwhile: the daemon settled on a wrong output.
const IDLE_AND_DIFFERENT: Duration = Duration::from_secs(3);
/// Posts per language of the site of [`Pace::DuringDocuments`], and the size of each body:
/// `llms-full.txt` is then about 10 MB, a write that takes measurable time.
const LARGE_SITE_POSTS: usize = 300;
const LARGE_BODY_BYTES: usize = 16 << 10;

/// How fast edits follow each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// No pause at all: most edits of a run fall into one debounce window.
    Burst,
    /// A pause longer than the debounce window after each edit: one rebuild per edit.
    Human,
    /// On a site whose `llms-full.txt` takes a while to write, each edit waits until the
    /// daemon's temporary file for it appears (its documents lane is writing), then lands.
    DuringDocuments,
}

/// What one storm did and how it ended.
pub struct Storm {
    pub seed: u64,
    pub pace: Pace,
    /// The operations, in order (for the failure message).
    pub log: Vec<String>,
    /// `None` when the daemon's output equals the fresh build; else what differs.
    pub difference: Option<String>,
    /// Edits that landed while the documents lane was writing `llms-full.txt`.
    pub during_documents: usize,
    /// Times the documents lane stopped to let an edit through (it then ran again later).
    pub gave_way: usize,
}

/// Runs one storm of `edits` operations and reports whether the daemon converged.
pub fn run(seed: u64, pace: Pace, edits: usize) -> Storm {
    let site = match pace {
        Pace::DuringDocuments => Site::generate_large(seed),
        Pace::Burst | Pace::Human => Site::generate(seed),
    };
    run_on(&site, seed, pace, edits)
}

/// [`run`] on a site of the caller's.
pub fn run_on(site: &Site, seed: u64, pace: Pace, edits: usize) -> Storm {
    let daemon = Daemon::start(site);
    let mut rng = Rng::new(seed);
    let mut log = Vec::new();
    let mut during_documents = 0;
    for _ in 0..edits {
        let during = pace == Pace::DuringDocuments && daemon.documents_writing();
        let edit = site.random_edit(&mut rng);
        if during {
            during_documents += 1;
            log.push(format!("{edit} (while llms-full.txt was being written)"));
        } else {
            log.push(edit);
        }
        if pace == Pace::Human {
            std::thread::sleep(Duration::from_millis(60 + rng.below(60) as u64));
        }
    }
    // A last edit whose effect is visible in the output: once the daemon has published it,
    // it has seen every event before it (events arrive in order).
    let marker = format!("storm {seed} done");
    let marker_post = site.marker_post();
    site.write(
        &marker_post,
        &format!("---\ntitle: \"{marker}\"\ndescription: \"The last edit\"\npubDate: 2024-05-31\n---\n\nEnd.\n"),
    );
    log.push(format!("create {marker_post} (marker)"));
    let difference = daemon.settle(site, &marker);
    let gave_way = daemon.count(GAVE_WAY);
    eprintln!(
        "storm seed {seed} ({pace:?}, {during_documents} of {edits} edits during a documents write, \
         the documents lane gave way {gave_way} times): {}",
        if difference.is_none() {
            "equal"
        } else {
            "DIFFERENT"
        }
    );
    Storm {
        seed,
        pace,
        log,
        difference,
        during_documents,
        gave_way,
    }
}

/// How many times each lane published while one post was saved again and again.
pub struct Saves {
    /// API-lane publishes from the first save until the daemon was idle again.
    pub api: usize,
    /// Documents-lane publishes in the same span.
    pub documents: usize,
    /// Documents-lane publishes before the last save (while edits kept coming).
    pub documents_while_saving: usize,
    /// `None` when the daemon's output then equals a fresh build; else what differs.
    pub difference: Option<String>,
}

/// Saves one post `saves` times, `gap` apart (each save a new title), waits until the daemon is
/// idle, and counts each lane's publishes.
pub fn save_repeatedly(seed: u64, saves: usize, gap: Duration) -> Saves {
    let site = Site::generate(seed);
    let daemon = Daemon::start(&site);
    let post = site.posts().remove(0);
    let (api_before, documents_before) = daemon.lane_counts();
    let mut documents_while_saving = 0;
    for i in 0..saves {
        if i == saves - 1 {
            documents_while_saving = daemon.lane_counts().1 - documents_before;
        }
        let text = site.read(&post);
        let title = text.lines().find(|l| l.starts_with("title:")).unwrap();
        let marker = if i == saves - 1 {
            format!("storm {seed} done")
        } else {
            format!("save {i}")
        };
        site.write(&post, &text.replace(title, &format!("title: \"{marker}\"")));
        std::thread::sleep(gap);
    }
    let difference = daemon.settle(&site, &format!("storm {seed} done"));
    let (api, documents) = daemon.lane_counts();
    eprintln!(
        "{saves} saves {gap:?} apart (seed {seed}): {} api lanes, {} documents lanes ({} while saving)",
        api - api_before,
        documents - documents_before,
        documents_while_saving
    );
    Saves {
        api: api - api_before,
        documents: documents - documents_before,
        documents_while_saving,
        difference,
    }
}

/// The seeds to run: `STORM_SEED` (one seed), or `STORM_RUNS` seeds from `STORM_FIRST`
/// (default 1), else `default`.
pub fn seeds(default: &[u64]) -> Vec<u64> {
    if let Some(seed) = env_number("STORM_SEED") {
        return vec![seed];
    }
    match env_number("STORM_RUNS") {
        Some(runs) => {
            let first = env_number("STORM_FIRST").unwrap_or(1);
            (first..first + runs).collect()
        }
        None => default.to_vec(),
    }
}

pub fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// splitmix64: small, fast, and the same sequence on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_5707)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

/// Where a [`Site`]'s posts are, and so what its edits do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The default layout: `blog/{lang}/{date}_{slug}.md`.
    Seed,
    /// Hugo page bundles with language suffixes (`[layout] posts =
    /// ["posts/{slug}/index.{lang}"]`): `posts/<slug>/index.md` is the English post,
    /// `posts/<slug>/index.es.md` its Spanish translation; other files of a bundle are its
    /// resources. Tags and series keep their default folders.
    Bundles,
}

/// A temporary site: `content/` (a git repository with branches `main` and `other`),
/// `watch.toml`, `out/`.
pub struct Site {
    dir: tempfile::TempDir,
    /// Where the posts are.
    layout: Layout,
    /// Whether content is reached through links (see [`Site::generate_linked`]).
    linked: bool,
    /// Makes every new slug unique, so that the final content is always valid.
    counter: std::cell::Cell<u32>,
}

impl Site {
    /// A small bilingual site: four tags, two series, and twenty posts per language.
    pub fn generate(seed: u64) -> Site {
        Site::generate_in(seed, Layout::Seed)
    }

    /// [`Site::generate`] laid out as Hugo page bundles with language suffixes
    /// ([`Layout::Bundles`]).
    pub fn generate_bundles(seed: u64) -> Site {
        Site::generate_in(seed, Layout::Bundles)
    }

    fn generate_in(seed: u64, layout: Layout) -> Site {
        let dir = tempfile::Builder::new()
            .prefix("content-api-storm")
            .tempdir()
            .unwrap();
        let (languages, own_layout) = match layout {
            Layout::Seed => ("", ""),
            Layout::Bundles => (
                "languages = [\"en\", \"es\"]\n",
                "[layout]\nposts = [\"posts/{slug}/index.{lang}\"]\n",
            ),
        };
        std::fs::write(
            dir.path().join("watch.toml"),
            format!(
                "base_url = \"https://storm.example\"\n{languages}\
                 [site]\nauthor = \"Storm Author\"\nlicence = \"CC BY 4.0\"\n\
                 licence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n\
                 [watch]\ndebounce_ms = 20\n{own_layout}"
            ),
        )
        .unwrap();
        let site = Site {
            dir,
            layout,
            linked: false,
            counter: std::cell::Cell::new(0),
        };
        let mut rng = Rng::new(seed.wrapping_mul(31));
        for tag in TAGS {
            site.write_tag(tag, &format!("Posts about {tag}"));
        }
        for series in SERIES {
            site.write(
                &format!("series/{series}.md"),
                &format!(
                    "---\nname: {series}\ntitle: \"{series}\"\ntitleEs: \"{series} (es)\"\ndescription: \"The {series} series\"\n---\n"
                ),
            );
        }
        for i in 0..20 {
            let name = site.post_name(&mut rng, &format!("p{i}"));
            for lang in LANGS {
                site.write(&site.post_file(&name, lang), &post_text(&mut rng, lang));
            }
        }
        site.init_git(&mut rng);
        site
    }

    /// [`Site::generate`] with links inside the content, as a site that shares files between
    /// folders has: the Spanish posts live in `_shared/es`, reached through the link `blog/es`;
    /// three English posts are links to files in `_shared/posts` (absolute, so that they still
    /// lead there once moved); two more posts are hard links of English posts.
    pub fn generate_linked(seed: u64) -> Site {
        use std::os::unix::fs::symlink;
        let site = Site::generate(seed);
        std::fs::create_dir_all(site.path("_shared/posts")).unwrap();
        site.rename("blog/es", "_shared/es");
        symlink("../_shared/es", site.path("blog/es")).unwrap();
        let english: Vec<String> = site
            .posts()
            .into_iter()
            .filter(|post| lang_of(post) == "en")
            .collect();
        for post in english.iter().take(3) {
            let name = post.rsplit('/').next().unwrap();
            let target = site.path(&format!("_shared/posts/{name}"));
            std::fs::rename(site.path(post), &target).unwrap();
            symlink(&target, site.path(post)).unwrap();
        }
        for post in english.iter().skip(3).take(2) {
            let hard_link = post.replace(".md", "-hard-link.md");
            std::fs::hard_link(site.path(post), site.path(&hard_link)).unwrap();
        }
        Site {
            linked: true,
            ..site
        }
    }

    /// The symbolic links in the content folder, each with whether its target exists.
    fn links(&self) -> Vec<(String, bool)> {
        walkdir::WalkDir::new(self.content())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|entry| entry.path_is_symlink())
            .map(|entry| {
                let shown = entry.path().strip_prefix(self.content()).unwrap();
                (shown.display().to_string(), entry.path().exists())
            })
            .collect()
    }

    /// Writes a post at the file a link leads to, not through the link: in `_shared/es` (the
    /// Spanish folder's target) or `_shared/posts` (the linked posts').
    fn edit_at_a_link_target(&self, rng: &mut Rng) -> String {
        let mut targets = Vec::new();
        for folder in ["_shared/es", "_shared/posts"] {
            for entry in std::fs::read_dir(self.path(folder)).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".md") && entry.file_type().is_ok_and(|t| t.is_file()) {
                    targets.push(format!("{folder}/{name}"));
                }
            }
        }
        targets.sort();
        let Some(target) = rng.pick(&targets).cloned() else {
            return "no link target left to edit".into();
        };
        let lang = if target.starts_with("_shared/es/") {
            "es"
        } else {
            "en"
        };
        self.write(&target, &post_text(rng, lang));
        format!("edit {target} (a link's target)")
    }

    /// [`Site::generate`] plus [`LARGE_SITE_POSTS`] posts per language with long bodies.
    pub fn generate_large(seed: u64) -> Site {
        let site = Site::generate(seed);
        let mut rng = Rng::new(seed.wrapping_mul(97));
        let paragraph = "A long paragraph that makes llms-full.txt large enough to take a while \
                         to write, so that edits can land while it is being written. ";
        let body = paragraph.repeat(LARGE_BODY_BYTES / paragraph.len());
        let mut large = Vec::new();
        for i in 0..LARGE_SITE_POSTS {
            let name = format!("{}_large-{i}.md", random_date(&mut rng));
            for lang in LANGS {
                let text = post_text(&mut rng, lang);
                large.push((format!("blog/{lang}/{name}"), format!("{text}\n{body}\n")));
            }
        }
        let write_all = || {
            for (path, text) in &large {
                site.write(path, text);
            }
        };
        write_all();
        // Both branches hold the long posts, so a checkout does not swap them all.
        let git = |args: &[&str]| site.git_ok(args);
        assert!(git(&["add", "-A"]) && git(&["commit", "-q", "-m", "large"]));
        assert!(git(&["checkout", "-q", "other"]));
        write_all();
        assert!(git(&["add", "-A"]) && git(&["commit", "-q", "-m", "large"]));
        assert!(git(&["checkout", "-q", "main"]));
        site
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative)).unwrap()
    }

    pub fn content(&self) -> PathBuf {
        self.root().join("content")
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.content().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn write_tag(&self, tag: &str, description: &str) {
        self.write(
            &format!("tags/{tag}.md"),
            &format!("---\nname: {tag}\ndescription: \"{description}\"\ntier: primary\n---\n"),
        );
    }

    /// Runs git in the content folder, quietly; true when it succeeded.
    fn git_ok(&self, args: &[&str]) -> bool {
        Command::new("git")
            .args(["-c", "user.name=storm", "-c", "user.email=storm@example"])
            .args(args)
            .current_dir(self.content())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Commits the content as `main`, then a branch `other` where a quarter of the posts are
    /// edited, a few deleted and a few added. Without git the storms would not be the same
    /// for a seed, so a missing git fails here (the tests ask for it first).
    fn init_git(&self, rng: &mut Rng) {
        let git = |args: &[&str]| self.git_ok(args);
        assert!(
            git(&["init", "-q", "-b", "main"]),
            "git init failed: the storms need git (Debian's git)"
        );
        assert!(git(&["add", "-A"]) && git(&["commit", "-q", "-m", "main"]));
        assert!(git(&["checkout", "-q", "-b", "other"]));
        for (i, path) in self.posts().into_iter().enumerate() {
            match i % 8 {
                0 | 1 => self.write(&path, &post_text(rng, lang_of(&path))),
                2 => std::fs::remove_file(self.path(&path)).unwrap(),
                _ => {}
            }
        }
        for i in 0..3 {
            let lang = LANGS[i % 2];
            let name = self.post_name(rng, &format!("other-{i}"));
            self.write(&self.post_file(&name, lang), &post_text(rng, lang));
        }
        assert!(git(&["add", "-A"]) && git(&["commit", "-q", "-m", "other"]));
        assert!(git(&["checkout", "-q", "main"]));
    }

    /// The name a post's file (or bundle folder) gets from `stem`: the seed layout's file name
    /// begins with a random date, a bundle's folder is the slug.
    fn post_name(&self, rng: &mut Rng, stem: &str) -> String {
        match self.layout {
            Layout::Seed => format!("{}_{stem}", random_date(rng)),
            Layout::Bundles => stem.to_string(),
        }
    }

    /// The path of the post in `lang` named `name` (see [`Site::post_name`]); translations
    /// share the name.
    fn post_file(&self, name: &str, lang: &str) -> String {
        match self.layout {
            Layout::Seed => format!("blog/{lang}/{name}.md"),
            Layout::Bundles if lang == LANGS[0] => format!("posts/{name}/index.md"),
            Layout::Bundles => format!("posts/{name}/index.{lang}.md"),
        }
    }

    /// The last edit of every storm, a post whose title is the marker.
    fn marker_post(&self) -> String {
        match self.layout {
            Layout::Seed => "blog/en/2024-05-31_storm-marker.md".into(),
            Layout::Bundles => self.post_file("storm-marker", "en"),
        }
    }

    /// The page bundles on disk now (folders below `posts/`, even those with no post left),
    /// by name; none in the seed layout.
    fn bundles(&self) -> Vec<String> {
        if self.layout != Layout::Bundles {
            return Vec::new();
        }
        let Ok(entries) = std::fs::read_dir(self.path("posts")) else {
            return Vec::new();
        };
        let mut bundles: Vec<String> = entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.') && !name.starts_with('_'))
            .collect();
        bundles.sort();
        bundles
    }

    /// The posts on disk now, as content-relative paths.
    fn posts(&self) -> Vec<String> {
        if self.layout == Layout::Bundles {
            return self
                .bundles()
                .iter()
                .flat_map(|bundle| LANGS.map(|lang| self.post_file(bundle, lang)))
                .filter(|post| self.path(post).is_file())
                .collect();
        }
        let mut posts = Vec::new();
        for lang in LANGS {
            let Ok(entries) = std::fs::read_dir(self.path(&format!("blog/{lang}"))) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".md") && entry.file_type().is_ok_and(|t| t.is_file()) {
                    posts.push(format!("blog/{lang}/{name}"));
                }
            }
        }
        posts.sort();
        posts
    }

    /// A slug no post ever had.
    fn new_stem(&self) -> String {
        let n = self.counter.get() + 1;
        self.counter.set(n);
        format!("n{n}")
    }

    /// A post path with a slug no post ever had (in the bundle layout, a new bundle).
    fn new_post_path(&self, rng: &mut Rng, lang: &str) -> String {
        let name = self.post_name(rng, &self.new_stem());
        self.post_file(&name, lang)
    }

    /// Where "the post moved to the other language" goes: a new post in the seed layout; in the
    /// bundle layout, the translation of a bundle that lacks one (sometimes the post's own
    /// bundle), else a new bundle.
    fn other_language_path(&self, rng: &mut Rng, post: &str, other: &str) -> String {
        if self.layout == Layout::Seed {
            return self.new_post_path(rng, other);
        }
        let own = bundle_of(post);
        let own_free = !self.path(&self.post_file(own, other)).exists();
        if own_free && rng.below(3) == 0 {
            return self.post_file(own, other);
        }
        let free: Vec<String> = self
            .bundles()
            .into_iter()
            .filter(|bundle| !self.path(&self.post_file(bundle, other)).exists())
            .collect();
        match rng.pick(&free) {
            Some(bundle) => self.post_file(bundle, other),
            None => self.new_post_path(rng, other),
        }
    }

    /// An edit of the bundle layout's own: a bundle folder renamed (both languages move; then
    /// sometimes a post in it saved) or deleted, a resource (`notes.md`, not a post) added to a
    /// bundle, a translation created in a bundle that lacks it.
    fn bundle_edit(&self, rng: &mut Rng) -> String {
        let bundles = self.bundles();
        let Some(bundle) = rng.pick(&bundles).cloned() else {
            let path = self.new_post_path(rng, "en");
            self.write(&path, &post_text(rng, "en"));
            return format!("create {path}");
        };
        let folder = format!("posts/{bundle}");
        match rng.below(5) {
            0 => {
                let to = format!("posts/{}", self.new_stem());
                self.rename(&folder, &to);
                format!("mv {folder} {to} (a bundle)")
            }
            1 => {
                std::fs::remove_dir_all(self.path(&folder)).unwrap();
                format!("rm -r {folder} (a bundle)")
            }
            2 => {
                let notes = format!("{folder}/notes.md");
                let lang = LANGS[rng.below(2)];
                self.write(&notes, &post_text(rng, lang));
                format!("write {notes} (a resource, not a post)")
            }
            4 => {
                // No ghost post (a moved post still published at its old place), on a bundle:
                // the folder renamed, then an atomic save of a post in it at its new place.
                let name = self.new_stem();
                let to = format!("posts/{name}");
                self.rename(&folder, &to);
                let lang = LANGS[rng.below(2)];
                let post = self.post_file(&name, lang);
                self.atomic_save(&post, &post_text(rng, lang));
                format!("mv {folder} {to} (a bundle) + atomic save {post}")
            }
            _ => {
                let missing: Vec<String> = bundles
                    .iter()
                    .flat_map(|bundle| LANGS.map(|lang| self.post_file(bundle, lang)))
                    .filter(|post| !self.path(post).exists())
                    .collect();
                let path = match rng.pick(&missing) {
                    Some(path) => path.clone(),
                    None => self.new_post_path(rng, "es"),
                };
                self.write(&path, &post_text(rng, lang_of(&path)));
                format!("create {path} (a translation)")
            }
        }
    }

    fn rename(&self, from: &str, to: &str) {
        let to = self.path(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::rename(self.path(from), to).unwrap();
    }

    /// An editor's atomic save: write a temporary file beside the target, rename it over.
    fn atomic_save(&self, path: &str, text: &str) {
        let tmp = format!("{path}.tmp");
        self.write(&tmp, text);
        self.rename(&tmp, path);
    }

    /// Performs one random operation and says what it did.
    pub fn random_edit(&self, rng: &mut Rng) -> String {
        if self.linked && rng.below(6) == 0 {
            return self.edit_at_a_link_target(rng);
        }
        if self.layout == Layout::Bundles && rng.below(5) == 0 {
            return self.bundle_edit(rng);
        }
        let posts = self.posts();
        let Some(post) = rng.pick(&posts).cloned() else {
            let path = self.new_post_path(rng, "en");
            self.write(&path, &post_text(rng, "en"));
            return format!("create {path}");
        };
        let lang = lang_of(&post);
        match rng.below(100) {
            0..=14 => {
                self.write(&post, &post_text(rng, lang));
                format!("edit {post}")
            }
            15..=29 => {
                self.atomic_save(&post, &post_text(rng, lang));
                format!("atomic save {post}")
            }
            30..=37 => {
                // vim without `backupcopy`: the original becomes the backup, a new file is
                // written, the backup is deleted.
                let backup = format!("{post}~");
                self.rename(&post, &backup);
                self.write(&post, &post_text(rng, lang));
                std::fs::remove_file(self.path(&backup)).unwrap();
                format!("vim save {post}")
            }
            38..=47 => {
                let to = self.new_post_path(rng, lang);
                self.rename(&post, &to);
                format!("mv {post} {to}")
            }
            48..=57 => {
                // No ghost post (still published under its old name): a rename, then an atomic
                // save of the new name.
                let to = self.new_post_path(rng, lang);
                self.rename(&post, &to);
                self.atomic_save(&to, &post_text(rng, lang));
                format!("mv {post} {to} + atomic save")
            }
            58..=64 => {
                let middle = self.new_post_path(rng, lang);
                let last = self.new_post_path(rng, lang);
                self.rename(&post, &middle);
                self.rename(&middle, &last);
                format!("mv {post} {middle} {last}")
            }
            65..=72 => {
                let other = if lang == "en" { "es" } else { "en" };
                let to = self.other_language_path(rng, &post, other);
                self.rename(&post, &to);
                format!("mv {post} {to} (other language)")
            }
            73..=82 => {
                std::fs::remove_file(self.path(&post)).unwrap();
                format!("rm {post}")
            }
            83..=94 => {
                let lang = LANGS[rng.below(2)];
                let path = self.new_post_path(rng, lang);
                self.write(&path, &post_text(rng, lang_of(&path)));
                format!("create {path}")
            }
            95 => {
                // `rm -rf content && git restore`: the folder itself goes and comes back.
                let aside = self.root().join("content-copy");
                copy_tree(&self.content(), &aside);
                std::fs::remove_dir_all(self.content()).unwrap();
                copy_tree(&aside, &self.content());
                std::fs::remove_dir_all(&aside).unwrap();
                "rm -rf content && restore".into()
            }
            96..=97 => {
                let branch = ["main", "other"][rng.below(2)];
                let ok = Command::new("git")
                    .args(["checkout", "-q", "-f", branch])
                    .current_dir(self.content())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "git checkout {branch} failed");
                format!("git checkout -f {branch}")
            }
            _ => {
                // A mass change without git: a whole folder moved away and back (a language
                // folder; a bundle or the whole `posts` folder).
                let (folder, aside) = match self.layout {
                    Layout::Seed => {
                        let lang = LANGS[rng.below(2)];
                        (format!("blog/{lang}"), format!(".aside-{lang}"))
                    }
                    Layout::Bundles => match rng.pick(&self.bundles()) {
                        Some(bundle) if rng.below(2) == 0 => {
                            (format!("posts/{bundle}"), format!("posts/.aside-{bundle}"))
                        }
                        _ => ("posts".to_string(), ".aside-posts".to_string()),
                    },
                };
                self.rename(&folder, &aside);
                self.rename(&aside, &folder);
                format!("mv {folder} away and back")
            }
        }
    }
}

/// Copies every file below `from` to `to`, one file at a time (as `git restore` writes).
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from)
        .into_iter()
        .filter_map(Result::ok)
    {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_symlink() {
            let link = std::fs::read_link(entry.path()).unwrap();
            std::os::unix::fs::symlink(link, &target).unwrap();
        } else if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A post's language, in either layout: `blog/es/…` or `….es.md`.
fn lang_of(path: &str) -> &'static str {
    if path.starts_with("blog/es/") || path.ends_with(".es.md") {
        "es"
    } else {
        "en"
    }
}

/// The bundle of a post of the bundle layout: `x` of `posts/x/index.md`.
fn bundle_of(post: &str) -> &str {
    post.split('/').nth(1).unwrap()
}

fn random_date(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}",
        2022 + rng.below(2),
        1 + rng.below(12),
        1 + rng.below(28)
    )
}

/// A valid post: a random title, one or two known tags, sometimes a series chapter.
fn post_text(rng: &mut Rng, lang: &str) -> String {
    let title = format!("{lang} title {}", rng.next() % 100_000);
    let mut tags = vec![TAGS[rng.below(TAGS.len())]];
    if rng.below(2) == 0 {
        let second = TAGS[rng.below(TAGS.len())];
        if !tags.contains(&second) {
            tags.push(second);
        }
    }
    let tags = tags
        .iter()
        .map(|t| format!("\"{t}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let series = match rng.below(4) {
        0 => format!(
            "series: {}\nseriesOrder: {}\n",
            SERIES[rng.below(SERIES.len())],
            1 + rng.below(5)
        ),
        _ => String::new(),
    };
    format!(
        "---\ntitle: \"{title}\"\ndescription: \"About {title}\"\npubDate: {}\ntags: [{tags}]\n{series}---\n\nBody {}.\n",
        random_date(rng),
        rng.next() % 1000
    )
}

/// `content-api` in watch mode on a [`Site`], its log collected.
struct Daemon {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    out: PathBuf,
}

impl Daemon {
    fn start(site: &Site) -> Daemon {
        let (child, log) = daemon_log::spawn_logged(
            Command::new(BIN)
                .env_remove("CI")
                .args(["--today", TODAY])
                .current_dir(site.root())
                // Debug for the documents lane: the line saying it gave way to an edit.
                .env(
                    "RUST_LOG",
                    "info,salsa=warn,content_api::cli::watch::documents=debug",
                ),
        );
        let daemon = Daemon {
            child,
            log,
            out: site.root().join("out"),
        };
        let start = Instant::now();
        while !daemon.logged(daemon_log::DAEMON_READY) {
            assert!(
                start.elapsed() < PATIENCE,
                "the daemon did not start: {:#?}",
                daemon.log.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        daemon
    }

    fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    /// How many lines logged so far contain `needle`.
    fn count(&self, needle: &str) -> usize {
        let log = self.log.lock().unwrap();
        log.iter().filter(|l| l.contains(needle)).count()
    }

    /// How many API-lane and documents-lane publishes the daemon logged so far.
    fn lane_counts(&self) -> (usize, usize) {
        let log = self.log.lock().unwrap();
        let count = |needle: &str| log.iter().filter(|l| l.contains(needle)).count();
        (count(API_LANE), count(DOCUMENTS_LANE))
    }

    /// The number of lane lines logged, and whether the last one is the documents lane's (the
    /// daemon followed every edit it has seen with its documents lane).
    fn lane_state(&self) -> (usize, bool) {
        let log = self.log.lock().unwrap();
        let mut lanes = log
            .iter()
            .filter(|l| l.contains(API_LANE) || l.contains(DOCUMENTS_LANE));
        let count = lanes.clone().count();
        (
            count,
            lanes
                .next_back()
                .is_some_and(|l| l.contains(DOCUMENTS_LANE)),
        )
    }

    /// Waits (up to 3 s) until the daemon's documents lane is writing `llms-full.txt`.
    fn documents_writing(&self) -> bool {
        lanes::documents_writing(&self.out, Duration::from_secs(3))
    }

    /// Waits until the daemon has published `marker`, then compares its output with a fresh
    /// build whenever it is idle (its last lane line is the documents lane's). Equal: done.
    /// Different while idle and no lane starts for [`IDLE_AND_DIFFERENT`]: the daemon settled
    /// on a wrong output, and what differs is returned (also when it never publishes the
    /// marker, or never settles within [`PATIENCE`]).
    fn settle(&self, site: &Site, marker: &str) -> Option<String> {
        let start = Instant::now();
        let tag = self.out.join("api/posts-en.json");
        let published =
            |path: &Path| std::fs::read_to_string(path).is_ok_and(|text| text.contains(marker));
        while !published(&tag) {
            if start.elapsed() > PATIENCE {
                return Some(format!(
                    "the daemon never published the last edit\nlinks: {:?}\nlog: {:#?}",
                    site.links(),
                    self.log.lock().unwrap()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The API lane has the marker: every event before it was seen. Compare at idle moments;
        // the fresh build reads the history again (an input of `_redirects`).
        let mut different_at: Option<(usize, Instant, String)> = None;
        loop {
            let (lanes, idle) = self.lane_state();
            let checked = different_at.as_ref().is_some_and(|(at, _, _)| *at == lanes);
            if idle && !checked {
                let fresh = fresh_build(site);
                let output = live_snapshot(&self.out);
                if output == fresh {
                    return None;
                }
                // A lane that started meanwhile explains a difference; else it is remembered.
                if self.lane_state().0 == lanes {
                    different_at = Some((lanes, Instant::now(), self.differences(&fresh, &output)));
                }
            }
            if let Some((at, since, difference)) = &different_at
                && *at == self.lane_state().0
                && since.elapsed() > IDLE_AND_DIFFERENT
            {
                return Some(format!(
                    "idle after its documents lane for {IDLE_AND_DIFFERENT:?}, yet {difference}"
                ));
            }
            if start.elapsed() > PATIENCE {
                return Some(match different_at {
                    Some((_, _, difference)) => difference,
                    None => format!(
                        "the daemon never became idle (no documents lane after the last edit)\nlog tail: {:#?}",
                        self.log_tail()
                    ),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What differs between a fresh build and the output, with the end of the log.
    fn differences(
        &self,
        fresh: &BTreeMap<String, Vec<u8>>,
        output: &BTreeMap<String, Vec<u8>>,
    ) -> String {
        let differing: Vec<&String> = fresh
            .keys()
            .chain(output.keys().filter(|p| !fresh.contains_key(*p)))
            .filter(|p| fresh.get(*p) != output.get(*p))
            .collect();
        format!(
            "the output differs from a fresh build in {} files: {:?}\nlog tail: {:#?}",
            differing.len(),
            differing.iter().take(12).collect::<Vec<_>>(),
            self.log_tail()
        )
    }

    fn log_tail(&self) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log[log.len().saturating_sub(15)..].to_vec()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `content-api --once` on the same content, into a new folder, with a copy of the publishing
/// history the daemon read at start (the one input that is not content: `_redirects` depends
/// on it; a watch session never records into it, and the copy keeps the fresh build's own
/// recording away from the daemon's file).
fn fresh_build(site: &Site) -> BTreeMap<String, Vec<u8>> {
    let fresh = site.root().join("fresh");
    let _ = std::fs::remove_dir_all(&fresh);
    let history = site.root().join("content-api.history");
    let fresh_history = site.root().join("fresh.history");
    let _ = std::fs::remove_file(&fresh_history);
    if history.exists() {
        std::fs::copy(&history, &fresh_history).unwrap();
    }
    let output = Command::new(BIN)
        .env_remove("CI")
        .args([
            "--once",
            "--today",
            TODAY,
            "--out",
            "fresh",
            "--history",
            "fresh.history",
        ])
        .current_dir(site.root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the fresh build failed (the storm left invalid content: a bug of the generator):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    live_snapshot(&fresh)
}
