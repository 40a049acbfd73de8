//! Paths between the site's folders, by name (no file system access, links not resolved): the
//! import path of the generated Pages route, the folders a publishing history names.

use camino::{Utf8Component, Utf8Path, Utf8PathBuf};

/// `path` made absolute against the current folder, with `.` and `..` resolved by name.
pub fn absolute(path: &Utf8Path) -> Utf8PathBuf {
    let base = if path.is_absolute() {
        Utf8PathBuf::new()
    } else {
        std::env::current_dir()
            .ok()
            .and_then(|dir| Utf8PathBuf::from_path_buf(dir).ok())
            .unwrap_or_default()
    };
    let mut out = Utf8PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Utf8Component::ParentDir => {
                out.pop();
            }
            Utf8Component::CurDir => {}
            other => out.push(other.as_str()),
        }
    }
    out
}

/// `to` relative to the folder `from`, with `/` (`..` parts where it goes up); `.` for the
/// folder itself.
pub fn relative(from: &Utf8Path, to: &Utf8Path) -> String {
    let (from, to) = (absolute(from), absolute(to));
    let from_parts: Vec<&str> = from.components().map(|c| c.as_str()).collect();
    let to_parts: Vec<&str> = to.components().map(|c| c.as_str()).collect();
    let common = from_parts
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<&str> = vec![".."; from_parts.len() - common];
    parts.extend(&to_parts[common..]);
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_go_up_then_down() {
        assert_eq!(
            relative(Utf8Path::new("/site"), Utf8Path::new("/site/content")),
            "content"
        );
        assert_eq!(
            relative(Utf8Path::new("/site/a"), Utf8Path::new("/site/b/c")),
            "../b/c"
        );
        assert_eq!(
            relative(Utf8Path::new("/site"), Utf8Path::new("/site/./x/../")),
            "."
        );
    }
}
