//! Loading the content folder for a one-shot build (`build`, `list`), and which post bodies it
//! holds in memory.
//!
//! A body published as read (`parse::body`) is the same range of its file in every output
//! that holds it. Past a budget, a one-shot build keeps only such a post's text up to its body
//! ([`FileContents::Detached`]), and the writer reads the range again when it writes.

use crate::config::SiteConfig;
use crate::content::{ContentPath, DiskBody, FileContents, FileRole, Scan};
use crate::parse::body::{has_section_line, unchanged_body_range};
use crate::parse::frontmatter;
use crate::source::{self, BODY_FILES, StampedFile};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use xxhash_rust::xxh3::xxh3_64;

/// How many bytes of posts a one-shot build holds as read, from the scan to the last write. The
/// bodies of the posts past it stay on disk, and the writer reads each again (checked against
/// what the build read) when it writes the post's Markdown variant and `llms-full.txt`, so a
/// very large site's peak memory does not grow with its text. A site of 10,000 posts per
/// language (about 67 MB of content) fits the budget and is read once and held.
pub const BODY_BUDGET: usize = 128 << 20;

/// Reads the content folder as a one-shot build does: the posts read after `budget` bytes of
/// them have their bodies left on disk where they can be.
pub fn scan_for_build(content_dir: &Path, site: &SiteConfig, budget: usize) -> Scan {
    let budget = BodyBudget::new(budget);
    source::scan_keeping(content_dir, site, &|path, role, disk_path, contents| {
        budget.keep(path, role, disk_path, contents)
    })
}

/// [`scan_for_build`] of the files a walk already listed.
pub fn scan_listed_for_build(files: &[StampedFile], site: &SiteConfig, budget: usize) -> Scan {
    let budget = BodyBudget::new(budget);
    source::scan_listed(
        files
            .iter()
            .map(|file| (&file.path, file.disk_path.as_path())),
        site,
        &|path, role, disk_path, contents| budget.keep(path, role, disk_path, contents),
    )
}

/// How many bytes of posts a one-shot build holds as read: the bodies of the posts read after it
/// is spent are left on disk ([`FileContents::Detached`]). Which ones depends on the order the
/// threads read them in; the output does not.
struct BodyBudget {
    left: AtomicUsize,
}

impl BodyBudget {
    fn new(bytes: usize) -> BodyBudget {
        BodyBudget {
            left: AtomicUsize::new(bytes),
        }
    }

    /// What the build keeps of a file it read (`source::scan_keeping`): everything, unless it is
    /// a post that does not fit in what is left of the budget and a `.md` file whose body is
    /// published unchanged. A post that fits is kept as read, without looking at its body: a
    /// site within the budget pays nothing for it.
    fn keep(
        &self,
        path: &ContentPath,
        role: &FileRole,
        disk_path: &Path,
        contents: FileContents,
    ) -> FileContents {
        let (FileRole::Post { .. }, FileContents::Text(text)) = (role, &contents) else {
            return contents;
        };
        if self.take(text.len()) || !path.as_str().ends_with(".md") {
            return contents;
        }
        let Ok(split) = frontmatter::split(path.as_str(), text) else {
            return contents;
        };
        let Some(range) = unchanged_body_range(text, split.body_start) else {
            return contents;
        };
        if range.is_empty() || has_section_line(&text[range.clone()]) {
            return contents;
        }
        let Some(body) = DiskBody::new(&BODY_FILES, disk_path.to_owned(), text, range) else {
            return contents;
        };
        FileContents::Detached {
            head: Arc::new(text[..split.body_start].to_owned()),
            body: Arc::new(body),
            file_digest: xxh3_64(text.as_bytes()),
        }
    }

    /// Takes `len` bytes from the budget; `false` when they are not left.
    fn take(&self, len: usize) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(len)
            })
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(budget: &BodyBudget, relative: &str, text: &str) -> FileContents {
        let path = ContentPath::new(relative).unwrap();
        let role = crate::content::Layout::seed()
            .classify(&path, &content_api_model::model::Languages::seed());
        budget.keep(
            &path,
            &role,
            Path::new("/nowhere").join(relative).as_path(),
            FileContents::Text(Arc::new(text.to_owned())),
        )
    }

    const POST: &str = "---\ntitle: a\n---\n\nBody line.\n\nMore.\n\n";

    #[test]
    fn a_body_past_the_budget_is_left_on_disk_with_its_head_kept() {
        let budget = BodyBudget::new(0);
        let FileContents::Detached { head, body, .. } =
            keep(&budget, "blog/en/2024-01-01_a.md", POST)
        else {
            panic!("expected the body to be left on disk");
        };
        assert_eq!(*head, "---\ntitle: a\n---\n");
        assert_eq!(body.len(), "Body line.\n\nMore.\n".len());
    }

    #[test]
    fn bodies_within_the_budget_are_kept() {
        let budget = BodyBudget::new(POST.len() + 10);
        let kept = keep(&budget, "blog/en/2024-01-01_a.md", POST);
        assert!(matches!(kept, FileContents::Text(_)));
        // The first post spent all but 10 bytes.
        let second = keep(&budget, "blog/en/2024-01-02_b.md", POST);
        assert!(matches!(second, FileContents::Detached { .. }));
    }

    #[test]
    fn bodies_published_changed_are_always_kept() {
        let budget = BodyBudget::new(0);
        for (path, text) in [
            ("blog/en/2024-01-01_a.mdx", POST),
            ("blog/en/2024-01-01_a.md", "---\ntitle: a\n---\nline\r\n"),
            (
                "blog/en/2024-01-01_a.md",
                "---\ntitle: a\n---\n<post id=\"x\">\n",
            ),
            (
                "blog/en/2024-01-01_a.md",
                "---\ntitle: a\n---\nno newline at the end",
            ),
            ("blog/en/2024-01-01_a.md", "---\ntitle: a\n---\n\n\n"),
            (
                "blog/en/2024-01-01_a.md",
                "---\ntitle: a\nno closing line\n",
            ),
            ("slides/en/deck.md", POST),
        ] {
            let kept = keep(&budget, path, text);
            assert!(matches!(kept, FileContents::Text(_)), "{path}: {text:?}");
        }
    }

    #[test]
    fn a_detached_head_parses_to_the_same_front_matter_with_the_body_at_its_end() {
        let budget = BodyBudget::new(0);
        let FileContents::Detached { head, .. } = keep(&budget, "blog/en/2024-01-01_a.md", POST)
        else {
            panic!("expected the body to be left on disk");
        };
        let whole = frontmatter::split("a.md", POST).unwrap();
        let split = frontmatter::split("a.md", &head).unwrap();
        assert_eq!(split.yaml, whole.yaml);
        assert_eq!(split.body_start, head.len());
    }
}
