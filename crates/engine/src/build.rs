//! Evaluating the whole build function on a database: every diagnostic, then every output.
//!
//! Work is spread over threads with salsa's snapshot model: each worker gets a clone of the
//! database and calls per-file queries; later queries find those results memoised. Both
//! `--once` and the watcher use these functions, so they cannot compute different things.

use crate::db::{Database, Globals, LangTree, SourceFile};
use crate::derive::{
    TreeCheck, all_diagnostics, post_diagnostics, post_links, published_posts, sort_key,
    tree_checks,
};
use crate::diag::Diagnostic;
use crate::output::{Files, Output};
use crate::parse::{parse_deck, parse_series, parse_skill, parse_tag};
use crate::render::{
    Lane, OutputGroup, group_files, output_groups, prepare_post, render_output, site_wide_files,
};
use rayon::prelude::*;
use std::sync::Arc;

/// Every diagnostic of the current revision. Parses all files in parallel first.
pub fn diagnostics(db: &Database) -> Arc<[Diagnostic]> {
    parse_in_parallel(db);
    all_diagnostics(db).clone()
}

/// Every output file and its bytes, sorted by path.
pub fn outputs(db: &Database) -> Vec<(Arc<str>, Output)> {
    prepare_in_parallel(db);
    // The site-wide documents are the heavy joins (indexes, `llms-full.txt`): render them on
    // every thread before their group collects them.
    site_wide_files(db)
        .par_iter()
        .for_each_with(db.clone(), |db, file| {
            render_output(db, file);
        });
    let groups: Vec<Files> = output_groups(db)
        .par_iter()
        .map_with(db.clone(), |db, group| group_files(db, *group).clone())
        .collect();
    // Sized once: growing by doubling would hold up to twice the list while every memo is
    // alive, at the build's peak.
    let mut files = Vec::with_capacity(groups.iter().map(|group| group.len()).sum());
    files.extend(groups.iter().flat_map(|group| group.iter().cloned()));
    // Paths are unique, so an unstable sort gives the one order; on every thread.
    files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    files
}

/// Every group of output files, for a database that already built once: salsa re-runs only
/// what changed, and a group it did not re-run is the same list as last time (which the
/// publisher skips), so the per-post warm-up of [`outputs`] would be wasted work here. Groups
/// are still fetched in parallel: after the first edit of a file salsa re-validates every
/// group, and that walk splits over threads like a build does.
pub fn refresh_groups(db: &Database) -> Vec<Files> {
    refresh_matching(db, |_| true)
}

/// [`refresh_groups`] for the groups of one lane only: the other lane's groups are neither
/// rendered nor re-validated.
pub fn refresh_lane(db: &Database, lane: Lane) -> Vec<Files> {
    refresh_matching(db, |group| group.lane() == lane)
}

fn refresh_matching(db: &Database, keep: impl Fn(OutputGroup) -> bool + Sync) -> Vec<Files> {
    output_groups(db)
        .par_iter()
        .filter(|group| keep(**group))
        .map_with(db.clone(), |db, group| group_files(db, *group).clone())
        .collect()
}

/// Serializes every published post's fragments in parallel; the lists then only join them.
fn prepare_in_parallel(db: &Database) {
    let site = Globals::get(db);
    let posts: Vec<SourceFile> = site
        .trees(db)
        .iter()
        .flat_map(|&tree| published_posts(db, tree).iter().map(|(_, file)| *file))
        .collect();
    posts
        .par_iter()
        .with_min_len(64)
        .for_each_with(db.clone(), |db, file| prepare_post(db, *file));
}

/// One parse query, picked by the kind of file it runs on.
type ParseJob = fn(&Database, SourceFile);

fn parse_in_parallel(db: &Database) {
    let site = Globals::get(db);
    let mut jobs: Vec<(SourceFile, ParseJob)> = Vec::new();
    for &tree in site.trees(db).iter() {
        jobs.extend(
            tree.posts(db)
                .iter()
                .map(|&f| (f, check_post_job as ParseJob)),
        );
        jobs.extend(
            tree.decks(db)
                .iter()
                .map(|&f| (f, parse_deck_job as ParseJob)),
        );
    }
    jobs.extend(
        site.tags(db)
            .iter()
            .map(|&f| (f, parse_tag_job as ParseJob)),
    );
    jobs.extend(
        site.series(db)
            .iter()
            .map(|&f| (f, parse_series_job as ParseJob)),
    );
    jobs.extend(
        site.skills(db)
            .iter()
            .map(|&f| (f, parse_skill_job as ParseJob)),
    );
    // The per-language checks run beside the parses: each is one long job (it reads every file
    // name of a language), which one thread takes while the other parses and then joins it.
    let tree_jobs: Vec<(LangTree, TreeCheck)> = site
        .trees(db)
        .iter()
        .flat_map(|&tree| [(tree, TreeCheck::Ids), (tree, TreeCheck::Slugs)])
        .collect();
    let (for_trees, for_files) = (db.clone(), db.clone());
    rayon::join(
        move || {
            tree_jobs
                .par_iter()
                .for_each_with(for_trees, |db, (tree, check)| {
                    tree_checks(db, *tree, *check)
                })
        },
        move || {
            jobs.par_iter()
                .with_min_len(64)
                .for_each_with(for_files, |db, (file, job)| job(db, *file))
        },
    );
}

/// Parses a post and runs its cross-file checks, which `all_diagnostics` then only collects.
/// Its sort key and links are computed here too: they are per file, and the indexes that read
/// them for every post would otherwise compute them one after another.
fn check_post_job(db: &Database, file: SourceFile) {
    post_diagnostics(db, file);
    sort_key(db, file);
    post_links(db, file);
}
fn parse_deck_job(db: &Database, file: SourceFile) {
    parse_deck(db, file);
}
fn parse_tag_job(db: &Database, file: SourceFile) {
    parse_tag(db, file);
}
fn parse_series_job(db: &Database, file: SourceFile) {
    parse_series(db, file);
}
fn parse_skill_job(db: &Database, file: SourceFile) {
    parse_skill(db, file);
}
