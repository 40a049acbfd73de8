//! The media type of a served file, from its path.
//!
//! This is the table `_headers` gives static hosts (`render::hosting`), so local and production
//! answers agree. It is deliberately coarser than `render::media_type`, which the catalogs use
//! to announce the specific types of the AI catalog and MCP server card: the server sends the
//! contract's `application/json` for every `.json` file.

/// The `Content-Type` of the output file at `path` (relative to the output folder).
pub fn media_type(path: &str) -> &'static str {
    if path == ".well-known/api-catalog" {
        return "application/linkset+json";
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("json") => "application/json",
        Some("md") => "text/markdown; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("html") => "text/html; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::media_type;

    #[test]
    fn each_kind_of_output_has_its_type() {
        assert_eq!(media_type("api/posts.json"), "application/json");
        assert_eq!(media_type("openapi.json"), "application/json");
        assert_eq!(
            media_type(".well-known/api-catalog"),
            "application/linkset+json"
        );
        assert_eq!(
            media_type(".well-known/ai-catalog.json"),
            "application/json"
        );
        assert_eq!(media_type("auth.md"), "text/markdown; charset=utf-8");
        assert_eq!(
            media_type("developers/index.html.md"),
            "text/markdown; charset=utf-8"
        );
        assert_eq!(media_type("llms.txt"), "text/plain; charset=utf-8");
        assert_eq!(media_type("404.html"), "text/html; charset=utf-8");
        assert_eq!(media_type("a.dir/README"), "application/octet-stream");
    }
}
