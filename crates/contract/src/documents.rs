//! The output documents: one row per document the tool publishes at a fixed path outside the
//! API, with every fact about it that more than one part of the tool needs.
//!
//! [`OUTPUT_DOCUMENTS`] is the single statement of those facts. The lists the other crates
//! read are derived from it: the engine's `LISTED_DOCUMENTS` (the links of `api/index.json`, the
//! catalogs, the portal's table, `_headers`) and `DOCUMENTS_LANE_FILES` (the documents lane),
//! `write`'s `YIELDS_TO_SITE` and recorded documents, the edge layer's Markdown twin pages and
//! `verify`'s discovery check. The arrays are built at compile time ([`count`], [`files`],
//! [`rows`]), so their lengths follow the table.

use crate::paths;

/// Which lane of a watch-mode rebuild publishes an output. `--once` (and the first build of a
/// session) publishes both lanes at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// The API, every file that must agree with it (the host files that route and answer for
    /// its paths, the catalogs, the error documents) and the edited posts' own outputs (their
    /// Markdown twins): published first, on the path from a save to its outputs.
    Api,
    /// The large aggregates that are not part of the API contract's JSON: published after the
    /// API lane once edits pause, so a burst of saves rewrites them once.
    Documents,
}

impl Lane {
    /// The lane's name in log lines and in the change stream.
    pub fn name(self) -> &'static str {
        match self {
            Lane::Api => "api",
            Lane::Documents => "documents",
        }
    }
}

/// How a document listed for agents and tools is named: `api/index.json` links it under
/// `name`, and the AI catalog, `llms.txt` and the portal show `title` and `purpose`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The key in the index's `links`.
    pub name: &'static str,
    /// A short human-readable name.
    pub title: &'static str,
    /// What it is for, in one line.
    pub purpose: &'static str,
}

/// Whether the tool's document gives way to a file of the site's at the same path (the output
/// folder is often the site generator's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yields {
    /// Never: a file of another owner there is a collision.
    Never,
    /// Always: the site's own file wins, and the tool records the hash of what it wrote there.
    ToSitesOwn,
    /// Only while it lists no skill (an empty agent skills index).
    WhenItListsNoSkill,
}

/// What `content-api verify` checks of the document on a deployed site. Besides, every listed
/// document but the AI catalog itself is requested by the catalog check, which compares its
/// `Content-Type` with the type the AI catalog declares for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verified {
    /// It answers 200 at its path with its media type and the documents' caching and CORS.
    AtItsPath,
    /// Its page negotiates Markdown (its twin) against HTML by `Accept`, with `Vary: Accept`.
    Negotiated,
    /// An unknown page outside the API answers 404.
    ForUnknownPages,
    /// Only the catalog check.
    ThroughTheCatalog,
}

/// One output document (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputDocument {
    /// The output file, relative to the output folder.
    pub file: &'static str,
    /// The site-absolute URL path it is served at (the file itself, or its folder's page).
    pub path: &'static str,
    /// The `Content-Type` it is served with (`media::media_type` of its file reads it).
    pub media: &'static str,
    /// How agents and tools find it, or `None` when nothing lists it.
    pub listing: Option<Listing>,
    /// The lane that publishes it.
    pub lane: Lane,
    /// Whether a site's own file at its path wins.
    pub yields: Yields,
    /// The page (a site-absolute path) this document is the Markdown twin of: the edge layer
    /// answers that page with it for `Accept: text/markdown`.
    pub twin_of: Option<&'static str>,
    /// What `verify` checks of it.
    pub verified: Verified,
}

const JSON: &str = "application/json";
const MARKDOWN: &str = "text/markdown; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// Every output document. The listed ones are in the order `api/index.json`, the catalogs and
/// the portal list them.
pub const OUTPUT_DOCUMENTS: [OutputDocument; 12] = [
    OutputDocument {
        file: paths::NOT_FOUND_PAGE,
        path: "/404.html",
        media: HTML,
        listing: None,
        lane: Lane::Api,
        yields: Yields::ToSitesOwn,
        twin_of: None,
        verified: Verified::ForUnknownPages,
    },
    OutputDocument {
        file: paths::OPENAPI,
        path: "/openapi.json",
        media: JSON,
        listing: Some(Listing {
            name: "openapi",
            title: "OpenAPI description",
            purpose: "OpenAPI 3.1 description of every operation, generated from the types that produce the files.",
        }),
        lane: Lane::Api,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::DEVELOPERS_HTML,
        path: "/developers",
        media: HTML,
        listing: Some(Listing {
            name: "developers",
            title: "Developer documentation",
            purpose: "Quickstart, every endpoint with a live example, the error model, versioning, authentication and limits.",
        }),
        lane: Lane::Documents,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::Negotiated,
    },
    OutputDocument {
        file: paths::DEVELOPERS_MD,
        path: "/developers.md",
        media: MARKDOWN,
        listing: Some(Listing {
            name: "developers_markdown",
            title: "Developer documentation (Markdown)",
            purpose: "The developer documentation as Markdown, for agents.",
        }),
        lane: Lane::Documents,
        yields: Yields::Never,
        twin_of: Some("/developers"),
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::LLMS_TXT,
        path: "/llms.txt",
        media: TEXT,
        listing: Some(Listing {
            name: "llms_txt",
            title: "llms.txt",
            purpose: "Curated site map for language models (llmstxt.org format).",
        }),
        lane: Lane::Documents,
        yields: Yields::ToSitesOwn,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::LLMS_FULL_TXT,
        path: "/llms-full.txt",
        media: TEXT,
        listing: Some(Listing {
            name: "llms_full_txt",
            title: "llms-full.txt",
            purpose: "Every published post with its Markdown body, for retrieval and grounding.",
        }),
        lane: Lane::Documents,
        yields: Yields::ToSitesOwn,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::AUTH_MD,
        path: "/auth.md",
        media: MARKDOWN,
        listing: Some(Listing {
            name: "auth",
            title: "Access policy",
            purpose: "Everything is public, anonymous and read-only: no keys, no accounts, no tiers.",
        }),
        lane: Lane::Api,
        yields: Yields::ToSitesOwn,
        twin_of: Some("/auth"),
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::API_CATALOG,
        path: "/.well-known/api-catalog",
        media: "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
        listing: Some(Listing {
            name: "api_catalog",
            title: "API catalog",
            purpose: "RFC 9727 linkset pointing at the API, its OpenAPI description and its documentation.",
        }),
        lane: Lane::Api,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::AI_CATALOG,
        path: "/.well-known/ai-catalog.json",
        media: "application/ai-catalog+json",
        listing: Some(Listing {
            name: "ai_catalog",
            title: "AI catalog",
            purpose: "Manifest of every agent-facing artifact the site publishes.",
        }),
        lane: Lane::Api,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::MCP_SERVER_CARD,
        path: "/.well-known/mcp/server-card.json",
        media: "application/mcp-server-card+json",
        listing: Some(Listing {
            name: "mcp_server_card",
            title: "MCP server card",
            purpose: "Server card for the read-only site tools, each mapped onto API operations, and how to reach them: in the browser and over stdio.",
        }),
        lane: Lane::Api,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
    OutputDocument {
        file: paths::MCP_TOOLS_MODULE,
        path: "/.well-known/mcp/tools.js",
        media: "text/javascript; charset=utf-8",
        listing: Some(Listing {
            name: "mcp_tools_module",
            title: "Browser tools (WebMCP)",
            purpose: "ES module that registers the server card's tools with the browser's WebMCP API; a page adds it with one script tag.",
        }),
        lane: Lane::Api,
        yields: Yields::Never,
        twin_of: None,
        verified: Verified::ThroughTheCatalog,
    },
    OutputDocument {
        file: paths::AGENT_SKILLS_INDEX,
        path: "/.well-known/agent-skills/index.json",
        media: JSON,
        listing: Some(Listing {
            name: "agent_skills",
            title: "Agent skills index",
            purpose: "Discovery index of the agent skills the site publishes, with SHA-256 digests.",
        }),
        lane: Lane::Api,
        yields: Yields::WhenItListsNoSkill,
        twin_of: None,
        verified: Verified::AtItsPath,
    },
];

/// A selection of rows, for the arrays derived at compile time (a `const fn` cannot call a
/// closure).
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// The rows with a listing.
    Listed,
    /// The rows of a lane.
    InLane(Lane),
    /// The rows that always yield to the site's own file.
    YieldingAlways,
}

const fn picks(pick: Pick, row: &OutputDocument) -> bool {
    match pick {
        Pick::Listed => row.listing.is_some(),
        Pick::InLane(lane) => row.lane as u8 == lane as u8,
        Pick::YieldingAlways => matches!(row.yields, Yields::ToSitesOwn),
    }
}

/// How many rows `pick` selects: the length of its arrays.
pub const fn count(pick: Pick) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < OUTPUT_DOCUMENTS.len() {
        if picks(pick, &OUTPUT_DOCUMENTS[i]) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The rows `pick` selects, in table order (`N` is [`count`]`(pick)`, checked at compile time).
pub const fn rows<const N: usize>(pick: Pick) -> [OutputDocument; N] {
    assert!(
        N == count(pick),
        "the array's length is not the selection's"
    );
    let mut out = [OUTPUT_DOCUMENTS[0]; N];
    let (mut i, mut n) = (0, 0);
    while i < OUTPUT_DOCUMENTS.len() {
        if picks(pick, &OUTPUT_DOCUMENTS[i]) {
            out[n] = OUTPUT_DOCUMENTS[i];
            n += 1;
        }
        i += 1;
    }
    out
}

/// The output files of the rows `pick` selects, in table order.
pub const fn files<const N: usize>(pick: Pick) -> [&'static str; N] {
    let rows = rows::<N>(pick);
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = rows[i].file;
        i += 1;
    }
    out
}

/// The row of the output file `file`, if it is an output document.
pub fn by_file(file: &str) -> Option<&'static OutputDocument> {
    OUTPUT_DOCUMENTS.iter().find(|row| row.file == file)
}

/// The lane that publishes the output file `file`: its row's, else the API lane (every output
/// that is not an output document).
pub fn lane_of(file: &str) -> Lane {
    by_file(file).map_or(Lane::Api, |row| row.lane)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_its_file_or_its_folders_page() {
        for row in &OUTPUT_DOCUMENTS {
            let path = row.path.trim_start_matches('/');
            assert!(
                row.file == path || row.file == format!("{path}/index.html"),
                "{} is not served at {}",
                row.file,
                row.path
            );
        }
    }

    #[test]
    fn files_and_names_are_unique() {
        for (at, row) in OUTPUT_DOCUMENTS.iter().enumerate() {
            for other in &OUTPUT_DOCUMENTS[at + 1..] {
                assert_ne!(row.file, other.file);
                if let (Some(a), Some(b)) = (row.listing, other.listing) {
                    assert_ne!(a.name, b.name);
                }
            }
        }
    }

    #[test]
    fn a_twin_is_its_pages_path_with_md_appended() {
        let twins: Vec<_> = OUTPUT_DOCUMENTS
            .iter()
            .filter(|r| r.twin_of.is_some())
            .collect();
        assert!(!twins.is_empty());
        for row in twins {
            assert_eq!(
                Some(row.path),
                row.twin_of.map(|page| format!("{page}.md")).as_deref()
            );
            assert_eq!(row.media, MARKDOWN);
        }
    }

    #[test]
    fn the_compile_time_selections_are_the_filters() {
        let listed: [OutputDocument; count(Pick::Listed)] = rows(Pick::Listed);
        let filtered: Vec<_> = OUTPUT_DOCUMENTS
            .iter()
            .filter(|r| r.listing.is_some())
            .copied()
            .collect();
        assert_eq!(listed.to_vec(), filtered);
        let lagging: [&str; count(Pick::InLane(Lane::Documents))] =
            files(Pick::InLane(Lane::Documents));
        let filtered: Vec<_> = OUTPUT_DOCUMENTS
            .iter()
            .filter(|r| r.lane == Lane::Documents)
            .map(|r| r.file)
            .collect();
        assert_eq!(lagging.to_vec(), filtered);
        for row in &OUTPUT_DOCUMENTS {
            assert_eq!(lane_of(row.file), row.lane);
        }
        assert_eq!(lane_of("api/posts.json"), Lane::Api);
    }
}
