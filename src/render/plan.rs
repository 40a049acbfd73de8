//! Which output files exist, and how each one is rendered.

use super::docs;
use super::hosting::redirects_file;
use super::index::api_index_json;
use super::output::Output;
use super::posts::{all_posts_json, posts_json};
use super::slides::slides_json;
use super::static_docs::static_documents;
use super::timelines::{series_detail_json, series_listing_json, tag_timeline_json};
use crate::db::{SeriesMembers, Site, SourceFile, TagMembers};
use crate::derive::{published_posts, series_members, series_names, tag_members, tag_names};
use crate::model::Lang;
use std::sync::Arc;

/// What an output file is, which decides the query that renders it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    ApiIndex,
    AllPosts,
    Posts(Lang),
    SeriesListing(Lang),
    /// A series detail: its language and name (the path), and its members input.
    SeriesDetail(Lang, Arc<str>, SeriesMembers),
    /// A tag timeline: its language and tag (the path), and its members input.
    TagTimeline(Lang, Arc<str>, TagMembers),
    Slides(Lang),
    /// A published post's Markdown variant.
    PostMarkdown {
        lang: Lang,
        slug: Arc<str>,
        file: SourceFile,
    },
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
            OutputKind::SeriesDetail(lang, name, _) => format!("api/series/{lang}/{name}.json"),
            OutputKind::TagTimeline(lang, tag, _) => format!("api/timeline/{lang}/{tag}.json"),
            OutputKind::Slides(lang) => format!("api/slides-timeline/{lang}.json"),
            OutputKind::PostMarkdown { lang, slug, .. } => docs::post_markdown_file(*lang, slug),
            OutputKind::LlmsTxt => docs::LLMS_TXT.into(),
            OutputKind::LlmsFullTxt => docs::LLMS_FULL_TXT.into(),
            OutputKind::Skill { name, .. } => docs::skill_output_file(name),
            OutputKind::SkillsIndex => docs::AGENT_SKILLS_INDEX.into(),
            OutputKind::AiCatalog => docs::AI_CATALOG.into(),
            OutputKind::Developers => docs::DEVELOPERS_HTML.into(),
            OutputKind::DevelopersMarkdown => docs::DEVELOPERS_MD.into(),
            OutputKind::Redirects => "_redirects".into(),
            OutputKind::Static => unreachable!("static documents carry their own paths"),
        }
    }
}

/// Every output file, sorted by path. Re-runs when a tag, series, published post or skill
/// appears or disappears; backdates otherwise.
#[salsa::tracked(returns(ref))]
pub fn output_plan(db: &dyn salsa::Database) -> Arc<[OutputFile]> {
    let site = Site::get(db);
    let mut kinds = vec![
        OutputKind::ApiIndex,
        OutputKind::AllPosts,
        OutputKind::LlmsTxt,
        OutputKind::LlmsFullTxt,
        OutputKind::SkillsIndex,
        OutputKind::AiCatalog,
        OutputKind::Developers,
        OutputKind::DevelopersMarkdown,
        OutputKind::Redirects,
    ];
    kinds.extend(
        docs::published_skills(db)
            .iter()
            .map(|(name, file)| OutputKind::Skill {
                name: name.clone(),
                file: *file,
            }),
    );
    for tree in site.trees(db) {
        let lang = tree.lang(db);
        kinds.extend(published_posts(db, tree).iter().map(|(key, file)| {
            let slug = key.id.split_once('_').map_or(&*key.id, |(_, slug)| slug);
            OutputKind::PostMarkdown {
                lang,
                slug: slug.into(),
                file: *file,
            }
        }));
        kinds.push(OutputKind::Posts(lang));
        kinds.push(OutputKind::SeriesListing(lang));
        kinds.push(OutputKind::Slides(lang));
        kinds.extend(series_names(db, tree).iter().filter_map(|name| {
            let members = series_members(db, tree, name)?;
            Some(OutputKind::SeriesDetail(lang, name.clone(), members))
        }));
        kinds.extend(tag_names(db, tree).iter().filter_map(|tag| {
            let members = tag_members(db, tree, tag)?;
            Some(OutputKind::TagTimeline(lang, tag.clone(), members))
        }));
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
        OutputKind::SeriesDetail(_, _, members) => series_detail_json(db, *members).clone(),
        OutputKind::TagTimeline(_, _, members) => tag_timeline_json(db, *members).clone(),
        OutputKind::Slides(lang) => slides_json(db, site.tree(db, *lang)).clone(),
        OutputKind::PostMarkdown { file, .. } => docs::post_markdown(db, *file)
            .as_ref()
            .map(|variant| variant.output.clone())
            .expect("planned posts are published"),
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
        OutputKind::Static => static_documents(db)
            .get(&file.path)
            .cloned()
            .expect("planned static documents exist"),
    }
}
