//! File names that editors and tools use as scratch space: their events are dropped before
//! they can wake a rebuild. The list follows Hugo's (the most complete seen) and watchexec's.

/// True for temporary, backup, swap and lock files of common editors and tools.
pub fn is_editor_debris(file_name: &str) -> bool {
    const SUFFIXES: [&str; 8] = [
        "~",
        ".swp",
        ".swx",
        ".swo",
        ".bck",
        ".tmp",
        ".kate-swp",
        ".crswap",
    ];
    const INFIXES: [&str; 3] = ["___jb_tmp___", "___jb_old___", "___jb_bak___"]; // JetBrains safe write
    file_name == "4913" // vim's write-permission probe
        || file_name == ".DS_Store"
        || file_name.starts_with(".#") // emacs lock files
        || (file_name.starts_with('#') && file_name.ends_with('#')) // emacs auto-save
        || file_name.starts_with(".goutputstream-") // GNOME/GIO atomic save
        || file_name.starts_with(".sb-") // Byword
        || file_name.starts_with(".~lock.") // LibreOffice
        || SUFFIXES.iter().any(|s| file_name.ends_with(s))
        || INFIXES.iter().any(|s| file_name.contains(s))
        || is_sed_temporary(file_name)
}

/// GNU sed's `-i` writes the new text to `sedXXXXXX` (six random letters and digits) beside the
/// file, then renames it over the file.
fn is_sed_temporary(file_name: &str) -> bool {
    file_name.len() == 9
        && file_name.starts_with("sed")
        && file_name[3..].bytes().all(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_scratch_files_are_debris() {
        for name in [
            "post.md~",
            ".post.md.swp",
            ".post.md.swx",
            "4913",
            ".#post.md",
            "#post.md#",
            ".goutputstream-ABC123",
            "post.md___jb_tmp___",
            "post.md___jb_old___",
            ".DS_Store",
            "post.md.tmp",
            "sedfjQqoK",
            "sed0Ab9Zz",
        ] {
            assert!(is_editor_debris(name), "{name}");
        }
    }

    #[test]
    fn content_is_not_debris() {
        for name in [
            "2024-05-01_post.md",
            "post.mdx",
            "SKILL.md",
            "rust.md",
            "4913.md",
            "index.md",
            "sed.md",
            "sedation.md",
            "sedimentos",
        ] {
            assert!(!is_editor_debris(name), "{name}");
        }
    }
}
