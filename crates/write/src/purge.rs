//! The CDN purge list: the full URLs whose bytes changed or that were removed by a publish, one
//! a line, so a deploy step purges exactly those (`--purge-list FILE`).
//!
//! "Changed" is what the publisher wrote: it writes a file only when its bytes differ from the
//! disk's, so the list is exact against the output folder the build started from. State files
//! (`.content-api/`) are not URLs. `_redirects` is not either; what it changes (a path now
//! answering 410) is a removed file, listed as such. `_headers` changes the headers of every
//! response, so a publish that rewrote it lists every URL of the output.

use super::Report;
use camino::Utf8Path;
use std::collections::BTreeSet;

/// The URLs of one output path: `{base_url}/{path}`, and for a folder's `index.html` also the
/// folder's URL with and without the trailing slash (the address the documents link to).
fn urls_of(base_url: &str, path: &str, into: &mut BTreeSet<String>) {
    if path == "_headers" || path == "_redirects" || path.starts_with(".content-api/") {
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
    use std::io::Write;
    let dir = match file.parent() {
        Some(dir) if !dir.as_str().is_empty() => dir,
        _ => Utf8Path::new("."),
    };
    let name = file.file_name().unwrap_or("purge");
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&temp)?);
        for url in urls {
            out.write_all(url.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temp, file)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_and_removed_paths_become_urls_and_state_files_do_not() {
        let report = Report {
            written: vec![
                "blog/x.md".into(),
                "_redirects".into(),
                "developers/index.html".into(),
                ".content-api/manifest.json".into(),
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
}
