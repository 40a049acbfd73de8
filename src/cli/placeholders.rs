//! Placeholder settings: without `watch.toml` (or with one that leaves them out) a build uses
//! `http://localhost:4321` in every URL, a generic author and a licence nobody chose. Fine for a
//! first look, wrong in production: always a warning, and an error in CI.

use super::{BuildArgs, EXIT_USAGE, Settings, Strictness, ci_is_set};
use crate::config::SiteConfig;
use std::process::ExitCode;

/// One setting the build is using a placeholder for.
#[derive(Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// How to set it: `base_url` (watch.toml) or `--base-url URL`.
    pub how_to_set: &'static str,
    /// The value used instead.
    pub used: String,
}

/// The settings of this run that are placeholders.
pub fn find(settings: &Settings, args: &BuildArgs) -> Vec<Placeholder> {
    let keys = configured_keys(settings);
    let config: &SiteConfig = &settings.config;
    let mut found = Vec::new();
    if args.base_url.is_none() && !keys.base_url {
        found.push(Placeholder {
            how_to_set: "`base_url` in watch.toml (or --base-url URL)",
            used: config.base_url.clone(),
        });
    }
    if !keys.author {
        found.push(Placeholder {
            how_to_set: "`author` under [site] in watch.toml",
            used: format!("\"{}\"", config.author),
        });
    }
    if !keys.licence {
        found.push(Placeholder {
            how_to_set: "`licence` and `licence_url` under [site] in watch.toml",
            used: config.licence.name.clone(),
        });
    }
    found
}

/// Prints the warning (or, under `FailInCi` with CI set, the error). `Err` carries the exit
/// code when the run must stop.
pub fn check(
    settings: &Settings,
    args: &BuildArgs,
    strictness: Strictness,
) -> Result<(), ExitCode> {
    let found = find(settings, args);
    if found.is_empty() {
        return Ok(());
    }
    let fail = strictness == Strictness::FailInCi && ci_is_set();
    let level = if fail { "error" } else { "warning" };
    let mut message =
        format!("{level}: this build uses placeholder settings, which must not be published:\n");
    for placeholder in &found {
        message.push_str(&format!(
            "  - {} (using {})\n",
            placeholder.how_to_set, placeholder.used
        ));
    }
    message.push_str(match settings.config_path {
        None => "  = help: create watch.toml (`content-api init` writes one with every key explained) and set them",
        Some(_) => "  = help: set them in watch.toml",
    });
    if fail {
        message.push_str(
            "\n  = note: the environment variable CI is set, so this is an error; nothing was written",
        );
    }
    eprintln!("{message}");
    if fail {
        Err(ExitCode::from(EXIT_USAGE))
    } else {
        Ok(())
    }
}

/// Which placeholder-prone keys the config file sets.
#[derive(Debug, Default)]
struct ConfiguredKeys {
    base_url: bool,
    author: bool,
    licence: bool,
}

/// Read from the file itself: the resolved config cannot tell a default from a value that
/// happens to equal it. The file already parsed once (in `resolve`), so errors cannot occur.
fn configured_keys(settings: &Settings) -> ConfiguredKeys {
    let Some(table) = settings
        .config_path
        .as_ref()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| text.parse::<toml::Table>().ok())
    else {
        return ConfiguredKeys::default();
    };
    let site = table.get("site").and_then(toml::Value::as_table);
    let in_site = |key: &str| site.is_some_and(|site| site.contains_key(key));
    ConfiguredKeys {
        base_url: table.contains_key("base_url"),
        author: in_site("author"),
        licence: in_site("licence"),
    }
}
