//! Reading one content file into text, or into the reason it cannot be text.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Content files larger than this are refused: a post of this size is a mistake (a video
/// renamed `.md`, a generated dump), and reading it would stall every rebuild.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A content file as the database sees it. A file that cannot be read is still an input, so
/// its error is reported where the file is, and fixing the file clears it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileContents {
    /// `Arc<String>` rather than `Arc<str>`: the read buffer is kept as is, where converting it
    /// to `Arc<str>` would copy every byte of the content once more.
    Text(Arc<String>),
    /// The file exists but is not usable text. `position` (1-based line and column) locates
    /// the problem when known.
    Unusable {
        /// What is wrong, as a sentence.
        problem: String,
        /// What to do about it.
        help: String,
        /// Line and column, when known.
        position: Option<(usize, usize)>,
    },
    /// The file is gone (watch mode keeps inputs for deleted paths; salsa cannot delete them).
    Missing,
}

impl FileContents {
    /// The text, when the file is usable text.
    pub fn text(&self) -> Option<&str> {
        match self {
            FileContents::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// Reads `path` as UTF-8 text, refusing oversized, binary and non-UTF-8 files with a message
/// that says what to do.
pub fn read_file(path: &Path) -> FileContents {
    match read_limited(path) {
        Ok(Some(bytes)) => decode(bytes),
        Ok(None) => FileContents::Unusable {
            problem: format!(
                "file is larger than the {} MB limit for a content file",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
            help: "content files are Markdown text; move large assets out of the content folder"
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

/// `Ok(None)` when the file is over the limit; never reads more than the limit plus one byte.
fn read_limited(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(
        file.metadata()
            .map(|m| m.len())
            .unwrap_or(0)
            .min(MAX_FILE_BYTES) as usize,
    );
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

    #[test]
    fn binary_data_is_refused() {
        let FileContents::Unusable { problem, .. } = decode(b"\x89PNG\r\n\x1a\n\0\0".to_vec())
        else {
            panic!("should be refused");
        };
        assert!(problem.contains("binary"));
    }
}
