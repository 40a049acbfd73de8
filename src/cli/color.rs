//! Colour on stderr: whether diagnostics and logs may use it (a terminal, and `NO_COLOR`
//! unset or empty, <https://no-color.org>).

/// Whether messages on stderr may be coloured: stderr is a terminal and `NO_COLOR` is not set
/// to a non-empty value (<https://no-color.org>). Logs and diagnostics both follow it.
pub fn stderr_color() -> bool {
    use std::io::IsTerminal;
    color_allowed(
        std::env::var_os("NO_COLOR").as_deref(),
        std::io::stderr().is_terminal(),
    )
}

fn color_allowed(no_color: Option<&std::ffi::OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_turns_colour_off_unless_empty() {
        use std::ffi::OsStr;
        assert!(color_allowed(None, true));
        assert!(color_allowed(Some(OsStr::new("")), true));
        assert!(!color_allowed(Some(OsStr::new("1")), true));
        assert!(!color_allowed(None, false));
    }
}
