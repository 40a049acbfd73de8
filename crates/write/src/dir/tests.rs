//! The open folder: in-place creation, replacement, temporary names.

use super::*;

#[test]
fn replacing_a_large_file_leaves_the_new_bytes_and_no_temporary_file() {
    if crate::at::under_wine() {
        // Wine 8 has no POSIX-semantics rename: a file held open is never renamed over there.
        eprintln!("skipped under wine: renaming over a file held open needs Windows 10's rename");
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    let path = root.join("api/posts.json");
    let mut reader = None;
    for fill in [b'a', b'b', b'c'] {
        let bytes = vec![fill; FREE_LATER_FROM + 1];
        write_to(&out, "api/posts.json", &bytes).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        // A reader of the previous version keeps reading it whole.
        if let Some((mut file, previous)) = reader.take() {
            let mut seen = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut seen).unwrap();
            assert_eq!(seen, vec![previous; FREE_LATER_FROM + 1]);
        }
        reader = Some((std::fs::File::open(&path).unwrap(), fill));
    }
    let names: Vec<String> = std::fs::read_dir(root.join("api"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["posts.json"]);
}

#[cfg(unix)]
#[test]
fn a_large_file_never_swaps_out_a_folder_or_follows_a_link() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    let bytes = vec![b'n'; FREE_LATER_FROM + 1];
    // A folder at the target: the write fails, the folder stays where it was.
    std::fs::create_dir_all(root.join("api/posts.json/inside")).unwrap();
    assert!(write_to(&out, "api/posts.json", &bytes).is_err());
    assert!(root.join("api/posts.json/inside").is_dir());
    // A link at the target: the link is replaced, what it points to is not written.
    std::fs::write(root.join("elsewhere"), "theirs").unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere"), root.join("api/en.json")).unwrap();
    write_to(&out, "api/en.json", &bytes).unwrap();
    assert_eq!(std::fs::read(root.join("api/en.json")).unwrap(), bytes);
    assert_eq!(
        std::fs::read_to_string(root.join("elsewhere")).unwrap(),
        "theirs"
    );
    let mut names: Vec<String> = std::fs::read_dir(root.join("api"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["en.json", "posts.json"],
        "no temporary file is left"
    );
}

#[cfg(unix)]
#[test]
fn creating_in_place_never_touches_what_is_there() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    let dir = out.folder("api/en", true).unwrap().unwrap();
    let fill = |text: &'static str| move |file: &mut std::fs::File| file.write_all(text.as_bytes());
    assert!(
        out.create_in(&dir, "a.json", "api/en/a.json", fill("new"))
            .unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("api/en/a.json")).unwrap(),
        "new"
    );
    // Something there (a file, a link): nothing is written, nothing followed.
    assert!(
        !out.create_in(&dir, "a.json", "api/en/a.json", fill("again"))
            .unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("api/en/a.json")).unwrap(),
        "new"
    );
    std::fs::write(root.join("target"), "elsewhere").unwrap();
    std::os::unix::fs::symlink(root.join("target"), root.join("api/en/l.json")).unwrap();
    assert!(
        !out.create_in(&dir, "l.json", "api/en/l.json", fill("x"))
            .unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("target")).unwrap(),
        "elsewhere"
    );
    // A fill that fails removes the file it created.
    let failing = |_: &mut std::fs::File| Err(std::io::Error::other("disk full"));
    assert!(
        out.create_in(&dir, "b.json", "api/en/b.json", failing)
            .is_err()
    );
    assert!(!root.join("api/en/b.json").exists());
    assert!(is_missing_in(&dir, "b.json"));
    assert!(!is_missing_in(&dir, "l.json"));
}

#[test]
fn temporary_names_fit() {
    let long = "x".repeat(250);
    let temp = temp_name(&long);
    assert!(temp.len() <= NAME_MAX, "{}", temp.len());
    assert_ne!(temp_name("posts.json"), temp_name("posts.json"), "unique");
}

#[test]
fn temporary_files_are_made_in_the_tools_folder_only() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    std::fs::create_dir_all(root.join("api")).unwrap();
    // A file of the site's named like a temporary file of older versions.
    std::fs::write(root.join("api/.notes.1-1.tmp"), "the site's").unwrap();
    std::fs::write(root.join("api/x.json"), "old").unwrap();
    out.replace("api/x.json", 3, |file| file.write_all(b"new"))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("api/x.json")).unwrap(),
        "new"
    );
    let left = std::fs::read_dir(root.join(TEMP_FOLDER)).unwrap().count();
    assert_eq!(left, 0, "the temporary file was renamed into place");
    std::fs::write(root.join(TEMP_FOLDER).join(".x.json.1-2.tmp"), "half").unwrap();
    assert_eq!(out.remove_temp_files(), 1);
    assert_eq!(
        std::fs::read_to_string(root.join("api/.notes.1-1.tmp")).unwrap(),
        "the site's",
        "a file of the site's is never removed, whatever its name"
    );
}

#[cfg(windows)]
#[test]
fn a_reader_holding_the_file_delays_its_replacement_without_failing_it() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    write_to(&out, "api/posts.json", b"old").unwrap();
    // std's reader shares delete; one without (share read only, as some viewers open) too.
    for share in [7, 1] {
        use std::os::windows::fs::OpenOptionsExt;
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .share_mode(share)
            .open(root.join("api/posts.json"))
            .unwrap();
        let lets_go = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(reader);
        });
        write_to(&out, "api/posts.json", format!("new {share}").as_bytes()).unwrap();
        lets_go.join().unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("api/posts.json")).unwrap(),
            format!("new {share}")
        );
    }
    assert_eq!(
        std::fs::read_dir(root.join(TEMP_FOLDER)).unwrap().count(),
        0
    );
}

#[cfg(windows)]
#[test]
fn a_folder_held_by_the_writer_cannot_be_moved_or_removed_meanwhile() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    let held = out.folder("api/en", true).unwrap().unwrap();
    // Neither the folder nor one above it can be swapped for a link or a junction while held.
    assert!(std::fs::rename(root.join("api/en"), root.join("elsewhere")).is_err());
    assert!(std::fs::rename(root.join("api"), root.join("elsewhere")).is_err());
    assert!(std::fs::remove_dir(root.join("api/en")).is_err());
    out.replace_in(&held, "a.json", "api/en/a.json", 1, |file| {
        file.write_all(b"a")
    })
    .unwrap();
    assert_eq!(std::fs::read(root.join("api/en/a.json")).unwrap(), b"a");
    drop(held);
    std::fs::rename(root.join("api"), root.join("elsewhere")).unwrap();
}

#[cfg(windows)]
#[test]
fn messages_name_paths_with_backslashes_and_the_drive() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().to_owned()).unwrap();
    let out = OutDir::open(&root).unwrap();
    std::fs::create_dir_all(root.join("api")).unwrap();
    std::fs::write(root.join("api/en"), "a file where a folder is needed").unwrap();
    let err = write_to(&out, "api/en/a.json", b"x").unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains(&format!("{root}\\api\\en is in the way")),
        "{message}"
    );
    assert!(
        message.as_bytes().get(1) == Some(&b':'),
        "a drive letter first: {message}"
    );
    assert!(!message.contains('/'), "{message}");
}

#[cfg(windows)]
#[test]
fn names_that_would_leave_the_folder_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(temp.path().join("out")).unwrap();
    let out = OutDir::open(&root).unwrap();
    let dir = out.folder("", false).unwrap().unwrap();
    for name in ["..\\escaped.json", "..", "C:escaped.json", "a/b.json"] {
        assert!(
            out.create_in(&dir, name, name, |file| file.write_all(b"x"))
                .is_err(),
            "{name}"
        );
    }
    assert!(!temp.path().join("escaped.json").exists());
}
