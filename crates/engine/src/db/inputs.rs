//! The salsa inputs. Changing one of these is the only way the output can change.

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents, FileRole};
use crate::diag::Diagnostic;
use crate::model::{Lang, SortKey};
use crate::output::HistoryPaths;
use chrono::NaiveDate;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// One content file. Inputs cannot be deleted from salsa, so a deleted file keeps its input
/// with `FileContents::Missing` and is dropped from its file list; recreating the path reuses it.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: ContentPath,
    /// What the path is by the site's layout and languages (set anew when they change).
    #[returns(ref)]
    pub role: FileRole,
    #[returns(ref)]
    pub contents: FileContents,
}

/// The files of one language, each list sorted by path. One input per language, so adding a
/// post in one language does not invalidate another language's queries.
#[salsa::input(debug)]
pub struct LangTree {
    #[returns(copy)]
    pub lang: Lang,
    #[returns(ref)]
    pub posts: Arc<[SourceFile]>,
    #[returns(ref)]
    pub decks: Arc<[SourceFile]>,
}

/// Everything global. Separate fields are tracked separately: a new tag file does not
/// invalidate what only reads `today`.
#[salsa::input(singleton, debug)]
pub struct Globals {
    #[returns(ref)]
    pub config: Arc<SiteConfig>,
    /// Today's date in the site's time zone: scheduled content becomes visible when it moves.
    #[returns(copy)]
    pub today: NaiveDate,
    /// Preview mode (`--drafts`): drafts are published with `isDraft: true`.
    #[returns(copy)]
    pub drafts: bool,
    /// Preview mode (`--future`): scheduled posts and decks are published before their date.
    #[returns(copy)]
    pub future: bool,
    /// One tree per language of the site, in the configuration's order.
    #[returns(ref)]
    pub trees: Arc<[LangTree]>,
    #[returns(ref)]
    pub tags: Arc<[SourceFile]>,
    #[returns(ref)]
    pub series: Arc<[SourceFile]>,
    #[returns(ref)]
    pub skills: Arc<[SourceFile]>,
    /// Problems found while walking the folder (odd names, symlink loops).
    #[returns(ref)]
    pub scan_problems: Arc<[Diagnostic]>,
    /// One warning per folder of posts or decks in a language the site does not have.
    #[returns(ref)]
    pub unread_languages: Arc<[Diagnostic]>,
    /// Every API path (relative to the output folder, sorted, e.g. `api/posts.json`) that an
    /// earlier build published, read from the publishing history (`content-api.history`). The
    /// one input that comes from history rather than from the content: it decides which
    /// removed paths answer 410.
    #[returns(ref)]
    pub history_paths: HistoryPaths,
}

/// What a preview publishes besides what production does (`--drafts`, `--future`). Never
/// recorded in the publishing history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Preview {
    /// Drafts too, marked `isDraft: true`.
    pub drafts: bool,
    /// Scheduled posts and decks too, before their date.
    pub future: bool,
}

impl Preview {
    /// Whether anything beyond what production publishes is published.
    pub fn any(self) -> bool {
        self.drafts || self.future
    }
}

/// `true`: drafts (`--drafts`), the one preview mode most callers name.
impl From<bool> for Preview {
    fn from(drafts: bool) -> Preview {
        Preview {
            drafts,
            future: false,
        }
    }
}

impl Globals {
    /// The file tree of one of the site's languages.
    pub fn tree(self, db: &dyn salsa::Database, lang: Lang) -> LangTree {
        *self
            .trees(db)
            .iter()
            .find(|tree| tree.lang(db) == lang)
            .unwrap_or_else(|| panic!("`{lang}` is not one of the site's languages"))
    }

    /// The site's languages, in the configuration's order.
    pub fn langs(self, db: &dyn salsa::Database) -> Vec<Lang> {
        self.trees(db).iter().map(|tree| tree.lang(db)).collect()
    }
}

/// The indexes over published posts, one per language of the site. They are inputs, maintained by the
/// workspace from the per-file `sort_key` and `post_links` queries, so that an edit sets only
/// the entries it touches: a timeline whose members did not change never reads anything the
/// edit changed, and salsa verifies it in O(1) (see ARCHITECTURE.md, "Why the indexes are
/// inputs").
#[salsa::input(singleton, debug)]
pub struct Index {
    /// One index per language, in the configuration's order.
    #[returns(ref)]
    pub langs: Arc<[LangIndex]>,
    /// The published posts of every language, newest first (on the same date, by id: `en/`
    /// ids sort before `es/` ones).
    #[returns(ref)]
    pub all: Arc<[(SortKey, SourceFile)]>,
    /// Counts the edits that changed a post list. `render::runs::list_runs` reads it, so every
    /// list is cut again after such an edit: salsa then moves every live run to the front of its
    /// interned values' LRU, and the runs no list holds any more are reused (their memos
    /// dropped) instead of kept for the session. (Validating an interned value does not move
    /// it, and a live value at the LRU's tail would stop salsa 0.28 from collecting any.)
    #[returns(copy)]
    pub runs_epoch: u64,
    /// The files whose inputs were created in this watch session (edited since the start, or
    /// new), at LOW durability. `render::runs::list_runs` gives each its own run, so that the
    /// runs of unedited posts stay as durable as their posts. Empty in a one-shot build.
    #[returns(ref)]
    pub volatile: Arc<HashSet<SourceFile>>,
}

impl Index {
    /// The index of one of the site's languages.
    pub fn lang(self, db: &dyn salsa::Database, lang: Lang) -> LangIndex {
        *self
            .langs(db)
            .iter()
            .find(|index| index.lang(db) == lang)
            .unwrap_or_else(|| panic!("`{lang}` is not one of the site's languages"))
    }
}

/// One language's indexes.
#[salsa::input(debug)]
pub struct LangIndex {
    #[returns(copy)]
    pub lang: Lang,
    /// The published posts, newest first.
    #[returns(ref)]
    pub published: Arc<[(SortKey, SourceFile)]>,
    /// Every tag with at least one published post, by name.
    #[returns(ref)]
    pub tags: Arc<BTreeMap<Arc<str>, TagMembers>>,
    /// Every series with at least one published chapter, by name.
    #[returns(ref)]
    pub series: Arc<BTreeMap<Arc<str>, SeriesMembers>>,
}

/// The published posts carrying one tag in one language, newest first.
#[salsa::input(debug)]
pub struct TagMembers {
    #[returns(copy)]
    pub lang: Lang,
    #[returns(ref)]
    pub tag: Arc<str>,
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
}

/// The published chapters of one series in one language, in reading order.
#[salsa::input(debug)]
pub struct SeriesMembers {
    #[returns(copy)]
    pub lang: Lang,
    #[returns(ref)]
    pub name: Arc<str>,
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
    /// The same chapters' paths. A chapter's position (`derive::post_series_position`) reads
    /// these, not `files`: a chapter's first edit puts its new input in `files` but leaves the
    /// paths as they were, so the position of every chapter (and every index entry that shows
    /// it) keeps its durability.
    #[returns(ref)]
    pub paths: Arc<[ContentPath]>,
}
