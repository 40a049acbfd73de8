//! Resolving flags and `watch.toml` into the settings of a run.

use super::BuildArgs;
use crate::config::SiteConfig;
use crate::db::Preview;
use crate::session::one_shot::Request;
use crate::watch_toml::{self, PlaceholderKeys, normalise_base_url};
use camino::Utf8PathBuf;
use chrono::NaiveDate;
use std::sync::Arc;

/// Everything a run needs, resolved: the config with flags applied, and the build options.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `watch.toml` (or its defaults) with the flags applied.
    pub config: Arc<SiteConfig>,
    /// The config file in use, if any (watch mode reloads it).
    pub config_path: Option<Utf8PathBuf>,
    /// Which keys whose defaults are placeholders the config file sets (none without one).
    pub file_sets: PlaceholderKeys,
    /// `--today`, when given; otherwise today is read from the clock in the site's time zone.
    pub fixed_today: Option<NaiveDate>,
    /// `--drafts`: publish drafts too (a preview, never recorded in the publishing history).
    pub drafts: bool,
    /// `--future`: publish scheduled posts and decks too (a preview, never recorded).
    pub future: bool,
    /// `--purge-list`: where to write the URLs each publish changed or removed.
    pub purge_list: Option<Utf8PathBuf>,
    /// Whether a `build` may record into the publishing history (and keep its state beside
    /// it): there is a `watch.toml`, `--history` names the file, or the file exists. Nothing
    /// is created in a folder that is not a site's.
    pub records_history: bool,
    /// Whether diagnostics on stderr may use colour.
    pub color: bool,
}

impl Settings {
    /// What this run publishes beyond production (`--drafts`, `--future`).
    pub fn preview(&self) -> Preview {
        Preview {
            drafts: self.drafts,
            future: self.future,
        }
    }

    /// This run's settings as the library's builds take them (today read once, here).
    pub fn request(&self) -> Request<'_> {
        Request {
            config: &self.config,
            config_file: self.config_path.as_deref(),
            today: self.today(),
            preview: self.preview(),
            purge_list: self.purge_list.as_deref(),
            records_history: self.records_history,
            ci: ci_is_set(),
        }
    }

    /// Today's date for the build.
    pub fn today(&self) -> NaiveDate {
        self.fixed_today.unwrap_or_else(|| {
            chrono::Utc::now()
                .with_timezone(&self.config.timezone)
                .date_naive()
        })
    }
}

/// Loads the config file and applies the flags. Errors are rendered, ready to print.
pub fn resolve(args: &BuildArgs) -> Result<Settings, String> {
    resolve_or_why(args).map_err(|why| match why {
        Unresolved::Config(diagnostic) => {
            let text = std::fs::read_to_string(&diagnostic.path).ok();
            diagnostic.render(text.as_deref(), super::color::stderr_color())
        }
        Unresolved::Flag(message) => message,
    })
}

/// Why the settings cannot be resolved.
pub enum Unresolved {
    /// The config file cannot be read or is wrong.
    Config(crate::diag::Diagnostic),
    /// A flag's value is wrong: the message, rendered.
    Flag(String),
}

/// [`resolve`], with the config file's error as the diagnostic it is (`check --format json`).
pub fn resolve_or_why(args: &BuildArgs) -> Result<Settings, Unresolved> {
    let color = super::color::stderr_color();
    let (path, required) = match &args.config {
        Some(path) => (path.clone(), true),
        None => (Utf8PathBuf::from("watch.toml"), false),
    };
    let loaded = watch_toml::load(&path, required).map_err(Unresolved::Config)?;
    let config_path = loaded.is_some().then(|| path.clone());
    let (mut config, file_sets) = match loaded {
        Some(read) => (read.config, read.sets),
        None => (
            watch_toml::without_file(camino::Utf8Path::new(".")),
            PlaceholderKeys::default(),
        ),
    };
    if let Some(content) = &args.content {
        config.content_dir = content.clone();
    }
    if let Some(out) = &args.out {
        config.out_dir_for_this_run = *out != config.out_dir;
        config.out_dir = out.clone();
    }
    if let Some(history) = &args.history {
        config.history_file = history.clone();
    }
    if let Some(base_url) = &args.base_url {
        config.base_url = normalise_base_url(base_url)
            .map_err(|why| {
                Unresolved::Flag(format!(
                    "error: invalid --base-url: {why}\n  = help: give the absolute address the site is published at, for example --base-url https://example.com"
                ))
            })?;
    }
    for claim in &args.take_over {
        watch_toml::check_take_over(claim).map_err(|why| {
            Unresolved::Flag(format!("error: invalid --take-over: {why}\n  = help: name a path in the output folder, for example --take-over api/"))
        })?;
        if !config.hosting.take_over.contains(claim) {
            config.hosting.take_over.push(claim.clone());
        }
    }
    let records_history =
        config_path.is_some() || args.history.is_some() || config.history_file.exists();
    Ok(Settings {
        records_history,
        config: Arc::new(config),
        config_path,
        file_sets,
        fixed_today: args.today,
        drafts: args.drafts,
        future: args.future,
        purge_list: args.purge_list.clone(),
        color,
    })
}

/// True when the environment variable `CI` is set as CI services set it (GitHub Actions,
/// GitLab, Buildkite... all set `CI=true`): non-empty and not `false` or `0`.
pub fn ci_is_set() -> bool {
    ci_value_means_ci(std::env::var("CI").ok().as_deref())
}

fn ci_value_means_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_is_any_value_but_empty_false_and_zero() {
        for yes in ["true", "1", "yes", "TRUE"] {
            assert!(ci_value_means_ci(Some(yes)), "{yes}");
        }
        for no in [None, Some(""), Some("0"), Some("false"), Some("False")] {
            assert!(!ci_value_means_ci(no), "{no:?}");
        }
    }
}
