//! Where a site keeps its content: the `[layout]` of `watch.toml` as patterns
//! (`blog/{lang}/{date}_{slug}`, `posts/{slug}/index.{lang}`, `_posts/{date}-{slug}`), and the
//! matching of a content path against them ([`Layout::classify`]).

mod pattern;

use super::path::ContentPath;
use super::role::FileRole;
use crate::model::Languages;
pub use pattern::Pattern;
use std::sync::Arc;

/// The site's layout: where posts, decks, drafts, tags and series live below the content
/// folder. [`Layout::seed`] is the seed site's, the default.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    posts: Vec<Pattern>,
    decks: Vec<Pattern>,
    drafts: Vec<Pattern>,
    tags: Option<Arc<str>>,
    series: Option<Arc<str>>,
    /// Whether a slug in a path must already be a slug (the seed's rule) rather than be made one.
    strict_names: bool,
    /// Where walks start ([`Layout::roots`]), worked out once: every watcher event asks.
    roots: Vec<String>,
}

/// The folder of agent skills: the same on every site.
const SKILLS: &str = "agent-skills";

impl Layout {
    /// The seed site's layout: `blog/{lang}/{date}_{slug}`, `slides/{lang}/{date}_{slug}`,
    /// `tags/`, `series/`, names that are slugs already.
    pub fn seed() -> Layout {
        let pattern = |text: &str| Pattern::parse(text).expect("the seed's patterns are valid");
        Layout {
            posts: vec![pattern("blog/{lang}/{date}_{slug}")],
            decks: vec![pattern("slides/{lang}/{date}_{slug}")],
            drafts: Vec::new(),
            tags: Some("tags".into()),
            series: Some("series".into()),
            strict_names: true,
            roots: Vec::new(),
        }
        .with_roots()
    }

    /// A site's own layout (`[layout]` in `watch.toml`). Folders are `/`-separated, relative to
    /// the content folder; `None` means the site has none. Unless its post and deck patterns are
    /// the seed's, a file name's slug is made a slug (`My Post.md` → `my-post`) rather than
    /// refused.
    pub fn new(
        posts: Vec<Pattern>,
        decks: Vec<Pattern>,
        drafts: Vec<Pattern>,
        tags: Option<&str>,
        series: Option<&str>,
    ) -> Layout {
        let seed = Layout::seed();
        let strict_names = posts == seed.posts && decks == seed.decks;
        Layout {
            posts,
            decks,
            drafts,
            tags: tags.map(Arc::from),
            series: series.map(Arc::from),
            strict_names,
            roots: Vec::new(),
        }
        .with_roots()
    }

    /// The post patterns, in the order they are tried.
    pub fn posts(&self) -> &[Pattern] {
        &self.posts
    }

    /// The deck patterns.
    pub fn decks(&self) -> &[Pattern] {
        &self.decks
    }

    /// The patterns whose posts are drafts.
    pub fn drafts(&self) -> &[Pattern] {
        &self.drafts
    }

    /// The folder of tag files, if the site has one.
    pub fn tags(&self) -> Option<&str> {
        self.tags.as_deref()
    }

    /// The folder of series files, if the site has one.
    pub fn series(&self) -> Option<&str> {
        self.series.as_deref()
    }

    /// Whether a slug in a path must already match the slug rule (the seed's layout).
    pub fn strict_names(&self) -> bool {
        self.strict_names
    }

    /// Whether any pattern marks the language with a file-name suffix (`post.fr.md`): then which
    /// files are which language depends on the site's languages.
    pub fn has_language_suffix(&self) -> bool {
        self.all_patterns().any(Pattern::has_language_suffix)
    }

    fn all_patterns(&self) -> impl Iterator<Item = &Pattern> {
        self.posts.iter().chain(&self.drafts).chain(&self.decks)
    }

    /// The folders a walk starts from, `/`-separated below the content folder: each pattern's
    /// leading literal folders, the tag and series folders, and `agent-skills`. An empty string
    /// is the content folder itself. No root lies inside another.
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    fn with_roots(mut self) -> Layout {
        let mut roots: Vec<String> = self
            .all_patterns()
            .map(|pattern| pattern.root().to_string())
            .chain(self.tags.iter().map(|t| t.to_string()))
            .chain(self.series.iter().map(|s| s.to_string()))
            .chain([SKILLS.to_string()])
            .collect();
        roots.sort();
        roots.dedup();
        let all = roots.clone();
        roots.retain(|root| {
            !all.iter()
                .any(|other| other != root && is_below(root, other))
        });
        self.roots = roots;
        self
    }

    /// Whether a walk goes through `relative` (a `/`-separated folder or file below the content
    /// folder): it lies below a root, by folders not hidden by a leading `.` or `_` (the root's
    /// own parts may be, as Jekyll's `_posts`), or it holds a root.
    pub fn may_hold_content(&self, relative: &str) -> bool {
        self.roots.iter().any(|root| {
            if is_below(relative, root) {
                let rest = relative[root.len()..].trim_start_matches('/');
                rest.is_empty()
                    || rest
                        .split('/')
                        .all(|part| !part.starts_with('.') && !part.starts_with('_'))
            } else {
                is_below(root, relative)
            }
        })
    }

    /// What the file at `path` is on a site with `languages`.
    pub fn classify(&self, path: &ContentPath, languages: &Languages) -> FileRole {
        let parts: Vec<&str> = path.as_str().split('/').collect();
        let (folders, file) = parts.split_at(parts.len() - 1);
        let Some(stem) = markdown_stem(file[0]) else {
            return FileRole::Ignored;
        };
        if let Some(role) = self.named_file(folders, file[0], stem) {
            return role;
        }
        let strict = self.strict_names;
        let suffixes = self.has_language_suffix();
        for pattern in &self.posts {
            if let Some((lang, name)) = pattern.matches(folders, stem, languages, strict, suffixes)
            {
                return FileRole::Post { lang, name };
            }
        }
        for pattern in &self.drafts {
            if let Some((lang, mut name)) =
                pattern.matches(folders, stem, languages, strict, suffixes)
            {
                name.draft = true;
                return FileRole::Post { lang, name };
            }
        }
        for pattern in &self.decks {
            if let Some((lang, name)) = pattern.matches(folders, stem, languages, strict, suffixes)
            {
                return FileRole::Deck { lang, name };
            }
        }
        if parts.iter().any(|p| p.starts_with('.')) {
            return FileRole::Ignored;
        }
        // A page bundle's folder holds the bundle's resources, Markdown included.
        let bundles: Vec<String> = self
            .all_patterns()
            .filter(|pattern| pattern.is_bundle())
            .map(Pattern::root)
            .collect();
        self.all_patterns()
            .filter(|pattern| !bundles.contains(&pattern.root()))
            .find_map(|pattern| pattern.misplaced(folders, path.as_str()))
            .map_or(FileRole::Ignored, |reason| FileRole::Misplaced {
                reason: reason.into(),
            })
    }

    /// A tag, series or skill file, by its folder.
    fn named_file(&self, folders: &[&str], file: &str, stem: &str) -> Option<FileRole> {
        if folders
            .iter()
            .chain([&file])
            .any(|p| p.starts_with('_') || p.starts_with('.'))
        {
            // Hidden everywhere but in a pattern's own literal folders (`_posts`).
            return None;
        }
        let dir = folders.join("/");
        if file.ends_with(".md") {
            if self.tags.as_deref() == Some(&*dir) {
                return Some(FileRole::Tag { name: stem.into() });
            }
            if self.series.as_deref() == Some(&*dir) {
                return Some(FileRole::Series { name: stem.into() });
            }
        }
        match folders {
            [SKILLS, name] if file == "SKILL.md" => Some(FileRole::Skill {
                name: (*name).into(),
            }),
            _ => None,
        }
    }
}

/// Whether `path` is `root` or below it (`/`-separated; the empty root holds everything).
fn is_below(path: &str, root: &str) -> bool {
    root.is_empty()
        || path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The file name without its Markdown extension (`.md`, `.mdx`, `.markdown`).
pub(super) fn markdown_stem(file: &str) -> Option<&str> {
    file.strip_suffix(".md")
        .or_else(|| file.strip_suffix(".mdx"))
        .or_else(|| file.strip_suffix(".markdown"))
        .filter(|stem| !stem.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::PostName;
    use crate::model::Lang;

    fn seed(path: &str) -> FileRole {
        Layout::seed().classify(&ContentPath::new(path).unwrap(), &Languages::seed())
    }

    fn site(patterns: &[&str], langs: &[&str], path: &str) -> FileRole {
        let patterns = patterns
            .iter()
            .map(|p| Pattern::parse(p).unwrap())
            .collect();
        let layout = Layout::new(patterns, Vec::new(), Vec::new(), None, None);
        let languages =
            Languages::new(langs.iter().map(|l| Lang::parse(l).unwrap()).collect()).unwrap();
        layout.classify(&ContentPath::new(path).unwrap(), &languages)
    }

    fn post(role: FileRole) -> (String, PostName) {
        match role {
            FileRole::Post { lang, name } => (lang.to_string(), name),
            other => panic!("not a post: {other:?}"),
        }
    }

    #[test]
    fn recognises_each_content_kind_of_the_seed() {
        let (lang, name) = post(seed("blog/es/2024-05-01_x.mdx"));
        assert_eq!(lang, "es");
        assert_eq!(
            (&*name.key, name.date.as_deref(), &*name.slug),
            ("blog/*/2024-05-01_x", Some("2024-05-01"), "x")
        );
        assert!(matches!(
            seed("slides/en/2024-05-01_x.md"),
            FileRole::Deck { .. }
        ));
        assert!(matches!(seed("tags/rust.md"), FileRole::Tag { .. }));
        assert!(matches!(seed("series/a.md"), FileRole::Series { .. }));
        assert!(matches!(
            seed("agent-skills/api/SKILL.md"),
            FileRole::Skill { .. }
        ));
    }

    #[test]
    fn skips_author_only_files_and_editor_debris() {
        for path in [
            "blog/en/_demo/2024-01-01_demo.md",
            "slides/_layouts/x.md",
            "blog/en/_draft.md",
            "blog/en/.2024-01-01_x.md.swp",
            "blog/en/.#2024-01-01_x.md",
            "blog/en/2024-01-01_x.md~",
            "blog/en/hero.webp",
            "README.md",
            "pages/about.md",
            "tags/_x.md",
        ] {
            assert_eq!(seed(path), FileRole::Ignored, "{path}");
        }
    }

    #[test]
    fn flags_markdown_in_the_wrong_place() {
        for path in [
            "blog/english/2024-01-01_x.md",
            "blog/2024-01-01_x.md",
            "blog/en/2024/x.md",
        ] {
            assert!(matches!(seed(path), FileRole::Misplaced { .. }), "{path}");
        }
        // A language the site lacks is still a post's path: the site's languages say more.
        assert!(matches!(
            seed("blog/fr/2024-01-01_x.md"),
            FileRole::Post { .. }
        ));
    }

    #[test]
    fn reads_page_bundles_and_language_suffixes() {
        let patterns = ["posts/{slug}.{lang}", "posts/{slug}/index.{lang}"];
        let (lang, name) = post(site(&patterns, &["en", "fr"], "posts/hello/index.fr.md"));
        assert_eq!(
            (lang.as_str(), &*name.slug, &*name.key),
            ("fr", "hello", "posts/hello/index")
        );
        let (lang, name) = post(site(&patterns, &["en", "fr"], "posts/hello/index.md"));
        assert_eq!((lang.as_str(), &*name.key), ("en", "posts/hello/index"));
        let (lang, name) = post(site(&patterns, &["en", "fr"], "posts/node.js.md"));
        assert_eq!((lang.as_str(), &*name.slug), ("en", "node.js"));
        assert_eq!(name.published_slug().as_deref(), Some("node-js"));
        assert_eq!(
            site(&patterns, &["en"], "posts/_index.md"),
            FileRole::Ignored
        );
        assert_eq!(
            site(&patterns, &["en"], "posts/hello/notes/x.md"),
            FileRole::Ignored
        );
    }

    #[test]
    fn reads_dates_from_names_and_folders() {
        let (_, name) = post(site(
            &["_posts/**/{date}-{slug}"],
            &["en"],
            "_posts/travel/2024-05-01-my-trip.markdown",
        ));
        assert_eq!(
            (name.date.as_deref(), &*name.slug),
            (Some("2024-05-01"), "my-trip")
        );
        let (_, name) = post(site(
            &["blog/{yyyy}/{mm}/{dd}/{slug}"],
            &["en"],
            "blog/2023/07/04/x.md",
        ));
        assert_eq!(name.date.as_deref(), Some("2023-07-04"));
        let role = site(&["blog/{yyyy}/{slug}"], &["en"], "blog/23/x.md");
        assert!(
            matches!(&role, FileRole::Misplaced { reason } if reason.contains("does not match the layout `blog/{yyyy}/{slug}`")),
            "{role:?}"
        );
        let (lang, _) = post(site(
            &["{lang}/posts/*/{slug}"],
            &["en", "de"],
            "de/posts/rust/x.md",
        ));
        assert_eq!(lang, "de");
    }

    #[test]
    fn roots_are_the_literal_folders_and_none_lies_inside_another() {
        assert_eq!(
            Layout::seed().roots(),
            ["agent-skills", "blog", "series", "slides", "tags"]
        );
        let patterns = vec![Pattern::parse("{lang}/posts/{slug}").unwrap()];
        let layout = Layout::new(patterns, Vec::new(), Vec::new(), Some("tags"), None);
        assert_eq!(layout.roots(), [""]);
        let jekyll = Layout::new(
            vec![Pattern::parse("_posts/{date}-{slug}").unwrap()],
            Vec::new(),
            vec![Pattern::parse("_drafts/{slug}").unwrap()],
            None,
            None,
        );
        assert!(jekyll.may_hold_content("_posts"));
        assert!(jekyll.may_hold_content("_posts/2024-01-01-x.md"));
        assert!(!jekyll.may_hold_content("_posts/_x"));
        assert!(!jekyll.may_hold_content("_site"));
    }

    #[test]
    fn patterns_say_what_is_wrong() {
        for bad in [
            "",
            "posts/",
            "../posts/{slug}",
            "posts/{title}",
            "posts/{slug}/{slug}",
            "posts/index",
            "{lang}/posts/{slug}.{lang}",
            "**/x/**/{slug}",
            "{mm}/{slug}",
            "{yyyy}/{date}-{slug}",
            "posts/{slug}.md",
        ] {
            assert!(Pattern::parse(bad).is_err(), "{bad:?}");
        }
    }
}
