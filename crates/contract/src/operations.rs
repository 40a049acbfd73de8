//! The eight operations of the contract: one table feeds the API index and `openapi.json`.

/// A path parameter of an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathParam {
    /// `{lang}`: `en` or `es`.
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

    /// What the parameter means, for `openapi.json`, the developer portal and the MCP tools.
    pub fn description(self) -> &'static str {
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

    /// The operation with this `operationId`.
    pub fn by_id(id: &str) -> &'static Operation {
        OPERATIONS
            .iter()
            .find(|op| op.id == id)
            .unwrap_or_else(|| panic!("no operation {id}"))
    }
}

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

/// Every operation of the contract, in the order the index, `openapi.json` and the portal list
/// them.
pub const OPERATIONS: [Operation; 8] = [
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
    Operation {
        id: "listPostsInEnglish",
        tag: "posts",
        path_template: "/api/posts-en.json",
        summary: "Every published English post",
        description: "Every published English post, newest first.",
        params: &[],
        response: "PostIndex",
    },
    Operation {
        id: "listPostsInSpanish",
        tag: "posts",
        path_template: "/api/posts-es.json",
        summary: "Every published Spanish post",
        description: "Every published Spanish post, newest first.",
        params: &[],
        response: "PostIndex",
    },
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
}
