//! A site's `robots.txt` read as RFC 9309 reads it, for one question: which crawlers does it
//! keep off the API (`/api/index.json`)?
//!
//! A crawler obeys the group naming its product token, and the `*` group only when no group
//! names it (groups naming the same agent are combined). In a group, the longest matching rule
//! decides, and `Allow` wins a tie. So `Disallow: /api/` under `User-agent: *` keeps every
//! crawler without a group of its own away, and none of those named in a group that allows it.
//!
//! Hand-written: `texting_robots` and `robotxt` answer whether one named agent may fetch a path,
//! not which groups keep crawlers off and by which rule on which line, which the warning names.

/// The path standing for the API.
const API: &str = "/api/index.json";

/// A group that keeps its crawlers off the API, with the rule that decides it.
#[derive(Debug, PartialEq, Eq)]
pub struct Blocked {
    /// The group's user agents (`*` for every crawler without a group of its own).
    pub agents: Vec<String>,
    /// The deciding rule, as written, and its line (1-based).
    pub rule: String,
    pub line: usize,
}

/// One group: its agents and its rules.
#[derive(Default)]
struct Group {
    agents: Vec<String>,
    rules: Vec<Rule>,
}

/// An `Allow` or `Disallow` line.
struct Rule {
    allow: bool,
    pattern: String,
    line: usize,
    text: String,
}

/// The groups that keep their crawlers off the API. `*` is left out when a named group lets
/// its crawlers read the API: the site then chose who reads it.
pub fn blocked(text: &str) -> Vec<Blocked> {
    let groups = groups(text);
    let decisions: Vec<(&Group, Option<&Rule>)> = groups
        .iter()
        .map(|group| (group, deciding_rule(group, API)))
        .collect();
    let allows = |decision: &Option<&Rule>| decision.is_none_or(|rule| rule.allow);
    let a_named_group_reads_it = decisions
        .iter()
        .any(|(group, decision)| !group.agents.iter().any(|a| a == "*") && allows(decision));
    decisions
        .into_iter()
        .filter(|(_, decision)| !allows(decision))
        .filter(|(group, _)| {
            let everyone = group.agents.iter().any(|a| a == "*");
            !(everyone && a_named_group_reads_it)
        })
        .filter_map(|(group, decision)| {
            let rule = decision?;
            Some(Blocked {
                agents: group.agents.clone(),
                rule: rule.text.clone(),
                line: rule.line,
            })
        })
        .collect()
}

/// The groups of `text`, those naming the same agent combined (RFC 9309, 2.2.1).
fn groups(text: &str) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut current = Group::default();
    let mut in_rules = false;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        let (field, value) = (field.trim().to_ascii_lowercase(), value.trim());
        match field.as_str() {
            "user-agent" => {
                if in_rules {
                    groups.push(std::mem::take(&mut current));
                    in_rules = false;
                }
                current.agents.push(value.to_string());
            }
            "allow" | "disallow" => {
                in_rules = true;
                current.rules.push(Rule {
                    allow: field == "allow",
                    pattern: value.to_string(),
                    line: index + 1,
                    text: line.to_string(),
                });
            }
            // Sitemap and records a crawler does not know belong to no group.
            _ => {}
        }
    }
    if !current.agents.is_empty() {
        groups.push(current);
    }
    combine(groups)
}

/// Groups naming the same agents, as one.
fn combine(groups: Vec<Group>) -> Vec<Group> {
    let mut combined: Vec<Group> = Vec::new();
    for group in groups {
        let same_agents = |g: &Group| {
            g.agents.len() == group.agents.len()
                && g.agents
                    .iter()
                    .zip(&group.agents)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        };
        match combined.iter_mut().find(|g| same_agents(g)) {
            Some(same) => same.rules.extend(group.rules),
            None => combined.push(group),
        }
    }
    combined
}

/// The rule deciding `path` in `group`: the longest matching pattern, `Allow` winning a tie;
/// `None` when no rule matches (allowed). An empty `Disallow:` matches nothing.
fn deciding_rule<'g>(group: &'g Group, path: &str) -> Option<&'g Rule> {
    group
        .rules
        .iter()
        .filter(|rule| !rule.pattern.is_empty() && matches(&rule.pattern, path))
        .max_by_key(|rule| (rule.pattern.len(), rule.allow))
}

/// RFC 9309 matching: `*` is any text, a final `$` anchors the end, the rest a prefix.
fn matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(pattern) => (pattern, true),
        None => (pattern, false),
    };
    fn from(pattern: &[u8], path: &[u8], anchored: bool) -> bool {
        match pattern.split_first() {
            None => !anchored || path.is_empty(),
            Some((b'*', rest)) => (0..=path.len()).any(|skip| from(rest, &path[skip..], anchored)),
            Some((byte, rest)) => path.first() == Some(byte) && from(rest, &path[1..], anchored),
        }
    }
    from(pattern.as_bytes(), path.as_bytes(), anchored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_groups_that_allow_the_api_make_the_everyone_group_a_choice() {
        // The seed site's shape: everyone off /api/, thirteen AI crawlers with their own groups.
        let text = "User-agent: *\nAllow: /\nDisallow: /api/\nContent-Signal: ai-train=yes\n\nSitemap: https://x/s.xml\n\nUser-agent: GPTBot\nAllow: /\n\nUser-agent: ClaudeBot\nAllow: /\n";
        assert_eq!(blocked(text), []);
    }

    #[test]
    fn everyone_off_the_api_with_no_named_group_is_found_with_its_line() {
        let text = "User-agent: *\nAllow: /\nDisallow: /api/ # private\nDisallow: /admin\n";
        assert_eq!(
            blocked(text),
            [Blocked {
                agents: vec!["*".into()],
                rule: "Disallow: /api/".into(),
                line: 3
            }]
        );
        // The longest match wins, Allow a tie: these let crawlers in.
        assert_eq!(blocked("User-agent: *\nDisallow: /\nAllow: /api/\n"), []);
        assert_eq!(blocked("User-agent: *\nDisallow: /api\nAllow: /api\n"), []);
        assert_eq!(blocked("User-agent: *\nDisallow:\n"), []);
        assert_eq!(blocked("User-agent: *\nDisallow: /*.json$\n").len(), 1);
    }

    #[test]
    fn a_named_group_off_the_api_is_found_and_groups_of_one_agent_combine() {
        let text = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nUser-agent: gptbot\nAllow: /blog/\n";
        let found = blocked(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].agents, ["GPTBot"]);
        assert_eq!((found[0].rule.as_str(), found[0].line), ("Disallow: /", 2));
    }
}
