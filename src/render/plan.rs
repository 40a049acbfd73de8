//! Which output files exist, and how each one is rendered.

use super::hosting::redirects_file;
use super::index::{DOCUMENTS, api_index_json};
use super::output::Output;
use super::posts::{all_posts_json, posts_json};
use super::slides::slides_json;
use super::static_docs::static_documents;
use super::timelines::{series_detail_json, series_listing_json, tag_timeline_json};
use crate::db::Site;
use crate::derive::{series_names, tag_names};
use crate::model::Lang;
use std::sync::Arc;

/// What an output file is, which decides the query that renders it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    ApiIndex,
    AllPosts,
    Posts(Lang),
    SeriesListing(Lang),
    SeriesDetail(Lang, Arc<str>),
    TagTimeline(Lang, Arc<str>),
    Slides(Lang),
    /// `_redirects`: depends on the history of published paths as well as the plan.
    Redirects,
    /// A document that depends on the configuration only (OpenAPI, error bodies...).
    Static,
}

/// One file of the output, by its path relative to the output folder.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutputFile {
    pub path: Arc<str>,
    pub kind: OutputKind,
}

impl OutputKind {
    /// The path of the file below the output folder. Names come from validated slugs and tags,
    /// so they never contain `/`, `.` or `..`.
    pub fn path(&self) -> String {
        match self {
            OutputKind::ApiIndex => "api/index.json".into(),
            OutputKind::AllPosts => "api/posts.json".into(),
            OutputKind::Posts(lang) => format!("api/posts-{lang}.json"),
            OutputKind::SeriesListing(lang) => format!("api/series/{lang}/index.json"),
            OutputKind::SeriesDetail(lang, name) => format!("api/series/{lang}/{name}.json"),
            OutputKind::TagTimeline(lang, tag) => format!("api/timeline/{lang}/{tag}.json"),
            OutputKind::Slides(lang) => format!("api/slides-timeline/{lang}.json"),
            OutputKind::Redirects => "_redirects".into(),
            OutputKind::Static => unreachable!("static documents carry their own paths"),
        }
    }
}

/// Every output file, sorted by path. Re-runs when a tag or series appears or disappears;
/// backdates otherwise.
#[salsa::tracked(returns(ref))]
pub fn output_plan(db: &dyn salsa::Database) -> Arc<[OutputFile]> {
    let site = Site::get(db);
    let mut kinds = vec![
        OutputKind::ApiIndex,
        OutputKind::AllPosts,
        OutputKind::Redirects,
    ];
    for tree in site.trees(db) {
        let lang = tree.lang(db);
        kinds.push(OutputKind::Posts(lang));
        kinds.push(OutputKind::SeriesListing(lang));
        kinds.push(OutputKind::Slides(lang));
        kinds.extend(
            series_names(db, tree)
                .iter()
                .map(|name| OutputKind::SeriesDetail(lang, name.clone())),
        );
        kinds.extend(
            tag_names(db, tree)
                .iter()
                .map(|tag| OutputKind::TagTimeline(lang, tag.clone())),
        );
    }
    let mut files: Vec<OutputFile> = kinds
        .into_iter()
        .map(|kind| OutputFile {
            path: kind.path().into(),
            kind,
        })
        .collect();
    files.extend(static_documents(db).keys().map(|path| OutputFile {
        path: path.clone(),
        kind: OutputKind::Static,
    }));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    debug_assert!(
        DOCUMENTS
            .iter()
            .all(|(_, path)| files.iter().any(|f| format!("/{}", f.path) == *path))
    );
    files.into()
}

/// The bytes of one planned file.
pub fn render_output(db: &dyn salsa::Database, file: &OutputFile) -> Output {
    let site = Site::get(db);
    match &file.kind {
        OutputKind::ApiIndex => api_index_json(db).clone(),
        OutputKind::AllPosts => all_posts_json(db).clone(),
        OutputKind::Posts(lang) => posts_json(db, site.tree(db, *lang)).clone(),
        OutputKind::SeriesListing(lang) => series_listing_json(db, site.tree(db, *lang)).clone(),
        OutputKind::SeriesDetail(lang, name) => {
            series_detail_json(db, site.tree(db, *lang), name.clone()).clone()
        }
        OutputKind::TagTimeline(lang, tag) => {
            tag_timeline_json(db, site.tree(db, *lang), tag.clone()).clone()
        }
        OutputKind::Slides(lang) => slides_json(db, site.tree(db, *lang)).clone(),
        OutputKind::Redirects => redirects_file(db).clone(),
        OutputKind::Static => static_documents(db)
            .get(&file.path)
            .cloned()
            .expect("planned static documents exist"),
    }
}
