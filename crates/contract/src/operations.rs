//! The operations of the contract: one table feeds the API index and `openapi.json`. The post
//! list of one language is one operation per language of the site ([`operations`]): the seed's
//! eight are `listPostsInEnglish` and `listPostsInSpanish` among them.

use crate::languages::{english_name, operation_suffix, slug_languages};
use crate::model::{Lang, Languages};
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// A path parameter of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathParam {
    /// `{lang}`: one of the site's languages.
    Lang,
    /// `{slug}`: a series.
    Slug,
    /// `{tag}`: a tag.
    Tag,
}

impl PathParam {
    /// The parameter's name in path templates and in `openapi.json`.
    pub fn name(self) -> &'static str {
        match self {
            PathParam::Lang => "lang",
            PathParam::Slug => "slug",
            PathParam::Tag => "tag",
        }
    }

    /// What the parameter means on a site with `languages`, for `openapi.json`, the developer
    /// portal and the MCP tools.
    pub fn description(self, languages: &Languages) -> String {
        slug_languages(languages).reword(self.seed_description())
    }

    /// What the parameter means on the seed's site.
    fn seed_description(self) -> &'static str {
        match self {
            PathParam::Lang => "Content language. Any other value yields 404.",
            PathParam::Slug => {
                "A series slug, always English. Valid values come from listSeries or getApiIndex."
            }
            PathParam::Tag => "A tag name. Valid values come from getApiIndex.",
        }
    }
}

impl Operation {
    /// The output file (relative to the output folder) that answers the operation for these
    /// parameter values, in the order of `params`: the path template is the one source of
    /// every API path, for the plan as for `openapi.json`.
    pub fn file(&self, values: &[&str]) -> String {
        debug_assert_eq!(values.len(), self.params.len(), "{}", self.id);
        let path = self
            .params
            .iter()
            .zip(values)
            .fold(self.path_template.to_string(), |path, (param, value)| {
                path.replace(&format!("{{{}}}", param.name()), value)
            });
        path.trim_start_matches('/').to_string()
    }

    /// The operation with this `operationId`, one of the operations every site has (not a
    /// language's post list: [`Operation::posts_in`]).
    pub fn by_id(id: &str) -> &'static Operation {
        OPERATIONS
            .iter()
            .find(|op| op.id == id && !op.per_language())
            .unwrap_or_else(|| panic!("no operation {id}"))
    }

    /// The post list of one language (`listPostsInEnglish`, `/api/posts-en.json`). Made once
    /// per language a process meets, like the language itself.
    pub fn posts_in(lang: Lang) -> &'static Operation {
        static MADE: OnceLock<Mutex<BTreeMap<Lang, &'static Operation>>> = OnceLock::new();
        let made = MADE.get_or_init(Mutex::default);
        let mut made = made.lock().unwrap_or_else(|e| e.into_inner());
        made.entry(lang).or_insert_with(|| {
            let name = english_name(lang);
            let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
            Box::leak(Box::new(Operation {
                id: leak(format!("listPostsIn{}", operation_suffix(lang))),
                tag: POSTS_IN_LANGUAGE.tag,
                path_template: leak(format!("/api/posts-{lang}.json")),
                summary: leak(format!("Every published {name} post")),
                description: leak(format!("Every published {name} post, newest first.")),
                params: &[],
                response: POSTS_IN_LANGUAGE.response,
            }))
        })
    }

    /// Whether this is the template of the per-language post lists (in [`OPERATIONS`] only).
    fn per_language(&self) -> bool {
        self.id == POSTS_IN_LANGUAGE.id
    }
}

/// Every operation of a site with `languages`, in the order the index, `openapi.json` and the
/// portal list them: the post list once per language, in the site's order.
pub fn operations(languages: &Languages) -> Vec<&'static Operation> {
    OPERATIONS
        .iter()
        .flat_map(|op| {
            if op.per_language() {
                languages
                    .all()
                    .iter()
                    .map(|&lang| Operation::posts_in(lang))
                    .collect()
            } else {
                vec![op]
            }
        })
        .collect()
}

/// The site's languages, from the per-language post lists (`/api/posts-{lang}.json`) among the
/// endpoints of its API index, in the index's order: the default first. What a client of a
/// site (`content-api mcp`, `verify`) knows of its languages.
pub fn languages_listed(endpoints: &[serde_json::Value]) -> Result<Languages, String> {
    let langs: Vec<Lang> = endpoints
        .iter()
        .filter_map(|endpoint| {
            let template = endpoint["pathTemplate"].as_str()?;
            let code = template
                .strip_prefix("/api/posts-")?
                .strip_suffix(".json")?;
            Lang::parse(code)
                .filter(|&lang| Operation::posts_in(lang).id == endpoint["operationId"])
        })
        .collect();
    if langs.is_empty() {
        return Err("the API lists no post list of a language (/api/posts-{lang}.json)".into());
    }
    Languages::new(langs).ok_or_else(|| "the API lists a language twice".to_string())
}

/// The place of the per-language post lists in [`OPERATIONS`].
const POSTS_IN_LANGUAGE: Operation = Operation {
    id: "listPostsIn{Language}",
    tag: "posts",
    path_template: "/api/posts-{lang}.json",
    summary: "Every published post of one language",
    description: "Every published post of one language, newest first.",
    params: &[],
    response: "PostIndex",
};

/// The groups of operations (OpenAPI `tags`), with what each holds.
pub const OPERATION_TAGS: [(&str, &str); 5] = [
    ("index", "The entry point: every endpoint and document."),
    ("posts", "The search indexes of published posts."),
    ("series", "Series and their chapters."),
    ("timelines", "Posts by tag."),
    ("slides", "Slide decks."),
];

/// One operation: its id, path template, and the wire type it returns.
#[derive(Debug)]
pub struct Operation {
    /// The `operationId`, also the anchor of the operation in the developer portal.
    pub id: &'static str,
    /// Its group, one of `OPERATION_TAGS`.
    pub tag: &'static str,
    /// The URL path with `{param}` placeholders, e.g. `/api/timeline/{lang}/{tag}.json`.
    pub path_template: &'static str,
    /// A one-line title.
    pub summary: &'static str,
    /// What the operation answers, for `openapi.json` and the portal.
    pub description: &'static str,
    /// The placeholders of `path_template`, in order.
    pub params: &'static [PathParam],
    /// The name of the response schema in `components.schemas`.
    pub response: &'static str,
}

/// The operations of the contract, in the order the index, `openapi.json` and the portal list
/// them, with the per-language post list as one template entry: [`operations`] gives a site's.
const OPERATIONS: [Operation; 7] = [
    Operation {
        id: "getApiIndex",
        tag: "index",
        path_template: "/api/index.json",
        summary: "API entry point",
        description: "Lists every endpoint with its resolved URLs, the versioning policy, the authentication model and links to the machine-readable documents.",
        params: &[],
        response: "ApiIndex",
    },
    Operation {
        id: "listPosts",
        tag: "posts",
        path_template: "/api/posts.json",
        summary: "Every published post in every language",
        description: "Every published post in every language, newest first.",
        params: &[],
        response: "PostIndex",
    },
    POSTS_IN_LANGUAGE,
    Operation {
        id: "listSeries",
        tag: "series",
        path_template: "/api/series/{lang}/index.json",
        summary: "Series of a language",
        description: "Every series with at least one published post in the language, newest activity first.",
        params: &[PathParam::Lang],
        response: "SeriesListing",
    },
    Operation {
        id: "getSeries",
        tag: "series",
        path_template: "/api/series/{lang}/{slug}.json",
        summary: "One series with its chapters",
        description: "Every published chapter of one series in reading order.",
        params: &[PathParam::Lang, PathParam::Slug],
        response: "SeriesDetail",
    },
    Operation {
        id: "getTimelineByTag",
        tag: "timelines",
        path_template: "/api/timeline/{lang}/{tag}.json",
        summary: "Posts carrying a tag",
        description: "Every published post carrying the tag in the language, newest first.",
        params: &[PathParam::Lang, PathParam::Tag],
        response: "TagTimeline",
    },
    Operation {
        id: "getSlidesTimeline",
        tag: "slides",
        path_template: "/api/slides-timeline/{lang}.json",
        summary: "Slide decks of a language",
        description: "Every published slide deck in the language, newest first, covering all three deck types.",
        params: &[PathParam::Lang],
        response: "SlidesTimeline",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_from_the_path_templates() {
        assert_eq!(Operation::by_id("listPosts").file(&[]), "api/posts.json");
        assert_eq!(
            Operation::by_id("getTimelineByTag").file(&["es", "rust"]),
            "api/timeline/es/rust.json"
        );
        assert_eq!(
            Operation::by_id("getSeries").file(&["en", "intro"]),
            "api/series/en/intro.json"
        );
    }

    #[test]
    fn each_language_has_its_post_list() {
        let ko = Lang::parse("ko").unwrap();
        let langs = Languages::new(vec![ko, Lang::EN]).unwrap();
        let ids: Vec<&str> = operations(&langs).iter().map(|op| op.id).collect();
        assert_eq!(
            ids,
            [
                "getApiIndex",
                "listPosts",
                "listPostsInKorean",
                "listPostsInEnglish",
                "listSeries",
                "getSeries",
                "getTimelineByTag",
                "getSlidesTimeline"
            ]
        );
        let korean = Operation::posts_in(ko);
        assert_eq!(korean.file(&[]), "api/posts-ko.json");
        assert_eq!(korean.summary, "Every published Korean post");
        assert!(std::ptr::eq(korean, Operation::posts_in(ko)));
        assert_eq!(operations(&Languages::seed()).len(), 8);
    }
}
