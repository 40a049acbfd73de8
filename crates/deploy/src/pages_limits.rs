//! What a host would refuse, reported before the deploy: Cloudflare Pages' limits on one
//! deployment (wrangler 4's `MAX_ASSET_SIZE` and `MAX_ASSET_COUNT_DEFAULT`; `wrangler pages
//! deploy` stops before uploading anything, `wrangler pages dev` checks neither).

use crate::config::SiteConfig;
use crate::output::Output;
use camino::Utf8Path;
use std::collections::HashSet;
use std::sync::Arc;

/// The largest file Cloudflare Pages deploys.
pub const PAGES_MAX_FILE: usize = 25 << 20;

/// The host files that list every removed API path (one rule each), by the host that reads them.
const GONE_LISTS: [(&str, &str); 2] = [
    (
        "_nginx_gone.conf",
        "nginx (and Cloudflare Pages uploads it with the folder)",
    ),
    ("_redirects", "Netlify"),
];

/// One error per gone list past the 25 MiB a host takes: the build stops before publishing.
/// The history's bound (`MAX_HISTORY_ENTRIES`) keeps them under it unless the paths are very long.
pub fn gone_list_errors(config: &SiteConfig, outputs: &[(Arc<str>, Output)]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|(path, output)| {
            let (_, host) = GONE_LISTS.iter().find(|(name, _)| *name == &**path)?;
            (output.len() > PAGES_MAX_FILE).then(|| {
                format!(
                    "{}/{path} would be {}, more than the 25 MiB per file Cloudflare Pages deploys; it lists the removed API paths for {host}; nothing was published\n  = help: the publishing history {} (or the live site's deploy record) lists too many removed paths: delete the lines of those that no longer need a 410",
                    config.out_dir,
                    mebibytes(output.len()),
                    config.history_file
                )
            })
        })
        .collect()
}

/// Files a Pages deployment does not upload as assets (wrangler's ignore list).
const NOT_ASSETS: [&str; 5] = [
    "_worker.js",
    "_redirects",
    "_headers",
    "_routes.json",
    "functions",
];

/// One warning per limit the output folder would pass once `outputs` are in it (its other files,
/// the site's, counted too).
pub fn pages_warnings(config: &SiteConfig, outputs: &[(Arc<str>, Output)]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (path, output) in outputs {
        if output.len() > PAGES_MAX_FILE && !NOT_ASSETS.contains(&&**path) {
            warnings.push(format!(
                "{}/{path} is {}: Cloudflare Pages refuses files over 25 MiB (`wrangler pages deploy` stops before uploading)\n  = help: serve this output from a host without that limit (nginx: `content-api hosting nginx`), or from Pages with this file on another host",
                config.out_dir,
                mebibytes(output.len())
            ));
        }
    }
    let max = config.hosting.cloudflare_max_files;
    if max > 0 {
        let ours: HashSet<&str> = outputs.iter().map(|(path, _)| &**path).collect();
        let assets = outputs
            .iter()
            .filter(|(path, _)| !NOT_ASSETS.contains(&&**path))
            .count() as u64
            + site_files(&config.out_dir, &ours);
        if assets > max {
            warnings.push(format!(
                "{} will hold {assets} files: Cloudflare Pages deploys at most {max} (`cloudflare_max_files` under [hosting]; 20,000 on the Free plan)\n  = help: if your plan allows more, set `cloudflare_max_files` to its limit; otherwise serve the folder from another host (nginx: `content-api hosting nginx`). Each published post adds a file (its Markdown twin) besides the site's own pages",
                config.out_dir
            ));
        }
    }
    warnings
}

/// Files in the output folder that are not among `ours` (the site's), as Pages would upload them.
fn site_files(out_dir: &Utf8Path, ours: &HashSet<&str>) -> u64 {
    walkdir::WalkDir::new(out_dir)
        .min_depth(1)
        .into_iter()
        .filter_entry(|entry| {
            entry.depth() > 1 || !NOT_ASSETS.contains(&&*entry.file_name().to_string_lossy())
        })
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .filter(|entry| {
            entry
                .path()
                .strip_prefix(out_dir)
                .ok()
                .and_then(|relative| relative.to_str())
                .is_none_or(|relative| !ours.contains(relative))
        })
        .count() as u64
}

fn mebibytes(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_file_and_too_many_files_are_reported_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let mut config = SiteConfig::defaults(root);
        config.hosting.cloudflare_max_files = 2;
        std::fs::create_dir_all(&config.out_dir).unwrap();
        std::fs::write(config.out_dir.join("index.html"), "site").unwrap();
        std::fs::write(config.out_dir.join("_headers"), "").unwrap();
        let outputs: Vec<(Arc<str>, Output)> = vec![
            (Arc::from("a.json"), Output::new("1".to_string())),
            (
                Arc::from("big.txt"),
                Output::new("x".repeat(PAGES_MAX_FILE + 1)),
            ),
            (Arc::from("_headers"), Output::new(String::new())),
        ];
        let warnings = pages_warnings(&config, &outputs);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains("big.txt is 25.0 MiB"),
            "{}",
            warnings[0]
        );
        assert!(warnings[1].contains("will hold 3 files"), "{}", warnings[1]);
        assert!(
            warnings[1].contains("cloudflare_max_files"),
            "{}",
            warnings[1]
        );
        config.hosting.cloudflare_max_files = 0;
        assert_eq!(pages_warnings(&config, &outputs[..1]).len(), 0);
    }
}
