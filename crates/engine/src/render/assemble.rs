//! Rendering one file, or one group of files, of the plan: the query behind each path.

use super::config_only::config_only_files;
use super::docs;
use super::gone::redirects_file;
use super::groups::{
    Lane, OutputFile, OutputGroup, OutputKind, series_path, site_wide_files, timeline_path,
};
use super::index::api_index_json;
use super::posts::{all_posts_json, post_entry_json, posts_json};
use super::runs::{PostList, Run, list_runs, run_range};
use super::slides::slides_json;
use super::timelines::{
    series_detail_json, series_listing_json, tag_timeline_json, timeline_post_json,
};
use crate::db::{Globals, Index, LangTree, SourceFile};
use crate::derive::{series_members, series_names, tag_members, tag_names};
use crate::documents;
use crate::output::Files;
use crate::output::Output;
use std::sync::Arc;

/// Renders the per-post fragments of one post (its index entry, its timeline entry, its
/// Markdown variant and its `llms-full.txt` section) ahead of the files that join them, so a
/// build can spread this work over threads.
pub fn prepare_post(db: &dyn salsa::Database, file: SourceFile) {
    post_entry_json(db, file);
    timeline_post_json(db, file);
    docs::prepare_post(db, file);
}

/// The files of one group.
pub fn group_files(db: &dyn salsa::Database, group: OutputGroup) -> &Files {
    match group {
        OutputGroup::SiteWide => site_wide_api_files(db),
        OutputGroup::DocumentsLane => documents_lane_files(db),
        OutputGroup::PostMarkdown { tree, start } => post_markdown_files(db, tree, start),
        OutputGroup::Timelines { tree, start } => timeline_files(db, tree, start),
        OutputGroup::SeriesDetails { tree, start } => series_files(db, tree, start),
    }
}

/// The site-wide documents of the API lane.
#[salsa::tracked(returns(ref))]
fn site_wide_api_files(db: &dyn salsa::Database) -> Files {
    site_wide_files_in(db, Lane::Api)
}

/// The site-wide documents of the documents lane: a query of its own, so that the API lane
/// neither renders nor re-validates them.
/// A corpus too large for one `llms-full.txt` adds its other parts here.
#[salsa::tracked(returns(ref))]
fn documents_lane_files(db: &dyn salsa::Database) -> Files {
    let parts = docs::llms_full_parts(db).len();
    if parts == 1 {
        return site_wide_files_in(db, Lane::Documents);
    }
    let mut files: Vec<(Arc<str>, Output)> = site_wide_files_in(db, Lane::Documents).to_vec();
    files.extend((1..parts).map(|index| {
        (
            Arc::from(docs::llms_full_part_file(index)),
            docs::llms_full_part(db, index),
        )
    }));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.into()
}

fn site_wide_files_in(db: &dyn salsa::Database, lane: Lane) -> Files {
    site_wide_files(db)
        .iter()
        .filter(|file| documents::lane_of(&file.path) == lane)
        .map(|file| (file.path.clone(), render_output(db, file)))
        .collect()
}

/// The Markdown variants of the published posts `start..start + RUN` of the language: the
/// files of that block's runs, sorted by path.
#[salsa::tracked(returns(ref))]
fn post_markdown_files(db: &dyn salsa::Database, tree: LangTree, start: u32) -> Files {
    let list = PostList::Lang(Index::get(db).lang(db, tree.lang(db)));
    match list_runs(db, list).block(start as usize) {
        [] => Files::default(),
        [run] => markdown_run(db, *run).clone(),
        runs => {
            let mut files: Vec<(Arc<str>, Output)> = runs
                .iter()
                .flat_map(|&run| markdown_run(db, run).iter().cloned())
                .collect();
            files.sort_by(|a, b| a.0.cmp(&b.0));
            files.into()
        }
    }
}

/// The Markdown variants of one run's posts, sorted by path. Names come from validated slugs,
/// so they never contain `/`, `.` or `..`. Reads one query per post (its variant): after a
/// file's first edit, salsa verifies each run's posts edge by edge.
#[salsa::tracked(returns(ref))]
fn markdown_run<'db>(db: &'db dyn salsa::Database, run: Run<'db>) -> Files {
    let mut files: Vec<(Arc<str>, Output)> = run
        .files(db)
        .iter()
        .filter_map(|&file| {
            let variant = docs::post_markdown(db, file).as_ref()?;
            Some((variant.file.clone(), variant.output.clone()))
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.into()
}

/// The timelines of the tags `start..start + RUN` of the language (by name).
#[salsa::tracked(returns(ref))]
fn timeline_files(db: &dyn salsa::Database, tree: LangTree, start: u32) -> Files {
    let lang = tree.lang(db);
    let tags = tag_names(db, tree);
    tags[run_range(start, tags.len())]
        .iter()
        .filter_map(|tag| {
            let members = tag_members(db, tree, tag)?;
            Some((
                Arc::from(timeline_path(lang, tag)),
                tag_timeline_json(db, members).clone(),
            ))
        })
        .collect()
}

/// The details of the series `start..start + RUN` of the language (by name).
#[salsa::tracked(returns(ref))]
fn series_files(db: &dyn salsa::Database, tree: LangTree, start: u32) -> Files {
    let lang = tree.lang(db);
    let names = series_names(db, tree);
    names[run_range(start, names.len())]
        .iter()
        .filter_map(|name| {
            let members = series_members(db, tree, name)?;
            Some((
                Arc::from(series_path(lang, name)),
                series_detail_json(db, members).clone(),
            ))
        })
        .collect()
}

/// The bytes of one site-wide document.
pub fn render_output(db: &dyn salsa::Database, file: &OutputFile) -> Output {
    let site = Globals::get(db);
    match &file.kind {
        OutputKind::ApiIndex => api_index_json(db).clone(),
        OutputKind::AllPosts => all_posts_json(db).clone(),
        OutputKind::Posts(lang) => posts_json(db, site.tree(db, *lang)).clone(),
        OutputKind::SeriesListing(lang) => series_listing_json(db, site.tree(db, *lang)).clone(),
        OutputKind::Slides(lang) => slides_json(db, site.tree(db, *lang)).clone(),
        OutputKind::LlmsTxt => docs::llms_txt(db).clone(),
        OutputKind::LlmsFullTxt => docs::llms_full_txt(db).clone(),
        OutputKind::Skill { file, .. } => docs::skill_file(db, *file)
            .as_ref()
            .map(|skill| skill.output.clone())
            .expect("planned skills are readable"),
        OutputKind::SkillsIndex => docs::skills_index_json(db).clone(),
        OutputKind::AiCatalog => docs::ai_catalog_json(db).clone(),
        OutputKind::Developers => docs::developer_docs(db).html.clone(),
        OutputKind::DevelopersMarkdown => docs::developer_docs(db).markdown.clone(),
        OutputKind::Redirects => redirects_file(db).clone(),
        OutputKind::NginxGone => super::nginx::gone_file(db).clone(),
        OutputKind::Worker => super::cloudflare::worker_file(db).clone(),
        OutputKind::Headers => super::host_files::headers_output(db).clone(),
        OutputKind::ConfigOnly => config_only_files(db)
            .get(&file.path)
            .cloned()
            .expect("planned static documents exist"),
    }
}
