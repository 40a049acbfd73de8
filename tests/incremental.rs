//! The central property of watch mode: after any sequence of edits that leaves the content
//! valid, the output folder is byte-identical to a fresh `--once` build of the same content;
//! while a file is broken, the output is what it was before that file broke.
//!
//! Edits are real file operations on a copy of the sample site, fed to the incremental path
//! (`Session::apply`) the way the watcher feeds it: as a batch of changed paths. The session
//! publishes in two lanes as watch mode does: every check first compares the API lane (all
//! but the documents lane's files) with a fresh build, then publishes the documents lane and
//! compares everything.

use crate::common;

use common::{copy_sample_content, fresh_build, read_tree, sample_config_in, sample_today};
use content_api::config::SiteConfig;
use content_api::render::{DOCUMENTS_LANE_FILES, Lane};
use content_api::session::{RebuildError, Session};
use content_api::source::ChangeSet;
use content_api::workspace::{Lifetime, Workspace};
use content_api::{build, source};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

const WORDS: &[&str] = &[
    "incremental",
    "año",
    "niño",
    "rust",
    "salsa",
    "“quoted”",
    "watch",
    "café",
    "build",
    "json",
];
const TAGS: &[&str] = &[
    "tech",
    "rust",
    "salsa",
    "static-sites",
    "json-api",
    "personal",
    "running",
    "travel",
    "fresh-tag",
];
const SERIES: &[&str] = &[
    "incremental-builds-in-rust",
    "from-markdown-to-json-api",
    "new-series",
];

/// One step of an edit sequence.
#[derive(Clone, Debug)]
enum Op {
    Create {
        lang: bool,
        day: u16,
        words: Vec<usize>,
        tags: Vec<usize>,
        series: Option<(usize, u8)>,
        draft: bool,
    },
    EditTitle {
        post: usize,
        words: Vec<usize>,
    },
    EditBody {
        post: usize,
        words: Vec<usize>,
    },
    EditTags {
        post: usize,
        tags: Vec<usize>,
    },
    EditDate {
        post: usize,
        day: u16,
    },
    SetSeries {
        post: usize,
        series: Option<(usize, u8)>,
    },
    ToggleDraft {
        post: usize,
    },
    Delete {
        post: usize,
    },
    Rename {
        post: usize,
        word: usize,
    },
    MoveLanguage {
        post: usize,
    },
    BreakThenFix {
        post: usize,
        breakage: usize,
    },
    Retier {
        tag: usize,
        tier: usize,
    },
    CreateSeries,
    EditSeriesTitle {
        series: usize,
        words: Vec<usize>,
    },
    DeleteSeriesThenRestore {
        series: usize,
    },
    DuplicateThenRemove {
        post: usize,
    },
}

fn words() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..WORDS.len(), 1..5)
}

fn series() -> impl Strategy<Value = Option<(usize, u8)>> {
    prop::option::of((0..SERIES.len(), 1u8..5))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<bool>(), 0u16..2600, words(), prop::collection::vec(0..TAGS.len(), 0..4), series(), prop::bool::weighted(0.15))
            .prop_map(|(lang, day, words, tags, series, draft)| Op::Create { lang, day, words, tags, series, draft }),
        2 => (any::<usize>(), words()).prop_map(|(post, words)| Op::EditTitle { post, words }),
        2 => (any::<usize>(), words()).prop_map(|(post, words)| Op::EditBody { post, words }),
        2 => (any::<usize>(), prop::collection::vec(0..TAGS.len(), 0..4)).prop_map(|(post, tags)| Op::EditTags { post, tags }),
        1 => (any::<usize>(), 0u16..2600).prop_map(|(post, day)| Op::EditDate { post, day }),
        1 => (any::<usize>(), series()).prop_map(|(post, series)| Op::SetSeries { post, series }),
        1 => any::<usize>().prop_map(|post| Op::ToggleDraft { post }),
        1 => any::<usize>().prop_map(|post| Op::Delete { post }),
        1 => (any::<usize>(), 0..WORDS.len()).prop_map(|(post, word)| Op::Rename { post, word }),
        1 => any::<usize>().prop_map(|post| Op::MoveLanguage { post }),
        2 => (any::<usize>(), 0usize..4).prop_map(|(post, breakage)| Op::BreakThenFix { post, breakage }),
        1 => (0..TAGS.len() - 1, 0usize..3).prop_map(|(tag, tier)| Op::Retier { tag, tier }),
        1 => Just(Op::CreateSeries),
        1 => (0usize..2, words()).prop_map(|(series, words)| Op::EditSeriesTitle { series, words }),
        1 => (0usize..2).prop_map(|series| Op::DeleteSeriesThenRestore { series }),
        1 => any::<usize>().prop_map(|post| Op::DuplicateThenRemove { post }),
    ]
}

/// A post the test owns entirely: its file is rendered from these fields.
#[derive(Clone, Debug)]
struct Post {
    path: String,
    title: String,
    day: u16,
    tags: Vec<&'static str>,
    series: Option<(&'static str, u8)>,
    draft: bool,
    body: String,
}

impl Post {
    fn text(&self) -> String {
        let date = chrono::NaiveDate::from_ymd_opt(2020, 1, 1).unwrap()
            + chrono::Duration::days(self.day as i64);
        let mut fm = format!(
            "---\ntitle: {:?}\ndescription: \"About {}\"\npubDate: {date}\ntags: [{}]\n",
            self.title,
            self.title.replace('"', "'"),
            self.tags
                .iter()
                .map(|t| format!("{t:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if let Some((name, order)) = self.series {
            fm += &format!("series: {name}\nseriesOrder: {order}\n");
        }
        if self.draft {
            fm += "draft: true\n";
        }
        format!("{fm}---\n\n{}\n", self.body)
    }
}

/// The site on disk plus the incremental session over it.
struct Harness {
    _dir: tempfile::TempDir,
    content: PathBuf,
    out: PathBuf,
    config: Arc<SiteConfig>,
    session: Session,
    /// Posts created by the test, by path.
    owned: BTreeMap<String, Post>,
    created: usize,
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        copy_sample_content(&content);
        let out = dir.path().join("out");
        let config = Arc::new(sample_config_in(&content, &out));
        let (mut session, outcome) = Session::start(config.clone(), today(), false).unwrap();
        assert_eq!(outcome.errors, 0);
        session.use_lanes();
        Harness {
            _dir: dir,
            content,
            out,
            config,
            session,
            owned: BTreeMap::new(),
            created: 0,
        }
    }

    /// Every post file, sorted (sample posts and owned ones).
    fn posts(&self) -> Vec<String> {
        let mut posts: Vec<String> = read_tree(&self.content)
            .into_keys()
            .filter(|p| p.starts_with("blog/") && !p.contains("/_"))
            .collect();
        posts.sort();
        posts
    }

    fn pick(&self, index: usize) -> Option<String> {
        let posts = self.posts();
        (!posts.is_empty()).then(|| posts[index % posts.len()].clone())
    }

    fn pick_owned(&self, index: usize) -> Option<String> {
        let owned: Vec<&String> = self.owned.keys().collect();
        (!owned.is_empty()).then(|| owned[index % owned.len()].clone())
    }

    fn write(&self, path: &str, text: &str) {
        let target = self.content.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, text).unwrap();
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.content.join(path)).unwrap()
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.content.join(path)).unwrap();
    }

    /// Tells the session about `paths`, as the watcher would, and returns the outcome's
    /// held-back paths.
    fn apply(&mut self, paths: &[&str]) -> Vec<String> {
        let batch = ChangeSet {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            ..Default::default()
        };
        let outcome = self.session.apply(&batch).unwrap();
        outcome.held_back.iter().map(|p| p.to_string()).collect()
    }

    fn save_owned(&mut self, post: Post) -> String {
        let path = post.path.clone();
        self.write(&path, &post.text());
        self.owned.insert(path.clone(), post);
        path
    }

    /// The output folder, without the manifest.
    fn output(&self) -> BTreeMap<String, Vec<u8>> {
        read_tree(&self.out)
            .into_iter()
            .filter(|(p, _)| !p.starts_with(".content-api/"))
            .collect()
    }

    /// A fresh one-shot build of the content on disk, in memory.
    fn fresh(&self) -> BTreeMap<String, Vec<u8>> {
        fresh_build(self.config.clone(), today(), &self.out)
    }

    /// The API lane equals a fresh build as soon as it is published (only the documents lane
    /// may lag), and everything does once the documents lane is published too.
    fn assert_fresh(&mut self, step: &str) {
        let fresh = self.fresh();
        let api_lane = |files: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
            files
                .iter()
                .filter(|(path, _)| !DOCUMENTS_LANE_FILES.contains(&path.as_str()))
                .map(|(path, bytes)| (path.clone(), bytes.clone()))
                .collect()
        };
        assert_same(
            &api_lane(&fresh),
            &api_lane(&self.output()),
            &format!("{step} (api lane)"),
        );
        self.session.publish_documents().unwrap();
        assert_same(&fresh, &self.output(), step);
    }

    fn run(&mut self, op: &Op) {
        let step = format!("{op:?}");
        match op {
            Op::Create {
                lang,
                day,
                words,
                tags,
                series,
                draft,
            } => {
                self.created += 1;
                let lang = if *lang { "en" } else { "es" };
                let date = chrono::NaiveDate::from_ymd_opt(2020, 1, 1).unwrap()
                    + chrono::Duration::days(*day as i64);
                let path = format!("blog/{lang}/{date}_created-{}.md", self.created);
                let post = Post {
                    path,
                    title: title(words),
                    day: *day,
                    tags: tags
                        .iter()
                        .map(|t| TAGS[*t])
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect(),
                    series: series
                        .map(|(s, o)| (SERIES[s], o))
                        .filter(|(s, _)| self.series_exists(s)),
                    draft: *draft,
                    body: title(words),
                };
                let path = self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::EditTitle { post, words } => {
                let Some(path) = self.pick_owned(*post) else {
                    return;
                };
                let mut post = self.owned[&path].clone();
                post.title = title(words);
                self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::EditBody { post, words } => {
                let Some(path) = self.pick(*post) else { return };
                let text = self.read(&path) + "\n" + &title(words) + "\n";
                self.write(&path, &text);
                if let Some(owned) = self.owned.get_mut(&path) {
                    owned.body = text
                        .split_once("\n---\n")
                        .unwrap()
                        .1
                        .trim_start_matches('\n')
                        .trim_end_matches('\n')
                        .to_string();
                }
                self.apply(&[&path]);
            }
            Op::EditTags { post, tags } => {
                let Some(path) = self.pick_owned(*post) else {
                    return;
                };
                let mut post = self.owned[&path].clone();
                post.tags = tags
                    .iter()
                    .map(|t| TAGS[*t])
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::EditDate { post, day } => {
                // The date in the file name stays: ids are stable; only pubDate moves.
                let Some(path) = self.pick_owned(*post) else {
                    return;
                };
                let mut post = self.owned[&path].clone();
                post.day = *day;
                self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::SetSeries { post, series } => {
                let Some(path) = self.pick_owned(*post) else {
                    return;
                };
                let mut post = self.owned[&path].clone();
                post.series = series
                    .map(|(s, o)| (SERIES[s], o))
                    .filter(|(s, _)| self.series_exists(s));
                self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::ToggleDraft { post } => {
                let Some(path) = self.pick_owned(*post) else {
                    return;
                };
                let mut post = self.owned[&path].clone();
                post.draft = !post.draft;
                self.save_owned(post);
                self.apply(&[&path]);
            }
            Op::Delete { post } => {
                let Some(path) = self.pick(*post) else { return };
                self.remove(&path);
                self.owned.remove(&path);
                self.apply(&[&path]);
            }
            Op::Rename { post, word } => {
                let Some(path) = self.pick(*post) else { return };
                let (folder, name) = path.rsplit_once('/').unwrap();
                let (date, _) = name.split_once('_').unwrap();
                let slug = WORDS[*word]
                    .chars()
                    .filter(|c| c.is_ascii_lowercase())
                    .collect::<String>();
                let new = format!("{folder}/{date}_renamed-{slug}-{}.md", self.created);
                self.created += 1;
                self.rename(&path, &new);
                self.apply(&[&path, &new]);
            }
            Op::MoveLanguage { post } => {
                let Some(path) = self.pick(*post) else { return };
                let new = if path.starts_with("blog/en/") {
                    path.replacen("blog/en/", "blog/es/", 1)
                } else {
                    path.replacen("blog/es/", "blog/en/", 1)
                };
                if self.content.join(&new).exists() {
                    return;
                }
                self.rename(&path, &new);
                self.apply(&[&path, &new]);
            }
            Op::BreakThenFix { post, breakage } => {
                let Some(path) = self.pick(*post) else { return };
                let good = self.read(&path);
                let before = self.output();
                let broken = match breakage {
                    0 => good.replacen("---\n", "---\nseriesOrder: \"two\"\n", 1),
                    1 => good.replacen("---\n", "---\npubDate: 2024-02-30\n", 1),
                    2 => good.replacen("---\n", "---\ntags: [\"Not A Slug\"]\n", 1),
                    _ => good.replacen("\n---\n", "\n", 1), // unclosed front matter
                };
                self.write(&path, &broken);
                let held = self.apply(&[&path]);
                assert_eq!(
                    held,
                    std::slice::from_ref(&path),
                    "{step}: the broken file is held back"
                );
                assert!(
                    before == self.output(),
                    "{step}: a broken file changed the output"
                );
                self.write(&path, &good);
                assert!(
                    self.apply(&[&path]).is_empty(),
                    "{step}: the fixed file is accepted"
                );
            }
            Op::Retier { tag, tier } => {
                let path = format!("tags/{}.md", TAGS[*tag]);
                if !self.content.join(&path).exists() {
                    return;
                }
                let tier = ["primary", "secondary", "subtopic"][*tier];
                let text = self.read(&path);
                let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("tier:")).collect();
                let text = kept
                    .join("\n")
                    .replacen("---\n", &format!("---\ntier: {tier}\n"), 1)
                    + "\n";
                self.write(&path, &text);
                self.apply(&[&path]);
            }
            Op::CreateSeries => {
                let path = "series/new-series.md";
                self.write(path, "---\nname: new-series\ntitle: \"A new series\"\ntitleEs: \"Una serie nueva\"\norder: 3\n---\n");
                self.apply(&[path]);
            }
            Op::EditSeriesTitle { series, words } => {
                let path = format!("series/{}.md", SERIES[*series]);
                let text = self.read(&path);
                let edited: Vec<String> = text
                    .lines()
                    .map(|l| {
                        if l.starts_with("title:") {
                            format!("title: {:?}", title(words))
                        } else {
                            l.to_string()
                        }
                    })
                    .collect();
                self.write(&path, &(edited.join("\n") + "\n"));
                self.apply(&[&path]);
            }
            Op::DeleteSeriesThenRestore { series } => {
                let path = format!("series/{}.md", SERIES[*series]);
                let good = self.read(&path);
                let before = self.output();
                self.remove(&path);
                let held = self.apply(&[&path]);
                if self.references_series(SERIES[*series]) {
                    assert!(
                        !held.is_empty(),
                        "{step}: deleting a series that posts name is held back"
                    );
                    assert!(
                        before == self.output(),
                        "{step}: an invalid deletion changed the output"
                    );
                } else {
                    self.assert_fresh(&step);
                }
                self.write(&path, &good);
                self.apply(&[&path]);
            }
            Op::DuplicateThenRemove { post } => {
                let Some(path) = self.pick(*post) else { return };
                let twin = if let Some(stem) = path.strip_suffix(".md") {
                    format!("{stem}.mdx")
                } else {
                    path.trim_end_matches('x').to_string()
                };
                let before = self.output();
                self.write(&twin, &self.read(&path));
                let held = self.apply(&[&twin]);
                assert!(!held.is_empty(), "{step}: a duplicate id is held back");
                assert!(
                    before == self.output(),
                    "{step}: a duplicate id changed the output"
                );
                self.remove(&twin);
                self.apply(&[&twin]);
            }
        }
        self.assert_fresh(&step);
    }

    fn rename(&mut self, from: &str, to: &str) {
        std::fs::create_dir_all(self.content.join(to).parent().unwrap()).unwrap();
        std::fs::rename(self.content.join(from), self.content.join(to)).unwrap();
        if let Some(mut post) = self.owned.remove(from) {
            post.path = to.to_string();
            self.owned.insert(to.to_string(), post);
        }
    }

    fn series_exists(&self, name: &str) -> bool {
        self.content.join(format!("series/{name}.md")).exists()
    }

    fn references_series(&self, name: &str) -> bool {
        let needle = format!("series: {name}");
        let quoted = format!("series: \"{name}\"");
        self.posts().iter().any(|p| {
            let text = self.read(p);
            text.lines()
                .any(|l| l.trim() == needle || l.trim() == quoted)
        })
    }
}

fn title(words: &[usize]) -> String {
    words
        .iter()
        .map(|w| WORDS[*w])
        .collect::<Vec<_>>()
        .join(" ")
}

fn assert_same(fresh: &BTreeMap<String, Vec<u8>>, output: &BTreeMap<String, Vec<u8>>, step: &str) {
    if fresh != output {
        let differing: Vec<&String> = fresh
            .keys()
            .chain(output.keys())
            .filter(|p| fresh.get(*p) != output.get(*p))
            .collect();
        panic!("after {step}: the output differs from a fresh build in {differing:?}");
    }
}

fn today() -> chrono::NaiveDate {
    sample_today()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn incremental_output_always_equals_a_fresh_build(ops in prop::collection::vec(op(), 1..10)) {
        let mut harness = Harness::new();
        harness.assert_fresh("the first build");
        for op in &ops {
            harness.run(op);
        }
    }
}

/// The case `storm::` found on linked content (seed 2012): a series' only chapter is deleted, then
/// a new post joins the series. The new post gets the deleted one's input from the pool, with a new
/// path, so the series' members hold the same input as before the series emptied: its paths must
/// still be set.
#[test]
fn a_series_that_empties_then_gets_a_new_chapter_lists_it() {
    let mut harness = Harness::new();
    harness.run(&Op::CreateSeries);
    let chapter = Op::Create {
        lang: false,
        day: 1500,
        words: vec![0],
        tags: vec![1],
        series: Some((2, 1)),
        draft: false,
    };
    harness.run(&chapter);
    let first = harness.pick_owned(0).unwrap();
    harness.run(&Op::Delete {
        post: harness.posts().iter().position(|p| *p == first).unwrap(),
    });
    harness.run(&chapter);
}

#[test]
fn a_deleted_folder_and_a_recreated_folder_are_followed() {
    let mut harness = Harness::new();
    let es = harness.content.join("blog/es");
    let saved = tempfile::tempdir().unwrap();
    std::fs::rename(&es, saved.path().join("es")).unwrap();
    harness.apply(&["blog/es"]);
    harness.assert_fresh("deleting blog/es");
    std::fs::rename(saved.path().join("es"), &es).unwrap();
    harness.apply(&["blog/es"]);
    harness.assert_fresh("restoring blog/es");
}

#[test]
fn a_rescan_resynchronises_everything() {
    let mut harness = Harness::new();
    // Changes the session is not told about, as when the watcher's queue overflows.
    harness.remove("blog/en/2024-06-02_running-up-las-palmas.md");
    let path = "blog/es/2024-02-10_what-incremental-really-means.md";
    let text = harness
        .read(path)
        .replacen("title:", "title: \"Cambiado\"\nx-old-title:", 1);
    harness.write(path, &text);
    let outcome = harness
        .session
        .apply(&ChangeSet {
            paths: Default::default(),
            rescan: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(outcome.errors, 0);
    harness.assert_fresh("a rescan");
}

/// The watcher names a folder where something was created, removed or renamed; the
/// session makes the files it holds there equal the disk, even when the events themselves
/// (here: none at all) do not say what happened.
#[test]
fn a_listed_folder_is_made_equal_to_the_disk() {
    let mut harness = Harness::new();
    let posts = harness.posts();
    let en: Vec<&String> = posts.iter().filter(|p| p.starts_with("blog/en/")).collect();
    // A rename whose halves were both lost, and a file created without an event.
    let renamed = en[0].replace(".md", "-moved.md");
    std::fs::rename(harness.content.join(en[0]), harness.content.join(&renamed)).unwrap();
    let text = harness
        .read(en[1])
        .replacen("title:", "title: \"Copy\"\nx-old-title:", 1);
    let copy = en[1].replace(".md", "-copy.md");
    harness.write(&copy, &text);
    let outcome = harness
        .session
        .apply(&ChangeSet {
            folders: ["blog/en".to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(outcome.errors, 0);
    harness.assert_fresh("listing blog/en again");
}

/// A content folder that vanished is not an empty site.
#[test]
fn a_vanished_content_folder_publishes_nothing() {
    let mut harness = Harness::new();
    let before = harness.output();
    let aside = tempfile::tempdir().unwrap();
    std::fs::rename(&harness.content, aside.path().join("content")).unwrap();
    let result = harness.session.apply(&ChangeSet {
        rescan: true,
        ..Default::default()
    });
    assert!(
        matches!(result, Err(RebuildError::ContentFolderGone(_))),
        "{result:?}"
    );
    assert!(harness.output() == before, "the output changed");
    std::fs::rename(aside.path().join("content"), &harness.content).unwrap();
    harness
        .session
        .apply(&ChangeSet {
            rescan: true,
            ..Default::default()
        })
        .unwrap();
    harness.assert_fresh("the content folder coming back");
}

#[test]
fn scheduled_posts_go_live_when_the_date_moves() {
    let mut harness = Harness::new();
    let live = chrono::NaiveDate::from_ymd_opt(2031, 3, 14).unwrap();
    let outcome = harness.session.set_today(live).unwrap();
    let written = outcome.report.unwrap().written;
    assert!(
        written.iter().any(|p| &**p == "api/posts-en.json"),
        "{written:?}"
    );
    let posts: serde_json::Value =
        serde_json::from_slice(&std::fs::read(harness.out.join("api/posts-en.json")).unwrap())
            .unwrap();
    assert_eq!(posts[0]["slug"], "a-post-from-the-future");
}

#[test]
fn a_deleted_output_folder_is_written_again() {
    let mut harness = Harness::new();
    let before = harness.output();
    std::fs::remove_dir_all(&harness.out).unwrap();
    let outcome = harness
        .session
        .repair_output()
        .unwrap()
        .expect("the deletion is noticed");
    assert_eq!(outcome.report.unwrap().written.len(), before.len());
    assert!(before == harness.output());
}

#[test]
fn errors_at_startup_publish_nothing_until_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let content = dir.path().join("content");
    copy_sample_content(&content);
    let broken = content.join("blog/en/2023-04-09_hello-from-medellin.md");
    let good = std::fs::read_to_string(&broken).unwrap();
    std::fs::write(&broken, good.replacen("---\n", "---\ndraft: \"yes\"\n", 1)).unwrap();
    let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
    config.content_dir = camino::Utf8PathBuf::from_path_buf(content.clone()).unwrap();
    config.out_dir = camino::Utf8PathBuf::from_path_buf(dir.path().join("out")).unwrap();
    let (mut session, outcome) = Session::start(Arc::new(config), today(), false).unwrap();
    assert_eq!(outcome.errors, 1);
    assert!(outcome.report.is_none());
    assert_eq!(outcome.new_diagnostics.len(), 1);
    assert!(
        !dir.path().join("out").exists(),
        "nothing is written while the content has errors"
    );
    std::fs::write(&broken, good).unwrap();
    let outcome = session
        .apply(&ChangeSet {
            paths: ["blog/en/2023-04-09_hello-from-medellin.md".to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(outcome.errors, 0);
    assert!(outcome.report.is_some_and(|r| !r.written.is_empty()));
}

#[test]
fn an_error_is_reported_once_while_it_persists() {
    let mut harness = Harness::new();
    let path = "blog/en/2023-04-09_hello-from-medellin.md";
    let good = harness.read(path);
    harness.write(path, &good.replacen("---\n", "---\ndraft: \"yes\"\n", 1));
    let first = harness
        .session
        .apply(&ChangeSet {
            paths: [path.to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(first.new_diagnostics.len(), 1);
    // Another edit elsewhere: the broken file is retried, its error is not shown again.
    let other = "blog/en/2024-06-02_running-up-las-palmas.md";
    harness.write(other, &(harness.read(other) + "\nMore.\n"));
    let second = harness
        .session
        .apply(&ChangeSet {
            paths: [other.to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        second
            .held_back
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>(),
        [path]
    );
    assert!(
        second.new_diagnostics.is_empty(),
        "{:?}",
        second.new_diagnostics
    );
    let rendered = harness.session.render(&first.new_diagnostics[0], false);
    assert!(
        rendered.contains("draft: \"yes\""),
        "rendered with the broken text: {rendered}"
    );
    harness.write(path, &good);
    let fixed = harness
        .session
        .apply(&ChangeSet {
            paths: [path.to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert!(fixed.held_back.is_empty());
    harness.assert_fresh("the fix");
}

#[test]
fn the_documents_lane_holds_its_files_and_nothing_of_the_api() {
    let harness = Harness::new();
    let workspace = Workspace::new(
        harness.config.clone(),
        today(),
        false,
        source::scan(&harness.content, &harness.config),
        Lifetime::Once,
        Default::default(),
    );
    let paths = |lane: Lane| -> Vec<String> {
        let mut paths: Vec<String> = build::refresh_lane(workspace.db(), lane)
            .iter()
            .flat_map(|group| group.iter().map(|(path, _)| path.to_string()))
            .collect();
        paths.sort();
        paths
    };
    let mut lagging: Vec<String> = DOCUMENTS_LANE_FILES.iter().map(|p| p.to_string()).collect();
    lagging.sort();
    assert_eq!(paths(Lane::Documents), lagging);
    let api = paths(Lane::Api);
    assert!(api.iter().any(|p| p == "api/posts-en.json"), "{api:?}");
    assert!(
        api.iter().any(|p| p.starts_with("blog/")),
        "the twins: {api:?}"
    );
    assert!(
        lagging
            .iter()
            .all(|p| !api.contains(p) && !p.starts_with("api/"))
    );
}

#[test]
fn a_body_edit_publishes_its_twin_first_and_llms_full_txt_in_the_documents_lane() {
    let mut harness = Harness::new();
    let path = "blog/en/2023-04-09_hello-from-medellin.md";
    let written = |outcome: &content_api::session::Outcome| -> Vec<String> {
        let report = outcome.report.as_ref().expect("published");
        report.written.iter().map(|p| p.to_string()).collect()
    };
    for line in ["One more line.", "And another."] {
        let text = harness.read(path);
        harness.write(path, &format!("{text}\n{line}\n"));
        assert!(harness.apply(&[path]).is_empty());
    }
    // The second edit (the first one lowers the file's durability) as the daemon sees it.
    let text = harness.read(path);
    harness.write(path, &format!("{text}\nA third.\n"));
    let outcome = harness
        .session
        .apply(&ChangeSet {
            paths: [path.to_string()].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(outcome.lane, Some(Lane::Api));
    assert_eq!(written(&outcome), ["blog/hello-from-medellin.md"]);
    assert!(harness.session.documents_due().is_some());
    let documents = harness.session.publish_documents().unwrap();
    assert_eq!(documents.lane, Some(Lane::Documents));
    assert_eq!(written(&documents), ["llms-full.txt"]);
    assert_eq!(harness.session.documents_due(), None);
    harness.assert_fresh("three body edits");
}

#[test]
fn a_documents_lane_stopped_for_an_edit_keeps_its_files_off_the_next_edits_path() {
    let mut harness = Harness::new();
    let path = "blog/en/2023-04-09_hello-from-medellin.md";
    let written = |outcome: &content_api::session::Outcome| -> Vec<String> {
        let report = outcome.report.as_ref().expect("published");
        report.written.iter().map(|p| p.to_string()).collect()
    };
    let edit = |harness: &mut Harness, line: &str| {
        let text = harness.read(path);
        harness.write(path, &format!("{text}\n{line}\n"));
        harness
            .session
            .apply(&ChangeSet {
                paths: [path.to_string()].into(),
                ..Default::default()
            })
            .unwrap()
    };
    edit(&mut harness, "One more line.");
    harness.session.publish_documents().unwrap();
    let published = harness.output();
    edit(&mut harness, "And another.");
    // The daemon's stop check, asked before the first file and before its first write: an
    // edit arrived after the lane started, while it wrote its first file.
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 1;
    let stopped = harness.session.publish_documents_until(&stop);
    assert!(
        matches!(stopped, Err(content_api::write::WriteError::Stopped)),
        "{:?}",
        stopped.map(|outcome| outcome.report)
    );
    assert!(harness.session.documents_due().is_some(), "still due");
    let output = harness.output();
    for document in DOCUMENTS_LANE_FILES {
        assert_eq!(
            output.get(document as &str),
            published.get(document as &str),
            "{document} was not left as it was"
        );
    }
    assert!(
        output.keys().all(|name| !name.ends_with(".tmp")),
        "a temporary file is left: {:?}",
        output
            .keys()
            .filter(|name| name.ends_with(".tmp"))
            .collect::<Vec<_>>()
    );
    // The next edit publishes its twin only: the documents the lane did not reach wait for it.
    let outcome = edit(&mut harness, "A third.");
    assert_eq!(written(&outcome), ["blog/hello-from-medellin.md"]);
    let documents = harness.session.publish_documents().unwrap();
    assert_eq!(written(&documents), ["llms-full.txt"]);
    harness.assert_fresh("an edit while the documents lane wrote");
}
