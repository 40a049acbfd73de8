//! Shell completions and the man page, generated from the same clap definitions as `--help`.

use clap::Args;
use clap_complete::Shell;
use std::io::Write;
use std::process::ExitCode;

/// Flags of `completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `command` is the whole command line's definition (`Cli::command()`).
pub fn print_completions(args: &CompletionsArgs, mut command: clap::Command) -> ExitCode {
    let name = command.get_name().to_string();
    clap_complete::generate(args.shell, &mut command, name, &mut std::io::stdout());
    ExitCode::SUCCESS
}

/// `command` is the whole command line's definition (`Cli::command()`).
pub fn print_man_page(command: clap::Command) -> ExitCode {
    let mut page = Vec::new();
    let rendered = clap_mangen::Man::new(command).render(&mut page);
    match rendered.and_then(|()| std::io::stdout().write_all(&page)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: cannot write the man page: {err}");
            ExitCode::from(super::EXIT_CONTENT_ERRORS)
        }
    }
}
