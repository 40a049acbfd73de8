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

/// `command` is the whole command line's definition (`Cli::command()`). One page: the top
/// level as clap_mangen renders it, then a section per command (and per command of a command:
/// `new post`, `hosting nginx`) with its synopsis, description and options, as `git`'s and
/// `cargo`'s pages are read with `/build`.
pub fn print_man_page(command: clap::Command) -> ExitCode {
    let mut page = Vec::new();
    let rendered = clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .and_then(|()| render_commands(&command, command.get_name(), &mut page));
    match rendered.and_then(|()| std::io::stdout().write_all(&page)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: cannot write the man page: {err}");
            ExitCode::from(super::EXIT_CONTENT_ERRORS)
        }
    }
}

/// A section per visible command of `parent` (`prefix` is its full name), its own sections
/// made subsections, then its commands' in turn.
fn render_commands(
    parent: &clap::Command,
    prefix: &str,
    page: &mut Vec<u8>,
) -> Result<(), std::io::Error> {
    for command in parent.get_subcommands().filter(|c| !c.is_hide_set()) {
        let full = format!("{prefix} {}", command.get_name());
        let named = command
            .clone()
            .bin_name(full.clone())
            .display_name(full.clone());
        let man = clap_mangen::Man::new(named.clone());
        let mut sections = Vec::new();
        man.render_synopsis_section(&mut sections)?;
        man.render_description_section(&mut sections)?;
        man.render_options_section(&mut sections)?;
        writeln!(page, ".SH \"{}\"", full.to_uppercase())?;
        page.extend(
            String::from_utf8_lossy(&sections)
                .replace(".SH ", ".SS ")
                .bytes(),
        );
        if named.has_subcommands() {
            render_commands(&named, &full, page)?;
        }
    }
    Ok(())
}
