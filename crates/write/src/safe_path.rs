//! The check every output path passes before anything is written, and every path a state file
//! names (the manifest, the intent record, the fingerprint, `outputs.json`, the deploy record
//! read back from the live site, the history's lines) passes before it is used: one rule, so a
//! state file can name nothing the tool could not have written itself.

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
    /// A part with a character no output of this tool has (a control character, a space, `%`...).
    NotPlain(String),
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
            SafePathError::NotPlain(part) => write!(
                f,
                "the path part {part:?} has a character outside ASCII letters, digits, `.`, `_`, \
                 `-` and `~`, which no output of this tool has"
            ),
            SafePathError::StateFolder => {
                f.write_str("the path is inside .content-api/, the tool's own state")
            }
        }
    }
}

impl std::error::Error for SafePathError {}

/// Accepts `a/b/c.json`: relative, `/`-separated, and no part that is empty, `.`, `..`, or
/// contains a backslash, a colon (Windows drive) or a control character (a NUL, a newline).
pub fn check_relative(path: &str) -> Result<(), SafePathError> {
    if path.is_empty() {
        return Err(SafePathError::Empty);
    }
    if path.starts_with('/') {
        return Err(SafePathError::Absolute);
    }
    for part in path.split('/') {
        let bad = part.is_empty() || part == "." || part == ".." || part.contains(['\\', ':']);
        let bad = bad || part.contains(char::is_control);
        if bad {
            return Err(SafePathError::BadPart(part.to_string()));
        }
    }
    Ok(())
}

/// `check_relative`, plus what the file system and the tool need of an output path: every
/// part fits in a file name, is plain (ASCII letters, digits, `.`, `_`, `-`, `~`: slugs and the
/// tool's fixed names, so a path is its own URL, with nothing a purge list or a host file could
/// read otherwise), and nothing is inside the state folder. State files name outputs with it
/// too, so an edited manifest cannot make the tool remove its own state, nor an edited record
/// put a line of its choosing in a purge list.
pub fn check_output_path(path: &str) -> Result<(), SafePathError> {
    check_relative(path)?;
    if path.starts_with(STATE_FOLDER) {
        return Err(SafePathError::StateFolder);
    }
    for part in path.split('/') {
        if part.len() > NAME_MAX {
            return Err(SafePathError::NameTooLong(part.to_string(), part.len()));
        }
        if !part.bytes().all(is_plain) {
            return Err(SafePathError::NotPlain(part.to_string()));
        }
    }
    Ok(())
}

fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-' | b'~')
}

/// The most files a record of one build may list (`outputs.json`, the deploy record): what
/// their size bounds were chosen for. A record listing more is not one this tool wrote.
pub const MAX_RECORDED_FILES: usize = 200_000;

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
            "api/x\nhttps://victim.example/everything",
            "api/x\r.json",
            "api/\u{7f}.json",
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

    #[test]
    fn output_paths_are_plain_so_each_is_its_own_url() {
        for path in [
            "api/x y.json",
            "api/%2e%2e/x.json",
            "api/x.json?y",
            "api/#x",
            "api/caf\u{e9}.json",
            "api/\u{2028}.json",
        ] {
            assert!(
                matches!(check_output_path(path), Err(SafePathError::NotPlain(_))),
                "{path:?}"
            );
        }
        assert_eq!(check_output_path("api/timeline/en/rust_1~2.json"), Ok(()));
    }
}
