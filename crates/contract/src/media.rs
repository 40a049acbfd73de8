//! The media type of every output file: the single source for the `Content-Type` a server (or a
//! CDN's headers file) sends, and for the media types the discovery documents announce.
//!
//! Hand-written: `mime_guess` types more extensions, but without the charset Cloudflare Pages
//! adds to text types, which `serve` and the nginx block match.

use crate::documents::{self, OUTPUT_DOCUMENTS};

/// The RFC 9727 profile of an API catalog linkset (RFC 9727 section 4.2: the linkset SHOULD
/// carry it as the `profile` parameter of its media type).
pub const API_CATALOG_PROFILE: &str = "https://www.rfc-editor.org/info/rfc9727";

/// Documents with a registered or specified type of their own, as (file, type): the output
/// documents whose media type is not their extension's
/// (`documents::OUTPUT_DOCUMENTS`): the API catalog (`application/linkset+json` with the
/// RFC 9727 profile), the AI catalog (`application/ai-catalog+json`, AI Catalog 1.0 section
/// "Media Type") and the MCP server card (`application/mcp-server-card+json`, MCP server-card
/// extension, "Hosted Server Card Location"). Served with these types, and announced with them
/// by the catalogs.
pub fn document_types() -> impl Iterator<Item = (&'static str, &'static str)> {
    OUTPUT_DOCUMENTS
        .iter()
        .filter(|document| document.media != extension_type(document.file))
        .map(|document| (document.file, document.media))
}

/// Every other file is typed by its extension; text types say UTF-8.
pub const EXTENSION_TYPES: [(&str, &str); 5] = [
    ("json", "application/json"),
    ("js", "text/javascript; charset=utf-8"),
    ("md", "text/markdown; charset=utf-8"),
    ("txt", "text/plain; charset=utf-8"),
    ("html", "text/html; charset=utf-8"),
];

/// A site's own files beside the API (its pages' styles, fonts, images, feeds and media, when
/// a host such as nginx serves the site's whole output folder: Astro's `dist/`, Hugo's
/// `public/`), typed as Cloudflare Pages types them; text types say UTF-8, as Pages adds it.
/// An extension of [`EXTENSION_TYPES`] keeps that table's type, and `.mjs` is typed as `.js`
/// is there (text/javascript, RFC 9239, where Pages says application/javascript).
pub const SITE_TYPES: [(&str, &str); 31] = [
    ("htm", "text/html; charset=utf-8"),
    ("css", "text/css; charset=utf-8"),
    ("mjs", "text/javascript; charset=utf-8"),
    ("map", "application/json"),
    ("webmanifest", "application/manifest+json"),
    ("xml", "application/xml"),
    ("rss", "application/rss+xml"),
    ("atom", "application/atom+xml"),
    ("csv", "text/csv; charset=utf-8"),
    ("ics", "text/calendar; charset=utf-8"),
    ("svg", "image/svg+xml"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("avif", "image/avif"),
    ("ico", "image/vnd.microsoft.icon"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("ttf", "font/ttf"),
    ("otf", "font/otf"),
    ("pdf", "application/pdf"),
    ("mp3", "audio/mpeg"),
    ("ogg", "audio/ogg"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("vtt", "text/vtt; charset=utf-8"),
    ("wasm", "application/wasm"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
];

/// The type of a file that matches neither table.
pub const DEFAULT_TYPE: &str = "application/octet-stream";

/// The media type of the output file at `path` (relative to the output folder, with or without
/// a leading `/`): an output document's own, else its extension's.
pub fn media_type(path: &str) -> &'static str {
    let path = path.strip_prefix('/').unwrap_or(path);
    documents::by_file(path).map_or_else(|| extension_type(path), |document| document.media)
}

/// The type [`EXTENSION_TYPES`] gives the file at `path`, or [`DEFAULT_TYPE`].
fn extension_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name.rsplit_once('.').map(|(_, extension)| extension);
    EXTENSION_TYPES
        .iter()
        .find(|(e, _)| Some(*e) == extension)
        .map_or(DEFAULT_TYPE, |(_, media)| media)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_documents_have_a_type_of_their_own() {
        assert_eq!(
            document_types().collect::<Vec<_>>(),
            [
                (
                    ".well-known/api-catalog",
                    "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
                ),
                (".well-known/ai-catalog.json", "application/ai-catalog+json"),
                (
                    ".well-known/mcp/server-card.json",
                    "application/mcp-server-card+json",
                ),
            ]
        );
    }

    #[test]
    fn every_kind_of_output_has_its_type() {
        assert_eq!(media_type("api/posts.json"), "application/json");
        assert_eq!(media_type("/openapi.json"), "application/json");
        assert_eq!(media_type("llms.txt"), "text/plain; charset=utf-8");
        assert_eq!(media_type("es/blog/x.md"), "text/markdown; charset=utf-8");
        assert_eq!(
            media_type("developers/index.html"),
            "text/html; charset=utf-8"
        );
        assert_eq!(
            media_type("/.well-known/api-catalog"),
            format!("application/linkset+json; profile=\"{API_CATALOG_PROFILE}\"")
        );
        assert_eq!(
            media_type(".well-known/ai-catalog.json"),
            "application/ai-catalog+json"
        );
        assert_eq!(
            media_type(".well-known/mcp/server-card.json"),
            "application/mcp-server-card+json"
        );
        assert_eq!(
            media_type(".well-known/agent-skills/index.json"),
            "application/json"
        );
        assert_eq!(
            media_type(".well-known/mcp/tools.js"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(media_type("a/b"), "application/octet-stream");
        assert_eq!(media_type("a.dir/README"), "application/octet-stream");
    }

    /// A site's own files never change the type of one of the API's extensions.
    #[test]
    fn site_types_leave_the_apis_extensions_alone() {
        for (extension, _) in SITE_TYPES {
            assert!(
                EXTENSION_TYPES.iter().all(|(e, _)| *e != extension),
                "{extension} is typed by EXTENSION_TYPES"
            );
            assert_eq!(
                SITE_TYPES.iter().filter(|(e, _)| *e == extension).count(),
                1,
                "{extension} twice"
            );
        }
    }
}
