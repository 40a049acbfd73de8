//! Long lists of posts, cut into blocks of [`RUN`] consecutive entries and the blocks into runs
//! (one per block, or more around the posts edited in a watch session), each run a
//! salsa-interned value that the queries rendering it are keyed by.
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
//! An edited post stays LOW for the session, and a run's renderer is as durable as its least
//! durable post: so `list_runs` gives each volatile post (`Index::volatile`) a run of its own,
//! and the runs of the posts around it stay verified in O(1) however many posts were edited.
//!
//! In a watch session the lists are LOW (see `workspace::index::LIST_DURABILITY`), so
//! `list_runs` is LOW and so are the runs it interns: salsa 0.28 reuses the slot (and drops the
//! memos) of a LOW interned value that no query interned or validated for a few revisions. It
//! looks only at the tail of its LRU, and validating a value does not move it there, so every
//! edit that changes a list also bumps `Index::runs_epoch`, which every `list_runs` reads: all
//! lists are cut again (one pass over each), the live runs move to the front, and the runs no
//! list holds any more are collected. Without it, a watch session's memory would grow with
//! every rename (`cargo bench --bench watch -- 2000 --kind none --renames 3000` shows it).

use crate::db::{Index, LangIndex, SourceFile, TagMembers};
use std::collections::HashSet;
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

/// A list cut into runs: its blocks of [`RUN`] files (`0..RUN`, `RUN..2 * RUN`, ...), each
/// block one run, or several when it holds volatile files (see [`list_runs`]).
#[derive(Debug, PartialEq, Eq, salsa::SalsaValue)]
pub struct ListRuns<'db> {
    /// Every run, in the list's order.
    pub runs: Vec<Run<'db>>,
    /// Where each block's runs start in `runs`.
    blocks: Vec<u32>,
}

impl<'db> ListRuns<'db> {
    /// The runs of the block that starts at the list's index `start` (a multiple of [`RUN`]);
    /// none past the end of the list.
    pub fn block(&self, start: usize) -> &[Run<'db>] {
        let block = start / RUN;
        let Some(&first) = self.blocks.get(block) else {
            return &[];
        };
        let end = self
            .blocks
            .get(block + 1)
            .map_or(self.runs.len(), |&e| e as usize);
        &self.runs[first as usize..end]
    }
}

/// The runs of a list, in order. A block's files form one run, except that each volatile file
/// (`Index::volatile`: its input is LOW, it was edited or created in this session) is a run of
/// its own. A run's renderer is as durable as its least durable post, so without that split
/// one edited post would leave its 63 neighbours' entries to be verified one by one after every
/// later edit, for every list holding it: the more posts edited in a session, the slower each
/// edit.
#[salsa::tracked(returns(ref))]
pub fn list_runs<'db>(db: &'db dyn salsa::Database, list: PostList) -> ListRuns<'db> {
    let index = Index::get(db);
    // Cut again whenever any list changed, so that salsa can collect the runs no list holds
    // (see `Index::runs_epoch`).
    index.runs_epoch(db);
    let volatile = index.volatile(db);
    match list {
        PostList::Lang(index) => cut(db, volatile, index.published(db).iter().map(|e| e.1)),
        PostList::All(index) => cut(db, volatile, index.all(db).iter().map(|e| e.1)),
        PostList::Tag(members) => cut(db, volatile, members.files(db).iter().copied()),
    }
}

/// `files` in blocks of [`RUN`], each block cut around its volatile files, each run interned.
fn cut<'db>(
    db: &'db dyn salsa::Database,
    volatile: &HashSet<SourceFile>,
    files: impl Iterator<Item = SourceFile>,
) -> ListRuns<'db> {
    let files: Vec<SourceFile> = files.collect();
    let mut cut = ListRuns {
        runs: Vec::with_capacity(files.len().div_ceil(RUN)),
        blocks: Vec::with_capacity(files.len().div_ceil(RUN)),
    };
    let push = |run: &[SourceFile], runs: &mut Vec<Run<'db>>| {
        if !run.is_empty() {
            runs.push(Run::new(db, Arc::from(run)));
        }
    };
    for block in files.chunks(RUN) {
        cut.blocks.push(cut.runs.len() as u32);
        if volatile.is_empty() {
            push(block, &mut cut.runs);
            continue;
        }
        let mut start = 0;
        for (i, file) in block.iter().enumerate() {
            if volatile.contains(file) {
                push(&block[start..i], &mut cut.runs);
                push(&block[i..=i], &mut cut.runs);
                start = i + 1;
            }
        }
        push(&block[start..], &mut cut.runs);
    }
    cut
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
        &list_runs(db, self).runs
    }
}
