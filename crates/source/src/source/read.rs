//! Reading one content file into text, or into the reason it cannot be text.

use super::contain::ContentFolder;
use crate::content::FileContents;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Content files larger than this are refused: a post of this size is a mistake (a video
/// renamed `.md`, a generated dump), and reading it would stall every rebuild.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Reads `path` as UTF-8 text, refusing oversized, binary and non-UTF-8 files with a message
/// that says what to do. Only a regular file is read: a FIFO, socket or device is skipped
/// with a warning (and is `Missing`, as a scan that skips it sees it), and opening never waits
/// (`O_NONBLOCK`), so a FIFO named like a post cannot hang a build.
pub(super) fn read_file(path: &Path) -> FileContents {
    match read_limited(path) {
        Err(err) if err.kind() == std::io::ErrorKind::InvalidInput => {
            tracing::warn!("{}: {err}; skipped", path.display());
            FileContents::Missing
        }
        Ok(Some(bytes)) => decode(bytes),
        Ok(None) => FileContents::Unusable {
            problem: format!(
                "file is larger than the {} MB limit for a content file; it was not read",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
            help: "content files are Markdown text: move large assets out of the content \
                   folder (videos, archives, generated dumps), or split the post"
                .into(),
            position: None,
        },
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => FileContents::Missing,
        Err(err) => FileContents::Unusable {
            problem: format!("cannot read file: {err}"),
            help: "check the file's permissions (the build needs to read it)".into(),
            position: None,
        },
    }
}

/// Reads the content file `root/relative` as UTF-8 text (a regular file, at most
/// 8 MB, opened without waiting), unless a symbolic link on the way leads out of
/// the content folder (`root`): then it is skipped with a warning and is `Missing`, as a scan
/// sees it. The one way outside `source` to read a content file.
pub fn read_content(root: &Path, relative: &str) -> FileContents {
    let path = root.join(relative);
    if let Some(target) = ContentFolder::new(root).outside(&path) {
        tracing::warn!(
            "{relative}: a symbolic link leads outside the content folder (to {}); skipped",
            target.display()
        );
        return FileContents::Missing;
    }
    read_file(&path)
}

/// A name for what a non-regular file is, for messages.
#[cfg(unix)]
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "a device"
    } else if file_type.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// A name for what a non-regular file is, for messages.
#[cfg(windows)]
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_symlink() {
        "a link"
    } else {
        "not a regular file"
    }
}

/// `Ok(None)` when the file is over the limit; never reads more than the limit plus one byte.
/// A file that is not a regular file is an `InvalidInput` error naming what it is.
fn read_limited(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let file = crate::at::read_options().open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is not read as content: content files are regular files",
                kind_of(meta.file_type())
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(MAX_FILE_BYTES) as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_FILE_BYTES).then_some(bytes))
}

/// Decodes UTF-8 and rejects binary data. A NUL byte never occurs in Markdown; it means an image
/// or archive was given a `.md` name.
pub fn decode(bytes: Vec<u8>) -> FileContents {
    if let Some(offset) = memchr::memchr(0, &bytes) {
        return FileContents::Unusable {
            problem: "this is a binary file, not Markdown text (it contains a NUL byte)".into(),
            help: "content files must be UTF-8 Markdown; rename or move this file out of the content folder".into(),
            position: Some(position_of(&bytes, offset)),
        };
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileContents::Text(Arc::new(text)),
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            FileContents::Unusable {
                problem: "file is not valid UTF-8".into(),
                help:
                    "save the file as UTF-8 (most editors have an \"encoding\" option when saving)"
                        .into(),
                position: Some(position_of(err.as_bytes(), offset)),
            }
        }
    }
}

/// Line and column (1-based, columns in characters) of byte `offset`. Bytes before `offset` may
/// not be valid UTF-8 (a binary file's header); they are counted lossily, which is exact for
/// the UTF-8 error case and close enough to find a NUL.
fn position_of(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_text_is_accepted() {
        assert_eq!(decode("hola ñ".as_bytes().to_vec()).text(), Some("hola ñ"));
    }

    #[test]
    fn invalid_utf8_reports_the_offset_of_the_first_bad_byte() {
        let FileContents::Unusable {
            position, problem, ..
        } = decode("a\nbñ\u{ff}".bytes().chain([0xff]).collect())
        else {
            panic!("should be refused");
        };
        assert_eq!(position, Some((2, 4)));
        assert!(problem.contains("UTF-8"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_skipped_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("post.md");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        // A blocking open would wait here forever: no process writes to this FIFO.
        assert_eq!(read_file(&fifo), FileContents::Missing);
    }

    #[test]
    fn an_oversized_file_is_refused_with_the_limit_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.md");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let FileContents::Unusable { problem, help, .. } = read_file(&big) else {
            panic!("an oversized file must be refused");
        };
        assert!(problem.contains("8 MB limit"), "{problem}");
        assert!(help.contains("move large assets"), "{help}");
        std::fs::write(&big, "small").unwrap();
        assert_eq!(read_file(&big).text(), Some("small"));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_content_folder_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let content = dir.path().join("content");
        std::fs::create_dir_all(content.join("blog/en")).unwrap();
        std::fs::write(dir.path().join("secret.md"), "secret").unwrap();
        std::fs::write(content.join("blog/en/inside.md"), "inside").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.md"), content.join("blog/en/a.md"))
            .unwrap();
        std::os::unix::fs::symlink(
            content.join("blog/en/inside.md"),
            content.join("blog/en/b.md"),
        )
        .unwrap();
        assert_eq!(
            read_content(&content, "blog/en/a.md"),
            FileContents::Missing
        );
        assert_eq!(
            read_content(&content, "blog/en/b.md").text(),
            Some("inside")
        );
    }

    #[test]
    fn binary_data_is_refused() {
        let FileContents::Unusable { problem, .. } = decode(b"\x89PNG\r\n\x1a\n\0\0".to_vec())
        else {
            panic!("should be refused");
        };
        assert!(problem.contains("binary"));
    }
}
