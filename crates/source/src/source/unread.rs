//! Markdown a site holds where content-api does not read it: what a build that found no post
//! shows, so a layout it does not read is an error naming what it saw, never an empty API.

use std::path::Path;

/// Folders never searched: tools' and generators' own (dependencies, build output, VCS).
const NOT_SITE_FOLDERS: [&str; 8] = [
    "node_modules",
    "target",
    "dist",
    "public",
    "_site",
    "resources",
    "vendor",
    "build",
];

/// Files that are a repository's, not a site's (compared without case or extension).
const REPOSITORY_FILES: [&str; 7] = [
    "readme",
    "changelog",
    "license",
    "licence",
    "contributing",
    "code_of_conduct",
    "security",
];

/// How many entries a search looks at, at most: a site's root is small, and a build that
/// found no post must not walk a whole disk to say so.
const MAX_ENTRIES: usize = 50_000;

/// The Markdown files below `root` (`.md`, `.mdx`, `.markdown`), outside `skip` (the content
/// folder's own files, the output folder) and the folders above: how many, and the first
/// `examples` of them by path, relative to `root` and `/`-separated.
pub fn unread_markdown(root: &Path, skip: &[&Path], examples: usize) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut found = Vec::new();
    // Compared as canonical paths: `out` and `./out` are one folder.
    let Ok(root) = std::fs::canonicalize(root) else {
        return (0, found);
    };
    let skip: Vec<std::path::PathBuf> = skip
        .iter()
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .collect();
    let walker = walkdir::WalkDir::new(&root)
        .max_depth(8)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            let is_dir = entry.file_type().is_dir();
            !(entry.depth() > 0
                && (name.starts_with('.')
                    || (is_dir && NOT_SITE_FOLDERS.contains(&name.as_ref()))
                    || skip.iter().any(|skipped| entry.path() == *skipped)))
        })
        .take(MAX_ENTRIES);
    for entry in walker.flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let Some((stem, _)) = name
            .rsplit_once('.')
            .filter(|(_, ext)| matches!(*ext, "md" | "mdx" | "markdown"))
        else {
            continue;
        };
        if REPOSITORY_FILES.contains(&stem.to_ascii_lowercase().as_str()) {
            continue;
        }
        count += 1;
        if found.len() < examples {
            let relative = entry.path().strip_prefix(&root).unwrap_or(entry.path());
            found.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    (count, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "---\ntitle: x\n---\n").unwrap();
    }

    #[test]
    fn finds_the_posts_of_other_layouts_and_not_a_repository_or_its_tools() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for post in [
            "src/content/blog/first-post.md",
            "src/content/blog/second-post.mdx",
            "_posts/2024-05-01-hello.markdown",
        ] {
            write(root, post);
        }
        for not_content in [
            "README.md",
            "docs/CHANGELOG.md",
            "node_modules/pkg/readme-like.md",
            ".github/ISSUE_TEMPLATE/bug.md",
            "dist/blog/index.md",
            "out/blog/x.md",
        ] {
            write(root, not_content);
        }
        let out = root.join("out");
        let (count, examples) = unread_markdown(root, &[out.as_path()], 2);
        assert_eq!(count, 3);
        assert_eq!(
            examples,
            [
                "_posts/2024-05-01-hello.markdown",
                "src/content/blog/first-post.md"
            ]
        );
    }
}
