//! Whether the content folder is one this tool can build: it exists, and the site's layout
//! finds its posts (a site laid out as another generator lays it out is named, never built
//! empty). The one-shot build, `check`, watch mode and `list` ask it alike.

use crate::config::SiteConfig;
use crate::diag::Diagnostic;
use crate::workspace::Workspace;
use camino::{Utf8Path, Utf8PathBuf};

/// Why `dir` cannot be used as the content folder, if it cannot.
pub fn content_folder_problem(dir: &Utf8Path) -> Option<Diagnostic> {
    let help = "create it (`content-api init` makes a new site in the current folder), or point to the content with --content DIR or `content_dir` in watch.toml";
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => None,
        Ok(_) => Some(
            Diagnostic::error(dir.as_str(), "the content folder is a file, not a folder")
                .help(help),
        ),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            Some(Diagnostic::error(dir.as_str(), "the content folder does not exist").help(help))
        }
        Err(err) => Some(
            Diagnostic::error(
                dir.as_str(),
                format!("cannot open the content folder: {err}"),
            )
            .help(help),
        ),
    }
}

/// A site whose content this build read no post or deck of, while Markdown lies elsewhere in
/// the site (another generator's layout: `src/content/blog/`, `_posts/`, `content/posts/`):
/// an error naming what was seen, so such a site never publishes an empty API. A new site
/// with no Markdown at all builds as before. `config_file`: the `watch.toml` in use, whose
/// folder is the site's root.
pub fn layout_not_read(
    config: &SiteConfig,
    config_file: Option<&Utf8Path>,
    workspace: &Workspace,
) -> Option<Diagnostic> {
    let db = workspace.db();
    let read = workspace
        .globals()
        .trees(db)
        .iter()
        .any(|tree| !tree.posts(db).is_empty() || !tree.decks(db).is_empty());
    if read {
        return None;
    }
    let root = config_file
        .and_then(|path| path.parent())
        .or_else(|| config.content_dir.parent())
        .unwrap_or(&config.content_dir);
    let root = if root.as_str().is_empty() {
        Utf8Path::new(".")
    } else {
        root
    };
    let layout = &config.layout;
    let own: Vec<Utf8PathBuf> = [layout.tags(), layout.series(), Some("agent-skills")]
        .into_iter()
        .flatten()
        .map(|folder| config.content_dir.join(folder))
        .collect();
    let mut skip: Vec<&std::path::Path> = own.iter().map(|dir| dir.as_std_path()).collect();
    skip.push(config.out_dir.as_std_path());
    let (count, examples) = crate::source::unread_markdown(root.as_std_path(), &skip, 3);
    if count == 0 {
        return None;
    }
    let patterns = layout
        .posts()
        .iter()
        .map(|pattern| format!("`{pattern}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let files = if count == 1 { "file" } else { "files" };
    Some(
        Diagnostic::error(
            config.content_dir.as_str(),
            format!(
                "no posts found under {}/ by the layout {patterns} (in {}): the layout does not match this site, which has {count} Markdown {files} elsewhere, such as {}",
                config.content_dir,
                config.languages.quoted(),
                examples.join(", ")
            ),
        )
        .help(
            "run `content-api init` in the site's root to detect its layout and write it to watch.toml, or set `content_dir`, `languages` and `[layout] posts` yourself (docs/content-format.md, \"Folder layout\")",
        ),
    )
}
