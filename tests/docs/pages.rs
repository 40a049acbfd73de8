//! The repository's own Markdown holds together: README.md stays a user's first page and
//! ARCHITECTURE.md a map (each under its line bound; the reference lives in docs/), and every
//! relative link of README.md, ARCHITECTURE.md, CONTRIBUTING.md, docs/ and the npm packages'
//! READMEs names a file that exists and, with a `#fragment` into Markdown, one of its headings,
//! so moving a section cannot leave a link behind.

use super::guides::{markdown_under, root};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The line bounds: a README past 500 lines holds reference that belongs in docs/, an
/// ARCHITECTURE.md past 300 detail that belongs in the code's module headers.
const LINE_BOUNDS: &[(&str, usize)] = &[("README.md", 500), ("ARCHITECTURE.md", 300)];

/// The Markdown files whose links are checked, relative to the repository.
fn pages() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "npm/content-api/README.md",
        "npm/content-api/astro/README.md",
    ]
    .iter()
    .map(|name| root().join(name))
    .collect();
    markdown_under(&root().join("docs"), &mut found);
    found
}

/// The lines of `text` outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            found.push((index + 1, line));
        }
    }
    found
}

/// The fragment GitHub gives a heading: lowercase, letters, digits, `-` and `_` kept, spaces
/// made `-`, everything else dropped; a repeated heading gets `-1`, `-2`...
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut id = base.clone();
        let mut repeat = 0;
        while ids.contains(&id) {
            repeat += 1;
            id = format!("{base}-{repeat}");
        }
        ids.insert(id);
    }
    ids
}

/// The targets of a line's Markdown links (`[text](target)`) and images (`src="target"`),
/// outside inline code.
fn link_targets(line: &str) -> Vec<String> {
    let mut prose = String::new();
    for (index, part) in line.split('`').enumerate() {
        if index % 2 == 0 {
            prose.push_str(part);
        }
        prose.push(' ');
    }
    let mut found = Vec::new();
    for (opener, closer) in [("](", ')'), ("src=\"", '"')] {
        let mut rest = prose.as_str();
        while let Some(start) = rest.find(opener) {
            rest = &rest[start + opener.len()..];
            if let Some(end) = rest.find(closer) {
                found.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    found
}

/// What is wrong with a relative `target` written in `page`, if anything.
fn problem(page: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().unwrap().join(path)
    };
    if !file.exists() {
        return Some(format!("`{target}`: no such file"));
    }
    let fragment = fragment?;
    if file.extension().is_none_or(|ext| ext != "md") {
        return None;
    }
    let ids = heading_ids(&std::fs::read_to_string(&file).unwrap());
    (!ids.contains(fragment)).then(|| format!("`{target}`: no heading has the id `{fragment}`"))
}

#[test]
fn the_readme_and_architecture_stay_under_their_line_bounds() {
    for (name, bound) in LINE_BOUNDS {
        let lines = std::fs::read_to_string(root().join(name))
            .unwrap()
            .lines()
            .count();
        assert!(
            lines < *bound,
            "{name} has {lines} lines, the bound is {bound}: move reference material into docs/ \
             (README.md) or detail the module headers already say (ARCHITECTURE.md)"
        );
    }
}

#[test]
fn every_relative_link_of_the_repository_docs_resolves() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        for (number, line) in prose_lines(&text) {
            for target in link_targets(line) {
                checked += 1;
                if let Some(problem) = problem(&page, &target) {
                    problems.push(format!("{name}:{number}: {problem}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 100, "only {checked} links checked");
}

#[test]
fn the_link_reader_finds_links_and_ids_as_github_makes_them() {
    assert_eq!(
        link_targets("see [a](docs/a.md#x) and `[not](this)`, <img src=\"b.png\">"),
        ["docs/a.md#x", "b.png"]
    );
    let ids = heading_ids(
        "# Title\n## Configuration: `watch.toml`\n```sh\n# not a heading\n```\n## The author's daily loop\n## `check --format json`\n## Title\n",
    );
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        [
            "check---format-json",
            "configuration-watchtoml",
            "the-authors-daily-loop",
            "title",
            "title-1"
        ]
    );
}
