//! The benchmark corpus laid out as other generators lay out posts, for `--layout NAME`: the
//! same posts (same front matter, bodies, tags and series) moved from the seed's
//! `blog/{lang}/{date}_{slug}.md` to a Hugo page bundle with language suffixes, Jekyll's
//! `_posts/` dated by name, or Astro's `blog/{lang}/{slug}.md` dated by front matter alone.
//! Decks, tags and series stay where they are, so only the reading of posts differs.
#![allow(dead_code)]

use std::path::Path;

/// The layouts a bench can ask for.
pub const NAMES: [&str; 4] = ["seed", "hugo", "jekyll", "astro"];

/// The `[layout] posts` patterns of `name` (`None`: not a layout this module knows).
pub fn posts_pattern(name: &str) -> Option<&'static str> {
    Some(match name {
        "seed" => "blog/{lang}/{date}_{slug}",
        "hugo" => "posts/{slug}/index.{lang}",
        "jekyll" => "_posts/{date}-{slug}.{lang}",
        "astro" => "blog/{lang}/{slug}",
        _ => return None,
    })
}

/// The `watch.toml` lines that make a site read `name`'s layout.
pub fn watch_toml(name: &str) -> String {
    let pattern = posts_pattern(name).expect("a known layout");
    format!("[layout]\nposts = [\"{pattern}\"]\n")
}

/// Moves every post of the seed-laid `content` (its languages `default` first) to where
/// `name` puts it, and returns each moved post's new path (content-relative), by language.
pub fn relay(content: &Path, name: &str, default: &str) -> Vec<(String, String)> {
    let mut moved = Vec::new();
    let blog = content.join("blog");
    let mut langs: Vec<String> = std::fs::read_dir(&blog)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    langs.sort();
    for lang in langs {
        let mut files: Vec<String> = std::fs::read_dir(blog.join(&lang))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        for file in files {
            let Some((stem, extension)) = file.rsplit_once('.') else {
                continue;
            };
            let Some((date, slug)) = stem.split_once('_') else {
                continue;
            };
            let suffix = if lang == default {
                String::new()
            } else {
                format!(".{lang}")
            };
            let to = match name {
                "seed" => format!("blog/{lang}/{file}"),
                "hugo" => format!("posts/{slug}/index{suffix}.{extension}"),
                "jekyll" => format!("_posts/{date}-{slug}{suffix}.{extension}"),
                "astro" => format!("blog/{lang}/{slug}.{extension}"),
                other => panic!("unknown layout {other}"),
            };
            let from = blog.join(&lang).join(&file);
            let target = content.join(&to);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::rename(from, target).unwrap();
            moved.push((lang.clone(), to));
        }
    }
    if name != "seed" && name != "astro" {
        let _ = std::fs::remove_dir_all(&blog);
    }
    moved
}

/// Copies every file below `from` to `to` (the corpus into a work folder).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from)
        .into_iter()
        .filter_map(Result::ok)
    {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
