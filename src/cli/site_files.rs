//! The site's own documents that decide what agents find of the API, read (never written) when
//! the output folder is shared with the site: a `robots.txt` that keeps crawlers off `/api/`,
//! and an `llms.txt` of the site's (which wins over the tool's) that does not link the API.

use crate::config::SiteConfig;
use std::io::Read;

/// The largest site file read: these are a few kilobytes.
const MAX_BYTES: u64 = 1 << 20;

/// One warning per way the site's own documents hide the API from agents.
pub fn warnings(config: &SiteConfig) -> Vec<String> {
    let mut warnings = Vec::new();
    let robots = config.out_dir.join("robots.txt");
    if let Some(text) = read_small(&robots) {
        for (line, rule) in api_disallows(&text) {
            warnings.push(format!(
                "{robots}:{line}: `{rule}` keeps crawlers that obey robots.txt away from the API (/api/index.json and every endpoint)\n  = help: remove the line, or add `Allow: /api/` to the same group, if agents may read the API"
            ));
        }
    }
    let llms = config.out_dir.join("llms.txt");
    if let Some(text) = read_small(&llms)
        && !text.contains("written by content-api")
        && !text.contains("/api/index.json")
    {
        warnings.push(format!(
            "{llms} is the site's own (it wins over content-api's) and does not link the API\n  = help: add a line such as `- [API index]({}): every endpoint of the content API, with its URLs` to it",
            config.url("/api/index.json")
        ));
    }
    warnings
}

/// The `Disallow` rules, by line, that cover `/api/` in a group for every agent (`*`).
fn api_disallows(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut agents: Vec<String> = Vec::new();
    let mut in_rules = false;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        let (field, value) = (field.trim().to_ascii_lowercase(), value.trim());
        if field == "user-agent" {
            if in_rules {
                agents.clear();
                in_rules = false;
            }
            agents.push(value.to_string());
            continue;
        }
        in_rules = true;
        let covers_api = |path: &str| !path.is_empty() && "/api/index.json".starts_with(path);
        if field == "disallow" && agents.iter().any(|a| a == "*") && covers_api(value) {
            found.push((index + 1, line.to_string()));
        }
    }
    found
}

fn read_small(path: &camino::Utf8Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_BYTES).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disallow_that_covers_the_api_for_every_agent_is_found_by_line() {
        let text = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\nDisallow: /api/ # private\nDisallow: /admin\n";
        assert_eq!(api_disallows(text), [(6, "Disallow: /api/".to_string())]);
        assert!(api_disallows("User-agent: *\nDisallow:\n").is_empty());
        assert_eq!(api_disallows("User-agent: *\nDisallow: /\n").len(), 1);
    }

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
            found[0].contains("robots.txt:2: `Disallow: /api`"),
            "{}",
            found[0]
        );
        assert!(found[1].contains("/api/index.json"), "{}", found[1]);
    }
}
