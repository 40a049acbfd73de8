//! The CDN purge list: the full URLs whose bytes changed or that were removed by a publish, one
//! a line, so a deploy step purges exactly those (`--purge-list FILE`).
//!
//! "Changed" is what the publisher wrote: it writes a file only when its bytes differ from the
//! disk's, so the list is exact against the output folder the build started from. State files
//! (`.content-api/`) are not URLs, nor are the files that configure a host and are never
//! served (`http::HOST_FILES`: `_headers`, `_redirects`, `_worker.js`,
//! `_content-api.js`, `_nginx_gone.conf`...). What `_redirects` changes (a path now answering
//! 410) is a removed file, listed as such. `_headers` changes the headers of every
//! response, so a publish that rewrote it lists every URL of the output.

use crate::http::HOST_FILES;
use crate::write::Report;
use crate::write::check_output_path;
use crate::write::state_file::write_beside;
use camino::Utf8Path;
use std::collections::BTreeSet;

/// The URLs of one output path: `{base_url}/{path}`, and for a folder's `index.html` also the
/// folder's URL with and without the trailing slash (the address the documents link to).
/// A path that is not an output path ([`check_output_path`]: one read from a tampered record)
/// is no URL of the site's.
fn urls_of(base_url: &str, path: &str, into: &mut BTreeSet<String>) {
    if HOST_FILES.contains(&path) || check_output_path(path).is_err() {
        return;
    }
    into.insert(format!("{base_url}/{path}"));
    if let Some(folder) = path.strip_suffix("/index.html") {
        into.insert(format!("{base_url}/{folder}"));
        into.insert(format!("{base_url}/{folder}/"));
    } else if path == "index.html" {
        into.insert(format!("{base_url}/"));
    }
}

/// The purge list of `report`, sorted. `outputs` is every path the folder holds after the
/// publish (used when `_headers` changed).
pub fn purge_urls<'a>(
    report: &Report,
    base_url: &str,
    outputs: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut urls = BTreeSet::new();
    if report.written.iter().any(|path| &**path == "_headers") {
        for path in outputs {
            urls_of(base_url, path, &mut urls);
        }
    }
    for path in &report.written {
        urls_of(base_url, path, &mut urls);
    }
    for path in &report.removed {
        urls_of(base_url, path, &mut urls);
    }
    urls.into_iter().collect()
}

/// Writes the list to `file` (one URL a line; empty when nothing changed), through a temporary
/// file and a rename, so a deploy step never reads half a list.
pub fn write_purge_list(file: &Utf8Path, urls: &[String]) -> std::io::Result<()> {
    let mut text = String::with_capacity(urls.iter().map(|url| url.len() + 1).sum());
    for url in urls {
        text.push_str(url);
        text.push('\n');
    }
    write_beside(file, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_and_removed_paths_become_urls_and_state_and_host_files_do_not() {
        let report = Report {
            written: vec![
                "blog/x.md".into(),
                "_redirects".into(),
                "developers/index.html".into(),
                ".content-api/manifest.json".into(),
                "_content-api.js".into(),
                "_nginx_gone.conf".into(),
                "_worker.js".into(),
                "_routes.json".into(),
            ],
            removed: vec!["api/timeline/en/gone.json".into()],
            ..Report::default()
        };
        assert_eq!(
            purge_urls(&report, "https://e.x", ["llms.txt"]),
            [
                "https://e.x/api/timeline/en/gone.json",
                "https://e.x/blog/x.md",
                "https://e.x/developers",
                "https://e.x/developers/",
                "https://e.x/developers/index.html",
            ]
        );
    }

    #[test]
    fn a_changed_headers_file_purges_every_url() {
        let report = Report {
            written: vec!["_headers".into()],
            ..Report::default()
        };
        assert_eq!(
            purge_urls(
                &report,
                "https://e.x",
                ["_headers", "api/posts.json", "llms.txt"]
            ),
            ["https://e.x/api/posts.json", "https://e.x/llms.txt"]
        );
        assert!(purge_urls(&Report::default(), "https://e.x", ["llms.txt"]).is_empty());
    }

    #[test]
    fn a_path_that_is_no_output_path_is_no_url() {
        let report = Report {
            removed: vec![
                "api/x\nhttps://victim.example/everything".into(),
                "../up.json".into(),
                "api/a b.json".into(),
                "api/ok.json".into(),
            ],
            ..Report::default()
        };
        assert_eq!(
            purge_urls(&report, "https://e.x", []),
            ["https://e.x/api/ok.json"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_list_is_never_written_through_a_link_at_its_temporary_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        std::fs::write(root.join("victim"), "keep").unwrap();
        let pid = std::process::id();
        let planted = [format!(".purge.txt.{pid}.tmp")]
            .into_iter()
            .chain((0..3).map(|n| format!(".purge.txt.{pid}-{n}.tmp")));
        for name in planted {
            std::os::unix::fs::symlink(root.join("victim"), root.join(name)).unwrap();
        }
        write_purge_list(&root.join("purge.txt"), &["https://e.x/a".into()]).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("victim")).unwrap(),
            "keep"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("purge.txt")).unwrap(),
            "https://e.x/a\n"
        );
    }
}
