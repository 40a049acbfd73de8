//! Settings that must not be published as they are, checked the same way by `build` and `check`
//! (a pull request's check fails exactly when its deploy would): placeholders (without
//! `watch.toml`, or with one that leaves them out, a build uses `http://localhost:4321` in every
//! URL, a generic author and a licence nobody chose), and a licence the documents cannot state
//! rightly (one content-api does not know, without `licence_url`; a `licence_url` that is
//! another licence's). Always a warning, and an error in CI.

use super::machine::Report;
use super::{BuildArgs, EXIT_USAGE, Settings, Strictness, ci_is_set};
use crate::config::{Licence, SiteConfig};
use crate::diag::Diagnostic;
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
    let keys = settings.file_sets;
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
            how_to_set: "`licence` under [site] in watch.toml (an SPDX identifier such as CC-BY-4.0 gets its URL)",
            used: config.licence.name.clone(),
        });
    }
    found
}

/// What is wrong with the licence settings, one message each (without its level).
pub fn licence_problems(licence: &Licence) -> Vec<String> {
    let mut problems = Vec::new();
    if licence.known.is_none() && licence.url.is_none() {
        problems.push(format!(
            "the licence \"{}\" is not one content-api knows, and `licence_url` is not set: the documents would name it without a link, and say nothing of its terms\n  \
             = help: set `licence_url` under [site] in watch.toml to the licence's text, or write a licence content-api knows by its SPDX identifier ({})",
            licence.name,
            KNOWN_EXAMPLES.join(", ") + ", ..."
        ));
    }
    if let (Some(named), Some(linked), Some(url)) = (licence.known, licence.url_names, &licence.url)
    {
        problems.push(format!(
            "`licence` is \"{}\" ({}), but `licence_url` {url} is the URL of {}: the documents would name one licence and link another\n  \
             = help: make them agree: the URL of {} is {} (or leave `licence_url` out: a licence content-api knows gets its URL)",
            licence.name, named.spdx, linked.spdx, named.spdx, named.url
        ));
    }
    problems
}

/// Examples of SPDX identifiers for the help (each one known: see the test).
const KNOWN_EXAMPLES: [&str; 5] = ["CC-BY-4.0", "CC-BY-SA-4.0", "CC0-1.0", "MIT", "Apache-2.0"];

/// Reports the warnings (or, under `FailInCi` with CI set, the errors) to `report`. `Err`
/// carries the exit code when the run must stop. `build` and `check` call it alike, so they
/// fail together.
pub fn check(
    settings: &Settings,
    args: &BuildArgs,
    strictness: Strictness,
    report: &Report,
) -> Result<(), ExitCode> {
    let found = find(settings, args);
    let licence = licence_problems(&settings.config.licence);
    if found.is_empty() && licence.is_empty() {
        return Ok(());
    }
    let fail = strictness == Strictness::FailInCi && ci_is_set();
    let level = if fail { "error" } else { "warning" };
    let in_ci =
        "\n  = note: the environment variable CI is set, so this is an error; nothing was written";
    let config_file = settings
        .config_path
        .as_ref()
        .map_or("watch.toml", |path| path.as_str());
    if !found.is_empty() {
        let mut list =
            String::from("this build uses placeholder settings, which must not be published:");
        for placeholder in &found {
            list.push_str(&format!(
                "\n  - {} (using {})",
                placeholder.how_to_set, placeholder.used
            ));
        }
        let help = match settings.config_path {
            None => {
                "create watch.toml (`content-api init` writes one with every key explained) and set them"
            }
            Some(_) => "set them in watch.toml",
        };
        if report.is_json() {
            let diagnostic = if fail {
                Diagnostic::error(config_file, list)
            } else {
                Diagnostic::warning(config_file, list)
            };
            report.diagnostic(&diagnostic.help(help), None);
        } else {
            eprintln!(
                "{level}: {list}\n  = help: {help}{}",
                if fail { in_ci } else { "" }
            );
        }
    }
    for problem in licence {
        if report.is_json() {
            let (message, help) = match problem.split_once("\n  = help: ") {
                Some((message, help)) => (message.to_string(), Some(help)),
                None => (problem.clone(), None),
            };
            let mut diagnostic = if fail {
                Diagnostic::error(config_file, message)
            } else {
                Diagnostic::warning(config_file, message)
            };
            if let Some(help) = help {
                diagnostic = diagnostic.help(help);
            }
            report.diagnostic(&diagnostic, None);
        } else {
            eprintln!("{level}: {problem}{}", if fail { in_ci } else { "" });
        }
    }
    if fail {
        Err(ExitCode::from(EXIT_USAGE))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_the_help_gives_are_known() {
        for spdx in KNOWN_EXAMPLES {
            let licence = Licence::new(spdx.to_string(), None);
            assert_eq!(licence.known.map(|k| k.spdx), Some(spdx));
            assert!(licence_problems(&licence).is_empty());
        }
        assert_eq!(
            licence_problems(&Licence::new("Mine".into(), None)).len(),
            1
        );
        assert!(
            licence_problems(&Licence::new(
                "Mine".into(),
                Some("https://x.example/l".into())
            ))
            .is_empty()
        );
    }
}
