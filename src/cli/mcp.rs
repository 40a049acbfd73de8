//! `content-api mcp`: the site's tools over stdio (see `crate::mcp`), reading the output folder
//! the settings name, or a live site (`--site`).

use super::args::McpArgs;
use super::flags::BuildArgs;
use super::{EXIT_USAGE, resolve};
use crate::mcp::{Origin, run};
use std::process::ExitCode;

pub fn mcp(build: &BuildArgs, args: &McpArgs) -> ExitCode {
    let origin = match &args.site {
        Some(url) => Origin::Site(url.clone()),
        None => match resolve(build) {
            Ok(settings) => Origin::Folder(settings.config.out_dir.clone()),
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::from(EXIT_USAGE);
            }
        },
    };
    match run(origin) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
