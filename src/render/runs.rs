//! Long lists of posts, cut into runs of [`RUN`] consecutive entries, each run a salsa-interned
//! value that the queries rendering it are keyed by.
//!
//! A list output (a post index, a big tag timeline, `llms-full.txt`) reads one fragment per
//! post. Read directly, it has one dependency per post, and once any post in it was edited
//! (its input is LOW durability from then on), salsa re-validates every one of those
//! dependencies on every later rebuild: O(corpus) work for an edit that changed one entry.
//! Read through runs, the list has one dependency per run.
//!
//! A run is identified by its files, not by its place in a list: `list_runs` (the only query
//! that reads a list) cuts the list and interns each run's files, and each run's renderer
//! (`posts::post_entries_run`, `timelines::timeline_entries_run`,
//! `docs::llms_full::llms_full_run`, `assemble::markdown_run`) is keyed by the [`Run`]. Reading
//! an interned value's fields records no dependency, so a renderer depends only on its posts'
//! fragments: when a list changes (a file's first edit puts its new input in the lists), the
//! runs that hold the same files intern to the same values and their renderers are verified in
//! O(1) by their posts' durability; only the run holding the edited post is new. Inserting a
//! post shifts the runs after it: they become new runs and render once (reading cached
//! fragments), which happens only when the list itself changes and rewrites the file anyway.
//!
//! In a watch session the lists are LOW (see `workspace::index::LIST_DURABILITY`), so
//! `list_runs` is LOW and so are the runs it interns: salsa 0.28 reuses the slot (and drops the
//! memos) of a LOW interned value that no query interned or validated for a few revisions. It
//! looks only at the tail of its LRU, and validating a value does not move it there, so every
//! edit that changes a list also bumps `Index::runs_epoch`, which every `list_runs` reads: all
//! lists are cut again (one pass over each, part of the first-edit times in the README), the
//! live runs move to the front, and the runs no list holds any more are collected. Without it, a watch session
//! kept about 19 KB per rename (`cargo bench --bench watch -- 2000 --kind none --renames 3000`).

use crate::db::{Index, LangIndex, SourceFile, TagMembers};
use std::sync::Arc;

/// Entries per run: small enough that an edited run re-validates little, large enough that a
/// 20,000-post list has a few hundred runs.
pub const RUN: usize = 64;

/// The files of one run of a list, in the list's order.
#[salsa::interned(debug)]
pub struct Run<'db> {
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
}

/// The runs of a list, in order: its files `0..RUN`, `RUN..2 * RUN`, ...
#[salsa::tracked(returns(ref))]
pub fn list_runs<'db>(db: &'db dyn salsa::Database, list: PostList) -> Vec<Run<'db>> {
    // Cut again whenever any list changed, so that salsa can collect the runs no list holds
    // (see `Index::runs_epoch`).
    Index::get(db).runs_epoch(db);
    match list {
        PostList::Lang(index) => cut(db, index.published(db).iter().map(|(_, file)| *file)),
        PostList::All(index) => cut(db, index.all(db).iter().map(|(_, file)| *file)),
        PostList::Tag(members) => cut(db, members.files(db).iter().copied()),
    }
}

/// `files` in runs of [`RUN`], each interned.
fn cut<'db>(
    db: &'db dyn salsa::Database,
    mut files: impl ExactSizeIterator<Item = SourceFile>,
) -> Vec<Run<'db>> {
    let mut runs = Vec::with_capacity(files.len().div_ceil(RUN));
    loop {
        let run: Arc<[SourceFile]> = files.by_ref().take(RUN).collect();
        if run.is_empty() {
            return runs;
        }
        runs.push(Run::new(db, run));
    }
}

/// The indexes `start..start + RUN` of a list of `len`, clipped to the list.
pub fn run_range(start: u32, len: usize) -> std::ops::Range<usize> {
    let start = (start as usize).min(len);
    start..(start + RUN).min(len)
}

/// A list of published posts, in the order its outputs show them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, salsa::Supertype)]
pub enum PostList {
    /// One language's posts, newest first.
    Lang(LangIndex),
    /// Both languages' posts, newest first.
    All(Index),
    /// One tag's posts in one language, newest first.
    Tag(TagMembers),
}

impl PostList {
    /// The list's runs, in order (see [`list_runs`]).
    pub fn runs(self, db: &dyn salsa::Database) -> &[Run<'_>] {
        list_runs(db, self)
    }
}
