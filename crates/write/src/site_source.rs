//! Where a file of the site's in the output folder comes from. A site generator copies its
//! static folder into its output (`public/` for Astro and Vite, `static/` for Hugo and Zola),
//! so the file the owner edits is there, not in the output folder the tool reads: messages
//! name both.

use camino::{Utf8Path, Utf8PathBuf};

/// The static folders a generator copies into its output, beside the output folder.
const STATIC_FOLDERS: [&str; 2] = ["public", "static"];

/// The file `name` of the output folder `out_dir` as a message names it: its source in a
/// static folder beside the output folder when there is one ("public/robots.txt (copied to
/// dist/robots.txt)"), else the output file itself.
pub fn shown(out_dir: &Utf8Path, name: &str) -> String {
    let output = out_dir.join(name);
    match source(out_dir, name) {
        Some(source) => format!("{source} (copied to {output})"),
        None => output.to_string(),
    }
}

fn source(out_dir: &Utf8Path, name: &str) -> Option<Utf8PathBuf> {
    let parent = out_dir.parent()?;
    STATIC_FOLDERS
        .iter()
        .map(|folder| parent.join(folder))
        .filter(|folder| folder.as_path() != out_dir)
        .map(|folder| folder.join(name))
        .find(|file| file.symlink_metadata().is_ok_and(|meta| meta.is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_copied_from_the_static_folder_is_named_by_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("public")).unwrap();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("public/robots.txt"), "x").unwrap();
        assert_eq!(
            shown(&root.join("dist"), "robots.txt"),
            format!(
                "{} (copied to {})",
                root.join("public").join("robots.txt"),
                root.join("dist").join("robots.txt")
            )
        );
        assert_eq!(
            shown(&root.join("dist"), "_headers"),
            root.join("dist").join("_headers").as_str()
        );
        // Hugo writes into public/: its own copy is not a source.
        assert_eq!(
            shown(&root.join("public"), "robots.txt"),
            root.join("public").join("robots.txt").as_str()
        );
    }
}
