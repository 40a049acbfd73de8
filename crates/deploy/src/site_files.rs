//! The site's own documents that decide what agents find of the API, read (never written) when
//! the output folder is shared with the site: a `robots.txt` that keeps crawlers off `/api/`
//! (read as RFC 9309 reads it: `robots`),
//! and an `llms.txt` of the site's (which wins over the tool's) that does not link the API.

mod robots;

use crate::config::SiteConfig;
use crate::write::site_source;
use crate::write::state_file::{Links, open_untrusted, read_head};

/// The largest site file read: these are a few kilobytes.
const MAX_BYTES: u64 = 1 << 20;

/// One warning per way the site's own documents hide the API from agents, naming the file the
/// owner edits (its source in the site's static folder, when there is one).
pub fn warnings(config: &SiteConfig) -> Vec<String> {
    let mut warnings = Vec::new();
    let out = &config.out_dir;
    if let Some(text) = read_small(&out.join("robots.txt")) {
        let shown = site_source::shown(out, "robots.txt");
        for blocked in robots::blocked(&text) {
            let who = if blocked.agents.iter().any(|a| a == "*") {
                "every crawler without a group of its own".to_string()
            } else {
                blocked.agents.join(", ")
            };
            warnings.push(format!(
                "{shown}:{}: `{}` keeps {who} away from the API (/api/index.json and every endpoint)\n  = help: if they may read it, add `Allow: /api/` to that group (the longest rule wins), or give the crawlers that may their own group with `Allow: /`",
                blocked.line, blocked.rule
            ));
        }
    }
    if let Some(text) = read_small(&out.join("llms.txt"))
        && !text.contains("written by content-api")
        && !text.contains("/api/index.json")
    {
        warnings.push(format!(
            "{} is the site's own (it wins over content-api's) and does not link the API\n  = help: add a line such as `- [API index]({}): every endpoint of the content API, with its URLs` to it",
            site_source::shown(out, "llms.txt"),
            config.url("/api/index.json")
        ));
    }
    warnings
}

fn read_small(path: &camino::Utf8Path) -> Option<String> {
    let file = open_untrusted(path.as_std_path(), Links::Refuse).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    String::from_utf8(read_head(file, MAX_BYTES).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sites_llms_txt_without_the_api_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = camino::Utf8Path::from_path(dir.path()).unwrap();
        let config = SiteConfig::defaults(root);
        std::fs::create_dir_all(&config.out_dir).unwrap();
        assert!(warnings(&config).is_empty());
        std::fs::write(config.out_dir.join("llms.txt"), "# My site\n").unwrap();
        std::fs::write(
            config.out_dir.join("robots.txt"),
            "User-agent: *\nDisallow: /api\n",
        )
        .unwrap();
        let found = warnings(&config);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[0].contains(
                "robots.txt:2: `Disallow: /api` keeps every crawler without a group of its own away"
            ),
            "{}",
            found[0]
        );
        assert!(found[1].contains("/api/index.json"), "{}", found[1]);
    }
}
