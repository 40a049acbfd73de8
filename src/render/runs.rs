//! Long lists of posts, cut into runs of [`RUN`] consecutive entries, each run a tracked query.
//!
//! A list output (a post index, a big tag timeline, `llms-full.txt`) reads one fragment per
//! post. Read directly, it has one dependency per post, and once any post in it was edited
//! (its input is LOW durability from then on), salsa re-validates every one of those
//! dependencies on every later rebuild: O(corpus) work for an edit that changed one entry, or
//! none (a series description edit reaches every index through one series title). Read through
//! runs, the list has one dependency per run; a run whose posts were not edited is verified in
//! O(1) by durability, and only the runs holding edited posts look at their entries.
//!
//! A run is keyed by its list and its start, so inserting a post shifts the runs after it: they
//! re-execute (reading cached fragments) once. That happens only when the list itself changes,
//! which rewrites the file anyway.
//!
//! Each run query lives next to the fragment it joins (`posts::post_entries_run`,
//! `timelines::timeline_entries_run`, `docs::llms_full::llms_full_run`), so this module
//! depends on none of them.

use crate::db::{Index, LangIndex, SourceFile, TagMembers};
use std::sync::Arc;

/// Entries per run: small enough that an edited run re-validates little, large enough that a
/// 20,000-post list has a few hundred runs.
pub const RUN: usize = 64;

/// The files of one run of a list, a query of its own: when the list changes elsewhere (a
/// post's first edit puts its new input in the list; a post added far away), this re-runs,
/// finds the same files and backdates, so the run's consumers are verified edge by edge
/// instead of re-run (re-serializing and comparing their 64 entries each).
#[salsa::tracked(returns(ref))]
pub fn run_files(db: &dyn salsa::Database, list: PostList, start: u32) -> Arc<[SourceFile]> {
    let take = |len: usize| run_range(start, len);
    match list {
        PostList::Lang(index) => {
            let posts = index.published(db);
            posts[take(posts.len())].iter().map(|(_, f)| *f).collect()
        }
        PostList::All(index) => {
            let posts = index.all(db);
            posts[take(posts.len())].iter().map(|(_, f)| *f).collect()
        }
        PostList::Tag(members) => {
            let files = members.files(db);
            files[take(files.len())].into()
        }
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
    /// The list's files from `start`, at most [`RUN`] of them (see [`run_files`]).
    pub fn run(self, db: &dyn salsa::Database, start: u32) -> &[SourceFile] {
        run_files(db, self, start)
    }

    fn len(self, db: &dyn salsa::Database) -> usize {
        match self {
            PostList::Lang(index) => index.published(db).len(),
            PostList::All(index) => index.all(db).len(),
            PostList::Tag(members) => members.files(db).len(),
        }
    }

    /// The start of every run of the list.
    pub fn starts(self, db: &dyn salsa::Database) -> impl Iterator<Item = u32> {
        (0..self.len(db)).step_by(RUN).map(|start| start as u32)
    }
}
