//! The one file this tool writes outside the output folder: when the site has Cloudflare Pages
//! Functions, a route file in its `functions/` folder that imports the edge layer from the
//! output folder (`render::cloudflare`). Pages ignores `functions/` whenever the output holds a
//! `_worker.js`, so this is how the API's edge layer joins a site's own Functions instead of
//! switching them off: the site's middleware runs first, its routes keep their paths, and every
//! other request reaches the edge layer, which hands the site's pages back unchanged.
//!
//! The file is the tool's only when it opens with [`FUNCTIONS_ROUTE_MARK`]; any other file at
//! its path, or a catch-all route of the site's own beside it, stops the build with what to do.

use crate::config::SiteConfig;
use crate::http::EDGE_MODULE;
use crate::render::cloudflare::{FUNCTIONS_ROUTE, FUNCTIONS_ROUTE_MARK, functions_route};
use crate::site_paths::relative;
use crate::write::state_file::{Folder, Links, open_untrusted, read_head};
use camino::{Utf8Path, Utf8PathBuf};

/// Why the edge layer cannot join the site's Functions.
#[derive(Debug, thiserror::Error)]
pub enum FunctionsError {
    /// Another file holds the route file's name.
    #[error(
        "{path} exists and was not written by content-api\n  = help: content-api writes its Cloudflare edge layer there, as a route of the site's Pages Functions. Rename or remove that file (its first line would be `{FUNCTIONS_ROUTE_MARK}` if it were this tool's)"
    )]
    NotOurs {
        /// The route file's path.
        path: Utf8PathBuf,
    },
    /// The site has a catch-all route of its own at the root of its Functions.
    #[error(
        "{path} is a catch-all route of the site's own: Pages hands every path no other Function claims to one catch-all, so content-api's edge layer cannot be added beside it\n  = help: let that route call the edge layer for the requests it does not answer itself: `import {{ onRequest as contentApi }} from \"{import}\";` and `return contentApi(context);` (content-api then sees the import and adds no route of its own)"
    )]
    CatchAll {
        /// The site's catch-all route.
        path: Utf8PathBuf,
        /// How it would import the edge module.
        import: String,
    },
    /// The route file could not be read or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The route file's path.
        path: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// What the site's Functions mean for the API: their routes under `/api/` (which answer those
/// paths themselves, outside the contract), or an error when the edge layer cannot join them.
pub fn check(config: &SiteConfig) -> Result<Vec<String>, FunctionsError> {
    let Some(functions) = &config.hosting.pages_functions else {
        return Ok(Vec::new());
    };
    if let Some((path, chained)) = site_catch_all(functions)
        && !chained
    {
        return Err(FunctionsError::CatchAll {
            path,
            import: import_path(functions, &config.out_dir),
        });
    }
    let mut warnings = Vec::new();
    let api = functions.join("api");
    for route in routes_under(&api) {
        warnings.push(format!(
            "{route} is a Pages Function under /api/: it answers its paths itself, so the API's rules (405 with a body, JSON 404s, the contract's headers) do not apply there; move it out of functions/api/ unless that is intended"
        ));
    }
    Ok(warnings)
}

/// Writes the route file when the site has Functions and the file is missing or differs.
/// Returns its path when it wrote.
pub fn install(config: &SiteConfig) -> Result<Option<Utf8PathBuf>, FunctionsError> {
    let Some(functions) = &config.hosting.pages_functions else {
        return Ok(None);
    };
    if site_catch_all(functions).is_some_and(|(_, chained)| chained) {
        // The site's own catch-all calls the edge layer: it needs no route of ours.
        return Ok(None);
    }
    let path = functions.join(FUNCTIONS_ROUTE);
    let text = functions_route(&import_path(functions, &config.out_dir));
    match read_small(&path) {
        Ok(Some(existing)) if existing == text.as_bytes() => return Ok(None),
        Ok(Some(existing)) if !existing.starts_with(FUNCTIONS_ROUTE_MARK.as_bytes()) => {
            return Err(FunctionsError::NotOurs { path });
        }
        Ok(_) => {}
        Err(source) => return Err(FunctionsError::Io { path, source }),
    }
    // Through a temporary file created beside it, never a link planted at its name.
    match Folder::named(functions).and_then(|folder| folder.write(FUNCTIONS_ROUTE, text.as_bytes()))
    {
        Ok(()) => Ok(Some(path)),
        Err(source) => Err(FunctionsError::Io { path, source }),
    }
}

/// The file at `path` when it is a regular file (never a link), up to 64 KiB: the route file is
/// a few lines. Something else than a file there reads as empty (not this tool's).
fn read_small(path: &Utf8Path) -> std::io::Result<Option<Vec<u8>>> {
    let file = match open_untrusted(path.as_std_path(), Links::Refuse) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    if !file.metadata()?.is_file() {
        return Ok(Some(Vec::new()));
    }
    read_head(file, 64 << 10).map(Some)
}

/// A catch-all route (`[[name]].js`, `.ts`...) at the root of the Functions folder that is not
/// this tool's, and whether it imports the edge module itself.
fn site_catch_all(functions: &Utf8Path) -> Option<(Utf8PathBuf, bool)> {
    let mut found: Vec<Utf8PathBuf> = std::fs::read_dir(functions)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.starts_with("[[") && name != FUNCTIONS_ROUTE && is_script(name))
        .map(|name| functions.join(name))
        .collect();
    found.sort();
    let path = found.into_iter().next()?;
    let chained = read_small(&path)
        .ok()
        .flatten()
        .is_some_and(|text| String::from_utf8_lossy(&text).contains(EDGE_MODULE));
    Some((path, chained))
}

fn is_script(name: &str) -> bool {
    [".js", ".ts", ".mjs", ".jsx", ".tsx"]
        .iter()
        .any(|extension| name.ends_with(extension))
}

/// The route and middleware files under `dir`, sorted.
fn routes_under(dir: &Utf8Path) -> Vec<Utf8PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = folder.join(&name);
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push(path),
                Ok(kind)
                    if kind.is_file() && is_script(&name) && !name.starts_with("_middleware") =>
                {
                    found.push(path)
                }
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// The edge module as the route file imports it: the output folder's [`EDGE_MODULE`], relative
/// to the Functions folder, with `/` and a leading `./` or `../`.
pub fn import_path(functions: &Utf8Path, out_dir: &Utf8Path) -> String {
    let joined = relative(functions, &out_dir.join(EDGE_MODULE));
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_import_path_goes_from_the_functions_folder_to_the_module() {
        assert_eq!(
            import_path(
                Utf8Path::new("/site/functions"),
                Utf8Path::new("/site/dist")
            ),
            "../dist/_content-api.js"
        );
        assert_eq!(
            import_path(
                Utf8Path::new("/site/functions"),
                Utf8Path::new("/site/functions/out")
            ),
            "./out/_content-api.js"
        );
        assert_eq!(
            import_path(
                Utf8Path::new("/a/b/functions"),
                Utf8Path::new("/a/c/../dist")
            ),
            "../../dist/_content-api.js"
        );
    }

    fn config_with_functions(root: &Utf8Path) -> SiteConfig {
        std::fs::create_dir_all(root.join("functions")).unwrap();
        let mut config = SiteConfig::defaults(root);
        config.hosting.pages_functions = Some(root.join("functions"));
        config.out_dir = root.join("dist");
        config
    }

    #[test]
    fn install_writes_once_and_never_replaces_a_file_of_the_site() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let config = config_with_functions(root);
        let path = install(&config).unwrap().expect("written");
        assert_eq!(path, root.join("functions").join(FUNCTIONS_ROUTE));
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("../dist/_content-api.js")
        );
        assert!(
            install(&config).unwrap().is_none(),
            "unchanged: not rewritten"
        );
        std::fs::write(
            &path,
            "export const onRequest = () => new Response('mine');\n",
        )
        .unwrap();
        let err = install(&config).unwrap_err();
        assert!(
            err.to_string().contains("not written by content-api"),
            "{err}"
        );
    }

    #[test]
    fn a_catch_all_of_the_site_is_refused_and_api_routes_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let config = config_with_functions(root);
        std::fs::create_dir_all(root.join("functions/api")).unwrap();
        std::fs::write(root.join("functions/api/contact.ts"), "").unwrap();
        std::fs::write(root.join("functions/_middleware.ts"), "").unwrap();
        let warnings = check(&config).unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // The path as the platform writes it (`functions\\api\\contact.ts` on Windows).
        let shown = "functions/api/contact.ts".replace('/', std::path::MAIN_SEPARATOR_STR);
        assert!(warnings[0].contains(&shown), "{warnings:?}");
        std::fs::write(root.join("functions/[[path]].ts"), "").unwrap();
        let err = check(&config).unwrap_err();
        assert!(err.to_string().contains("[[path]].ts"), "{err}");
        assert!(err.to_string().contains("../dist/_content-api.js"), "{err}");
        std::fs::write(
            root.join("functions/[[path]].ts"),
            "import { onRequest as contentApi } from \"../dist/_content-api.js\";\n",
        )
        .unwrap();
        check(&config).expect("a catch-all that calls the edge layer");
        assert!(
            install(&config).unwrap().is_none(),
            "no route of ours beside it"
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_route_is_never_written_through_a_link_at_its_temporary_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let config = config_with_functions(root);
        std::fs::write(root.join("victim"), "keep").unwrap();
        let pid = std::process::id();
        let planted = [format!(".content-api-route.{pid}.tmp")]
            .into_iter()
            .chain((0..3).map(|n| format!(".{FUNCTIONS_ROUTE}.{pid}-{n}.tmp")));
        for name in planted {
            std::os::unix::fs::symlink(root.join("victim"), root.join("functions").join(name))
                .unwrap();
        }
        let path = install(&config).unwrap().expect("written");
        assert_eq!(
            std::fs::read_to_string(root.join("victim")).unwrap(),
            "keep"
        );
        assert!(
            std::fs::read_to_string(path)
                .unwrap()
                .starts_with(FUNCTIONS_ROUTE_MARK)
        );
    }
}
