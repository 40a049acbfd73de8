//! The check every output path passes before anything is written.

use super::dir::NAME_MAX;
use std::fmt;

/// The folder of the tool's own state files (manifest, history, intent record, lock).
pub const STATE_FOLDER: &str = ".content-api/";

/// Why a relative output path was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum SafePathError {
    /// The path is empty.
    Empty,
    /// The path starts with `/`.
    Absolute,
    /// A part that is empty, `.` or `..`, or holds a backslash, a colon or a NUL.
    BadPart(String),
    /// A part longer than a file name can be (with its length in bytes).
    NameTooLong(String, usize),
    /// Inside `.content-api/`, the tool's own state, which no output may replace.
    StateFolder,
}

impl fmt::Display for SafePathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SafePathError::Empty => f.write_str("the path is empty"),
            SafePathError::Absolute => f.write_str("the path is absolute"),
            SafePathError::BadPart(part) => {
                write!(f, "the path part {part:?} could leave the output folder")
            }
            SafePathError::NameTooLong(part, len) => write!(
                f,
                "the name {part:?} is {len} bytes long; file systems allow {NAME_MAX} \
                 (shorten the slug, tag or series name it comes from)"
            ),
            SafePathError::StateFolder => {
                f.write_str("the path is inside .content-api/, the tool's own state")
            }
        }
    }
}

impl std::error::Error for SafePathError {}

/// Accepts `a/b/c.json`: relative, `/`-separated, and no part that is empty, `.`, `..`, or
/// contains a backslash, a colon (Windows drive) or a NUL.
pub fn check_relative(path: &str) -> Result<(), SafePathError> {
    if path.is_empty() {
        return Err(SafePathError::Empty);
    }
    if path.starts_with('/') {
        return Err(SafePathError::Absolute);
    }
    for part in path.split('/') {
        let bad =
            part.is_empty() || part == "." || part == ".." || part.contains(['\\', '\0', ':']);
        if bad {
            return Err(SafePathError::BadPart(part.to_string()));
        }
    }
    Ok(())
}

/// [`check_relative`], plus what the file system and the tool need of an output path: every
/// part fits in a file name, and nothing is inside the state folder. State files name outputs
/// with it too, so an edited manifest cannot make the tool remove its own state.
pub fn check_output_path(path: &str) -> Result<(), SafePathError> {
    check_relative(path)?;
    if path.starts_with(STATE_FOLDER) {
        return Err(SafePathError::StateFolder);
    }
    match path.split('/').find(|part| part.len() > NAME_MAX) {
        Some(part) => Err(SafePathError::NameTooLong(part.to_string(), part.len())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_output_paths_pass() {
        for path in [
            "api/index.json",
            "api/timeline/en/rust.json",
            ".well-known/api-catalog",
            "llms.txt",
        ] {
            assert_eq!(check_relative(path), Ok(()), "{path}");
        }
    }

    #[test]
    fn escapes_are_refused() {
        for path in [
            "",
            "/etc/passwd",
            "../x",
            "api/../../x",
            "a//b",
            "a\\..\\b",
            "c:/x",
            "a/\0",
            "./a",
        ] {
            assert!(check_relative(path).is_err(), "{path:?}");
        }
    }

    #[test]
    fn output_paths_fit_in_file_names_and_stay_out_of_the_state_folder() {
        let long = format!("api/timeline/en/{}.json", "t".repeat(251));
        assert!(matches!(
            check_output_path(&long),
            Err(SafePathError::NameTooLong(_, 256))
        ));
        let fits = format!("api/timeline/en/{}.json", "t".repeat(250));
        assert_eq!(check_output_path(&fits), Ok(()));
        assert_eq!(
            check_output_path(".content-api/published.json"),
            Err(SafePathError::StateFolder)
        );
        assert!(check_output_path("../x").is_err());
    }
}
