//! The check every output path passes before anything is written.

use std::fmt;

/// Why a relative output path was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum SafePathError {
    Empty,
    Absolute,
    BadPart(String),
}

impl fmt::Display for SafePathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SafePathError::Empty => f.write_str("the path is empty"),
            SafePathError::Absolute => f.write_str("the path is absolute"),
            SafePathError::BadPart(part) => {
                write!(f, "the path part {part:?} could leave the output folder")
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
}
