//! Which output files exist, in groups that a rebuild can skip as a whole.
//!
//! Every output belongs to one group: the site-wide documents (indexes, listings, discovery
//! documents, configuration-only and host files), the large aggregate documents, and runs of
//! [`RUN`] per-post Markdown variants, tag timelines and series details per language. This module says which files
//! exist and where; `assemble` renders them. After an edit, a group whose inputs did not change
//! is verified in O(1) (durability) and returns the very same list, which the publisher skips
//! without looking inside. So a rebuild looks at the few groups an edit reached, not at every
//! one of the corpus's files.

use super::config_only::config_only_files;
use super::docs;
use super::runs::RUN;
use crate::db::{Globals, LangTree, SourceFile};
use crate::derive::{published_posts, series_names, tag_names};
use crate::documents::{self, Pick};
use crate::http;
use crate::model::Lang;
use crate::operations::Operation;
use crate::paths;
use std::sync::Arc;

fn op(id: &str) -> &'static Operation {
    Operation::by_id(id)
}

/// Whether an output path is part of the API (and so remembered by the publishing history, to
/// answer 410 once it is gone): everything under `api/`.
pub fn is_api_path(path: &str) -> bool {
    http::is_api_path(path)
}

/// What a site-wide document is, which decides the query that renders it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    ApiIndex,
    AllPosts,
    Posts(Lang),
    SeriesListing(Lang),
    Slides(Lang),
    LlmsTxt,
    LlmsFullTxt,
    /// A published agent skill, copied as it is.
    Skill {
        name: Arc<str>,
        file: SourceFile,
    },
    SkillsIndex,
    AiCatalog,
    Developers,
    DevelopersMarkdown,
    /// `_redirects`: depends on the history of published paths as well as the content.
    Redirects,
    /// `_nginx_gone.conf`: the removed paths, for the nginx server block.
    NginxGone,
    /// The Cloudflare Pages edge layer, with the removed paths: `_worker.js`, or
    /// `_content-api.js` when the site's Pages Functions import it.
    Worker,
    /// `_headers`: the API's and the documents' headers (the skills' among them).
    Headers,
    /// A document that depends on the configuration only (OpenAPI, error bodies...).
    ConfigOnly,
}

pub use crate::documents::Lane;

/// The outputs of the documents lane: `llms-full.txt` (every post's text, tens of megabytes on a
/// large site), `llms.txt` (every series, tag and deck) and the developer portal (whose example
/// responses excerpt API outputs): the rows of `contract::documents::OUTPUT_DOCUMENTS` in
/// [`Lane::Documents`]. Their paths never depend on the content, and no other output reads their
/// bytes, so while they lag the API every URL still resolves and every API file is the one a
/// fresh build writes.
pub const DOCUMENTS_LANE_FILES: [&str; IN_DOCUMENTS_LANE] =
    documents::files(Pick::InLane(Lane::Documents));

const IN_DOCUMENTS_LANE: usize = documents::count(Pick::InLane(Lane::Documents));

/// One site-wide document, by its path relative to the output folder.
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
            OutputKind::ApiIndex => op("getApiIndex").file(&[]),
            OutputKind::AllPosts => op("listPosts").file(&[]),
            OutputKind::Posts(lang) => Operation::posts_in(*lang).file(&[]),
            OutputKind::SeriesListing(lang) => op("listSeries").file(&[lang.as_str()]),
            OutputKind::Slides(lang) => op("getSlidesTimeline").file(&[lang.as_str()]),
            OutputKind::LlmsTxt => paths::LLMS_TXT.into(),
            OutputKind::LlmsFullTxt => paths::LLMS_FULL_TXT.into(),
            OutputKind::Skill { name, .. } => docs::skill_output_file(name),
            OutputKind::SkillsIndex => paths::AGENT_SKILLS_INDEX.into(),
            OutputKind::AiCatalog => paths::AI_CATALOG.into(),
            OutputKind::Developers => paths::DEVELOPERS_HTML.into(),
            OutputKind::DevelopersMarkdown => paths::DEVELOPERS_MD.into(),
            OutputKind::Redirects => "_redirects".into(),
            OutputKind::NginxGone => http::NGINX_GONE_FILE.into(),
            OutputKind::Worker => unreachable!("the edge module's path depends on the site"),
            OutputKind::Headers => "_headers".into(),
            OutputKind::ConfigOnly => unreachable!("static documents carry their own paths"),
        }
    }
}

/// The site-wide documents, sorted by path. Re-runs when a skill appears or disappears (or the
/// configuration changes); backdates otherwise.
#[salsa::tracked(returns(ref))]
pub fn site_wide_files(db: &dyn salsa::Database) -> Arc<[OutputFile]> {
    let config = Globals::get(db).config(db);
    let mut kinds = vec![
        OutputKind::ApiIndex,
        OutputKind::AllPosts,
        OutputKind::LlmsTxt,
        OutputKind::LlmsFullTxt,
        OutputKind::SkillsIndex,
        OutputKind::AiCatalog,
        OutputKind::Developers,
        OutputKind::DevelopersMarkdown,
        OutputKind::NginxGone,
        OutputKind::Headers,
    ];
    if config.hosting.netlify {
        kinds.push(OutputKind::Redirects);
    }
    kinds.extend(
        docs::published_skills(db)
            .iter()
            .map(|(name, file)| OutputKind::Skill {
                name: name.clone(),
                file: *file,
            }),
    );
    for &lang in config.languages.all() {
        kinds.push(OutputKind::Posts(lang));
        kinds.push(OutputKind::SeriesListing(lang));
        kinds.push(OutputKind::Slides(lang));
    }
    let mut files: Vec<OutputFile> = kinds
        .into_iter()
        .map(|kind| OutputFile {
            path: kind.path().into(),
            kind,
        })
        .collect();
    files.push(OutputFile {
        path: http::edge_module_path(config).into(),
        kind: OutputKind::Worker,
    });
    files.extend(config_only_files(db).keys().map(|path| OutputFile {
        path: path.clone(),
        kind: OutputKind::ConfigOnly,
    }));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.into()
}

/// A group of output files (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputGroup {
    /// The site-wide documents of the API lane.
    SiteWide,
    /// The site-wide documents of the documents lane ([`DOCUMENTS_LANE_FILES`]).
    DocumentsLane,
    /// The Markdown variants of a run of one language's published posts (newest first).
    PostMarkdown {
        /// The language's files.
        tree: LangTree,
        /// The index of the run's first item in that order (a run holds at most `RUN`).
        start: u32,
    },
    /// A run of one language's tag timelines (by tag).
    Timelines {
        /// The language's files.
        tree: LangTree,
        /// The index of the run's first item in that order (a run holds at most `RUN`).
        start: u32,
    },
    /// A run of one language's series details (by series name).
    SeriesDetails {
        /// The language's files.
        tree: LangTree,
        /// The index of the run's first item in that order (a run holds at most `RUN`).
        start: u32,
    },
}

impl OutputGroup {
    /// The lane that publishes the group: the per-post Markdown twins, timelines and series
    /// details are the edited posts' own outputs and the API, so only the aggregates lag.
    pub fn lane(self) -> Lane {
        match self {
            OutputGroup::DocumentsLane => Lane::Documents,
            OutputGroup::SiteWide
            | OutputGroup::PostMarkdown { .. }
            | OutputGroup::Timelines { .. }
            | OutputGroup::SeriesDetails { .. } => Lane::Api,
        }
    }
}

/// Every group of the output. Re-runs when a list grows or shrinks past a run boundary's worth
/// of entries; backdates otherwise.
#[salsa::tracked(returns(ref))]
pub fn output_groups(db: &dyn salsa::Database) -> Arc<[OutputGroup]> {
    let starts = |len: usize| (0..len).step_by(RUN).map(|start| start as u32);
    let mut groups = vec![OutputGroup::SiteWide, OutputGroup::DocumentsLane];
    for &tree in Globals::get(db).trees(db).iter() {
        groups.extend(
            starts(published_posts(db, tree).len())
                .map(|start| OutputGroup::PostMarkdown { tree, start }),
        );
        groups.extend(
            starts(tag_names(db, tree).len()).map(|start| OutputGroup::Timelines { tree, start }),
        );
        groups.extend(
            starts(series_names(db, tree).len())
                .map(|start| OutputGroup::SeriesDetails { tree, start }),
        );
    }
    groups.into()
}

/// Every API output path (the ones the publishing history remembers), sorted. Backdates unless
/// a tag, series or site document appeared or disappeared.
#[salsa::tracked(returns(ref))]
pub fn api_output_paths(db: &dyn salsa::Database) -> Arc<[Arc<str>]> {
    let mut paths: Vec<Arc<str>> = site_wide_files(db)
        .iter()
        .map(|file| file.path.clone())
        .filter(|path| is_api_path(path))
        .collect();
    for &tree in Globals::get(db).trees(db).iter() {
        let lang = tree.lang(db);
        paths.extend(
            tag_names(db, tree)
                .iter()
                .map(|tag| Arc::from(timeline_path(lang, tag))),
        );
        paths.extend(
            series_names(db, tree)
                .iter()
                .map(|name| Arc::from(series_path(lang, name))),
        );
    }
    paths.sort();
    paths.into()
}

/// The file of a tag's timeline.
pub fn timeline_path(lang: Lang, tag: &str) -> String {
    op("getTimelineByTag").file(&[lang.as_str(), tag])
}

/// The file of a series' detail.
pub fn series_path(lang: Lang, name: &str) -> String {
    op("getSeries").file(&[lang.as_str(), name])
}
