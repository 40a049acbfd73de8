//! From a request path to the output files that may answer it, refusing anything that could
//! name a file outside the output folder.
//!
//! The path is percent-decoded exactly once; a decoded path with a NUL, a backslash, a `.` or
//! `..` part, an empty part (`//`, which would make the rest absolute), a colon, or a hidden part
//! (other than the leading `.well-known`) is refused. What survives is a relative path made of
//! plain names. `folder` then checks, after resolving symbolic links, that the file is inside
//! the output folder.

use crate::http::{HOST_FILES, is_api_path, markdown_twin};
use percent_encoding::percent_decode_str;

/// A request path that passed the safety rules, relative to the output folder (no leading `/`;
/// a trailing `/` is kept, `""` is the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SafePath(String);

/// Why a request path names no file of the output folder (ordered: a traversal outweighs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refused {
    /// A plain path the output folder never holds (a hidden part, a colon): a site's dev server
    /// may have it (Vite's `/node_modules/.vite/`).
    NotServed,
    /// It tries to leave where it points (a `.` or `..` part, an empty part that makes the rest
    /// absolute, a NUL or a backslash, or bytes that decode to no text): refused, and never
    /// passed on to a site's dev server, which may serve files from anywhere on the machine.
    Traversal,
}

impl SafePath {
    /// Decodes and checks the path of a request (the URI path, without the query).
    pub fn parse(raw: &str) -> Result<SafePath, Refused> {
        let relative = raw.strip_prefix('/').ok_or(Refused::NotServed)?;
        let decoded = percent_decode_str(relative)
            .decode_utf8()
            .map_err(|_| Refused::Traversal)?;
        if decoded.contains(['\0', '\\']) {
            return Err(Refused::Traversal);
        }
        if decoded.is_empty() {
            return Ok(SafePath(String::new()));
        }
        let parts: Vec<&str> = decoded.split('/').collect();
        let last = parts.len() - 1;
        let mut refused = None;
        for (i, part) in parts.iter().enumerate() {
            let problem = match *part {
                // A trailing slash (a folder URL) leaves one empty last part.
                "" if i == last && i > 0 => None,
                "" | "." | ".." => Some(Refused::Traversal),
                ".well-known" if i == 0 => None,
                name if name.starts_with('.') || name.contains(':') => Some(Refused::NotServed),
                _ => None,
            };
            // A traversal anywhere outweighs a hidden part before it.
            refused = refused.max(problem);
        }
        match refused {
            Some(refused) => Err(refused),
            None => Ok(SafePath(decoded.into_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the path is under `/api/`, where every answer is JSON.
    pub fn is_api(&self) -> bool {
        is_api_path(&self.0)
    }

    /// The output files that can answer the request, in order of preference.
    ///
    /// - Under `/api/`: the `.json` file itself, nothing else (no Markdown, no HTML).
    /// - Elsewhere: with `markdown` (the client asked for `text/markdown`), the page's Markdown
    ///   twin first (`http::markdown_twin`: `x.md` for `x`, `x/` and `x/index.html`),
    ///   then the resource;
    ///   a folder URL is answered by its `index.html`, and `x` by `x.html` or `x/index.html`,
    ///   as static hosts do.
    pub fn candidates(&self, markdown: bool) -> Vec<String> {
        let path = &self.0;
        if self.is_api() {
            return if path.ends_with(".json") {
                vec![path.clone()]
            } else {
                Vec::new()
            };
        }
        if HOST_FILES.contains(&path.as_str()) {
            return Vec::new();
        }
        let folder = path.is_empty() || path.ends_with('/');
        let mut out = Vec::new();
        if markdown {
            out.extend(markdown_twin(path));
        }
        if folder {
            out.push(format!("{path}index.html"));
        } else {
            out.push(path.clone());
            if !has_extension(path) {
                out.push(format!("{path}.html"));
                out.push(format!("{path}/index.html"));
            }
        }
        out
    }
}

/// Whether the last part of `path` has an extension (`a.json`, not `a` or `.well-known/x`).
fn has_extension(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &str) -> Option<String> {
        SafePath::parse(raw).ok().map(|p| p.0)
    }

    #[test]
    fn traversal_is_told_apart_from_a_dev_servers_own_paths() {
        for path in [
            "/../etc/passwd",
            "/%2e%2e/x",
            "//etc/passwd",
            "/a//b",
            "/a/./b",
            "/a%5cb",
            "/a%00",
            "/.hidden/../x",
        ] {
            assert_eq!(SafePath::parse(path), Err(Refused::Traversal), "{path}");
        }
        for path in ["/node_modules/.vite/deps/x.js", "/a:b", "/.git/config"] {
            assert_eq!(SafePath::parse(path), Err(Refused::NotServed), "{path}");
        }
        for path in ["/@vite/client", "/@fs/tmp/a.js", "/"] {
            assert!(SafePath::parse(path).is_ok(), "{path}");
        }
    }

    #[test]
    fn plain_paths_pass_decoded() {
        assert_eq!(parse("/api/posts.json").as_deref(), Some("api/posts.json"));
        assert_eq!(parse("/").as_deref(), Some(""));
        assert_eq!(parse("/developers/").as_deref(), Some("developers/"));
        assert_eq!(
            parse("/.well-known/api-catalog").as_deref(),
            Some(".well-known/api-catalog")
        );
        assert_eq!(
            parse("/api/timeline/en/caf%C3%A9.json").as_deref(),
            Some("api/timeline/en/café.json")
        );
    }

    #[test]
    fn traversal_and_odd_paths_are_refused() {
        for raw in [
            "",
            "*",
            "/..",
            "/../etc/passwd",
            "/api/../../etc/passwd",
            "/api/%2e%2e/%2e%2e/etc/passwd",
            "/%2E%2E/x",
            "/api/..%2fx",
            "/api/..%2F..%2Fx",
            "/%2fetc%2fpasswd",
            "//etc/passwd",
            "/api//posts.json",
            "/./api/posts.json",
            "/api/%2e/posts.json",
            "/..%5c..%5cwindows",
            "/api\\posts.json",
            "/api/posts.json%00",
            "/api/%00",
            "/c:/windows",
            "/.content-api/manifest.json",
            "/api/.posts.json.123-4.tmp",
            "/api/.well-known/x",
            "/%ff",
        ] {
            assert_eq!(parse(raw), None, "{raw:?} must be refused");
        }
    }

    #[test]
    fn api_paths_are_answered_by_json_files_only() {
        let api = SafePath::parse("/api/posts.json").unwrap();
        assert_eq!(api.candidates(true), ["api/posts.json"]);
        assert!(
            SafePath::parse("/api/posts.json.md")
                .unwrap()
                .candidates(true)
                .is_empty()
        );
        assert!(
            SafePath::parse("/api/404.html")
                .unwrap()
                .candidates(false)
                .is_empty()
        );
        assert!(
            SafePath::parse("/api/")
                .unwrap()
                .candidates(false)
                .is_empty()
        );
        assert!(
            SafePath::parse("/api")
                .unwrap()
                .candidates(false)
                .is_empty()
        );
    }

    #[test]
    fn site_paths_try_the_markdown_variant_first_when_asked() {
        let page = SafePath::parse("/developers").unwrap();
        assert_eq!(
            page.candidates(false),
            ["developers", "developers.html", "developers/index.html"]
        );
        assert_eq!(
            page.candidates(true),
            [
                "developers.md",
                "developers",
                "developers.html",
                "developers/index.html"
            ]
        );
        let folder = SafePath::parse("/developers/").unwrap();
        assert_eq!(
            folder.candidates(true),
            ["developers.md", "developers/index.html"]
        );
        let index = SafePath::parse("/developers/index.html").unwrap();
        assert_eq!(
            index.candidates(true),
            ["developers.md", "developers/index.html"]
        );
        assert_eq!(
            SafePath::parse("/auth.md").unwrap().candidates(true),
            ["auth.md"]
        );
        assert_eq!(
            SafePath::parse("/llms.txt").unwrap().candidates(false),
            ["llms.txt"]
        );
        assert!(
            SafePath::parse("/_headers")
                .unwrap()
                .candidates(false)
                .is_empty()
        );
        assert!(
            SafePath::parse("/_redirects")
                .unwrap()
                .candidates(true)
                .is_empty()
        );
    }
}
