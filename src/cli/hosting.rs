//! `content-api hosting nginx`: prints the nginx server block for the configured output folder.

use super::{BuildArgs, EXIT_USAGE, NginxArgs, resolve};
use crate::render::nginx::server_block;
use std::process::ExitCode;

pub fn nginx(build: &BuildArgs, args: &NginxArgs) -> ExitCode {
    let settings = match resolve(build) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let out_dir = &settings.config.out_dir;
    // nginx resolves a relative root against its own prefix, not the current folder.
    let absolute = match std::path::absolute(out_dir.as_std_path()) {
        Ok(path) => path,
        Err(err) => {
            eprintln!("error: cannot make the output folder `{out_dir}` absolute: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(absolute) = absolute.to_str() else {
        eprintln!("error: the output folder `{out_dir}` is not valid UTF-8");
        return ExitCode::from(EXIT_USAGE);
    };
    match server_block(
        &settings.config,
        absolute.trim_end_matches('/'),
        &args.listen,
    ) {
        Ok(block) => {
            print!("{block}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}
