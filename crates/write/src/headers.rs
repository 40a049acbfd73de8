//! The tool's `_headers` block beside a site's own rules, under Cloudflare Pages' semantics
//! (`wrangler`'s asset server, which production shares):
//!
//! - every rule whose pattern matches a request applies, in file order; the first to set a
//!   header replaces the host's default, later ones *join* their value to it with a comma;
//! - a second block with the same pattern replaces the first one whole (at the first one's
//!   place);
//! - a `! Name` line removes the header as it stands when its rule applies.
//!
//! So the tool's block goes last, and for each of its rules: where a rule of the site with the
//! very same pattern exists, the tool's pattern gains a trailing `*` (it then matches the same
//! files without replacing the site's block); where a rule of the site matching the same path
//! sets a header the tool sets, a `! Name` line comes first. Each response then carries the
//! tool's value once, and every other header the site sets. Each such site rule is reported,
//! once, with its line.

use std::collections::HashSet;
use std::sync::Arc;

/// One block of a `_headers` file: a path pattern and its header lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    /// (name, value) in order; a detach line is (`! Name`, "").
    pub headers: Vec<(String, String)>,
    /// 1-based line of the pattern in its file.
    pub line: usize,
}

/// The blocks of a `_headers` text. Comments, blank lines and lines a host would reject (a
/// header before any pattern) are skipped, as hosts skip them.
pub fn parse(text: &str) -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        if !indented && (line.starts_with('/') || line.starts_with("https://")) {
            rules.push(Rule {
                pattern: line.to_string(),
                headers: Vec::new(),
                line: index + 1,
            });
            continue;
        }
        let Some(rule) = rules.last_mut() else {
            continue;
        };
        if let Some(name) = line.strip_prefix("! ") {
            rule.headers
                .push((format!("! {}", name.trim()), String::new()));
        } else if let Some((name, value)) = line.split_once(':') {
            rule.headers
                .push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    rules
}

/// Whether a pattern matches a request path, as Cloudflare Pages matches them: `*` is any
/// text (`/` included), `:name` one non-empty segment, the rest literal, the whole anchored. A
/// pattern for a host (`https://host/...`) is taken to match the path it names on that host.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pattern = match pattern.strip_prefix("https://") {
        Some(rest) => rest.find('/').map_or("/", |slash| &rest[slash..]),
        None => pattern,
    };
    match_from(pattern.as_bytes(), path.as_bytes())
}

fn match_from(pattern: &[u8], path: &[u8]) -> bool {
    match pattern.first() {
        None => path.is_empty(),
        Some(b'*') => (0..=path.len()).any(|skip| match_from(&pattern[1..], &path[skip..])),
        Some(b':') => {
            let name_len = pattern[1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if name_len == 0 {
                return path.first() == Some(&b':') && match_from(&pattern[1..], &path[1..]);
            }
            let rest = &pattern[1 + name_len..];
            let segment = path.iter().take_while(|b| **b != b'/').count();
            (1..=segment).any(|take| match_from(rest, &path[take..]))
        }
        Some(byte) => path.first() == Some(byte) && match_from(&pattern[1..], &path[1..]),
    }
}

/// A request path a rule of the tool's stands for: the pattern itself, or, for a folder rule
/// (`/api/*`), a path every build has in that folder.
fn representative(pattern: &str) -> String {
    match pattern.strip_suffix('*') {
        Some("/api/") => "/api/index.json".to_string(),
        Some(folder) => folder.to_string(),
        None => pattern.to_string(),
    }
}

/// A site rule that sets headers the tool also sets on some of its paths.
#[derive(Debug, PartialEq, Eq)]
pub struct Overlap {
    /// The site rule's pattern and line.
    pub pattern: String,
    pub line: usize,
    /// The headers it sets that the tool's value replaces, lowercase, sorted.
    pub headers: Vec<String>,
    /// The tool's patterns concerned.
    pub tool_patterns: Vec<String>,
    /// The site rule matches only paths of the tool's: what it sets there never applies.
    pub only_tools: bool,
    /// Every header the site rule sets, lowercase, sorted.
    pub site_headers: Vec<String>,
}

/// The tool's block (as rendered: a rule per path, for a folder of the tool's own) fitted to the
/// site's rules, without the rules of the paths the site keeps for itself (`yielded`, output
/// paths). Returns the block's text and the site rules it overrides.
pub fn fit_block(ours: &str, site: &str, yielded: &HashSet<Arc<str>>) -> (String, Vec<Overlap>) {
    let site_rules = parse(site);
    let tool_patterns: Vec<String> = parse(ours).into_iter().map(|rule| rule.pattern).collect();
    let mut overlaps: Vec<Overlap> = Vec::new();
    let mut out = String::new();
    for line in ours.lines().filter(|l| l.starts_with('#')) {
        out.push_str(line);
        out.push('\n');
    }
    for rule in parse(ours) {
        let path = representative(&rule.pattern);
        if yielded
            .iter()
            .any(|file| rule_names_file(&rule.pattern, file))
        {
            continue;
        }
        let mut pattern = rule.pattern.clone();
        if site_rules.iter().any(|s| s.pattern == rule.pattern) {
            pattern = widen(&pattern);
        }
        let ours_set: Vec<String> = rule
            .headers
            .iter()
            .map(|(name, _)| name.to_ascii_lowercase())
            .collect();
        let mut detach: Vec<String> = Vec::new();
        for site_rule in site_rules.iter().filter(|s| matches(&s.pattern, &path)) {
            let mut shared: Vec<String> = site_rule
                .headers
                .iter()
                .map(|(name, _)| name.to_ascii_lowercase())
                .filter(|name| ours_set.contains(name))
                .collect();
            shared.sort();
            shared.dedup();
            if shared.is_empty() {
                continue;
            }
            for name in &shared {
                if !detach.contains(name) {
                    detach.push(name.clone());
                }
            }
            match overlaps.iter_mut().find(|o| o.line == site_rule.line) {
                Some(overlap) => {
                    for name in shared {
                        if !overlap.headers.contains(&name) {
                            overlap.headers.push(name);
                        }
                    }
                    overlap.headers.sort();
                    overlap.tool_patterns.push(rule.pattern.clone());
                }
                None => overlaps.push(Overlap {
                    pattern: site_rule.pattern.clone(),
                    line: site_rule.line,
                    headers: shared,
                    tool_patterns: vec![rule.pattern.clone()],
                    only_tools: matches_only_tools(&site_rule.pattern, &tool_patterns),
                    site_headers: names_set(site_rule),
                }),
            }
        }
        out.push_str(&pattern);
        out.push('\n');
        for (name, _) in rule
            .headers
            .iter()
            .filter(|(name, _)| detach.contains(&name.to_ascii_lowercase()))
        {
            out.push_str(&format!("  ! {name}\n"));
        }
        for (name, value) in &rule.headers {
            out.push_str(&format!("  {name}: {value}\n"));
        }
    }
    overlaps.sort_by_key(|o| o.line);
    (out, overlaps)
}

/// Whether the site's `pattern` matches only paths of the tool's: one of its exact paths, or
/// a pattern under `/api/` (the API's namespace).
fn matches_only_tools(pattern: &str, tool_patterns: &[String]) -> bool {
    let literal = pattern.split(['*', ':']).next().unwrap_or("");
    let exact = literal.len() == pattern.len();
    (exact && tool_patterns.iter().any(|ours| ours == pattern)) || literal.starts_with("/api/")
}

/// The headers `rule` sets (not those it detaches), lowercase, sorted.
fn names_set(rule: &Rule) -> Vec<String> {
    let mut names: Vec<String> = rule
        .headers
        .iter()
        .filter(|(name, _)| !name.starts_with("! "))
        .map(|(name, _)| name.to_ascii_lowercase())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A pattern matching the same files as `pattern` without being the same text (a second block
/// with the same pattern would replace the site's).
fn widen(pattern: &str) -> String {
    match pattern.strip_suffix("/*") {
        Some(folder) => format!("{folder}*"),
        None if pattern.ends_with('*') => pattern.to_string(),
        None => format!("{pattern}*"),
    }
}

/// Whether a rule of the tool's is the rule of one output file (`/llms.txt` for `llms.txt`).
fn rule_names_file(pattern: &str, file: &str) -> bool {
    pattern.strip_prefix('/') == Some(file)
}

/// The warning for a site rule the tool's block overrides, when the owner has something to do:
/// a rule that matches only the tool's paths is dead where the tool sets what it sets (delete
/// it, or those lines). A rule that also matches the site's paths (`/*`) is `None`: the tool's
/// value wins on its paths, the site's everywhere else, as intended. `file` names the file the
/// owner edits.
pub fn describe(overlap: &Overlap, file: &str) -> Option<String> {
    if !overlap.only_tools {
        return None;
    }
    let line = overlap.line;
    let pattern = &overlap.pattern;
    let all_dead = overlap
        .site_headers
        .iter()
        .all(|name| overlap.headers.contains(name));
    Some(if all_dead {
        format!(
            "{file}:{line}: the site's rule `{pattern}` is dead: it matches only content-api's paths, whose own {} replace everything it sets\n  = help: delete the rule (line {line} and its header lines) from {file}",
            overlap.headers.join(", ")
        )
    } else {
        format!(
            "{file}:{line}: in the site's rule `{pattern}`, {} never applies: it matches only content-api's paths, where content-api's value wins\n  = help: delete those header lines of the rule from {file}; the rest of it still applies",
            overlap.headers.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: &str = "# written by content-api\n/api/*\n  Cache-Control: public, max-age=3600\n  Content-Type: application/json\n/auth.md\n  Cache-Control: public, max-age=3600\n  Content-Type: text/markdown; charset=utf-8\n/.well-known/api-catalog\n  Cache-Control: public, max-age=3600\n  Link: <x>\n";

    #[test]
    fn patterns_match_as_cloudflare_matches_them() {
        assert!(matches("/*", "/api/index.json"));
        assert!(matches("/api/*", "/api/index.json"));
        assert!(!matches("/api/*", "/api"));
        assert!(matches("/*.md", "/blog/x.md"));
        assert!(matches("/blog/:slug/", "/blog/x/"));
        assert!(!matches("/blog/:slug/", "/blog/x/y/"));
        assert!(matches("/auth.md", "/auth.md"));
        assert!(!matches("/auth.md", "/auth.mdx"));
        assert!(matches("https://example.com/auth.md", "/auth.md"));
    }

    #[test]
    fn alone_the_block_is_as_rendered() {
        let (block, overlaps) = fit_block(OURS, "", &HashSet::new());
        assert_eq!(block, OURS);
        assert!(overlaps.is_empty());
    }

    #[test]
    fn a_site_catch_all_is_detached_on_the_tools_paths_only_for_what_it_sets() {
        let site =
            "/*\n  Cache-Control: public, max-age=0, must-revalidate\n  X-Frame-Options: DENY\n";
        let (block, overlaps) = fit_block(OURS, site, &HashSet::new());
        assert!(block.contains("/api/*\n  ! Cache-Control\n  Cache-Control: public, max-age=3600\n  Content-Type: application/json\n"), "{block}");
        assert!(!block.contains("! X-Frame-Options"), "{block}");
        assert_eq!(overlaps.len(), 1);
        assert_eq!(overlaps[0].line, 1);
        assert_eq!(overlaps[0].headers, ["cache-control"]);
        assert_eq!(overlaps[0].tool_patterns.len(), 3);
        // Working as intended: nothing for the owner to do.
        assert_eq!(describe(&overlaps[0], "dist/_headers"), None);
    }

    #[test]
    fn a_site_rule_on_the_tools_paths_only_is_dead_there() {
        let site = "/api/*\n  Cache-Control: no-store\n\n/auth.md\n  Cache-Control: public, max-age=300\n  X-Robots-Tag: noindex\n";
        let (_, overlaps) = fit_block(OURS, site, &HashSet::new());
        let said: Vec<String> = overlaps
            .iter()
            .filter_map(|overlap| describe(overlap, "public/_headers"))
            .collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].starts_with("public/_headers:1: the site's rule `/api/*` is dead"),
            "{}",
            said[0]
        );
        assert!(
            said[1].starts_with(
                "public/_headers:4: in the site's rule `/auth.md`, cache-control never applies"
            ),
            "{}",
            said[1]
        );
    }

    #[test]
    fn a_site_block_with_the_same_pattern_is_not_replaced() {
        let site = "# mine\n/.well-known/api-catalog\n  Content-Type: application/linkset+json\n  Cache-Control: public, max-age=300\n  X-Robots-Tag: noindex\n";
        let (block, overlaps) = fit_block(OURS, site, &HashSet::new());
        assert!(
            block.contains("\n/.well-known/api-catalog*\n  ! Cache-Control\n"),
            "{block}"
        );
        assert_eq!(overlaps[0].line, 2);
        assert_eq!(
            overlaps[0].headers,
            ["cache-control"],
            "Content-Type is not ours on that path"
        );
    }

    #[test]
    fn the_rules_of_documents_the_site_keeps_are_left_out() {
        let yielded: HashSet<Arc<str>> = [Arc::from("auth.md")].into();
        let (block, _) = fit_block(OURS, "", &yielded);
        assert!(!block.contains("/auth.md"), "{block}");
        assert!(block.contains("/api/*"));
    }

    #[test]
    fn parse_reads_blocks_and_detach_lines_and_skips_the_rest() {
        let rules = parse("  Orphan: x\n# c\n/a\n  A: 1\n  ! B\n\n/b\n\tC: 2\n");
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].pattern, "/a");
        assert_eq!(rules[0].line, 3);
        assert_eq!(
            rules[0].headers,
            [("A".into(), "1".into()), ("! B".into(), String::new())]
        );
        assert_eq!(rules[1].headers, [("C".into(), "2".into())]);
    }
}
