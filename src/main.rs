//! `git-t3`: parse the command line, run it, render the outcome, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser as _;
use git_t3::app::{self, Environment};
use git_t3::output::{self, Format};

fn main() -> ExitCode {
    // `GIT_T3_COMPLETE=<shell>`: the shell asks for completions.
    git_t3::cli::complete_if_asked();
    let cli = git_t3::cli::Cli::parse();
    let (format, quiet) = (if cli.json { Format::Json } else { Format::Human }, cli.quiet);
    let env = Environment {
        interrupt: git_t3::interrupt::install(),
        ..Environment::from_process()
    };
    let code = match app::run(cli, &env) {
        Ok(outcome) => output::finish(&outcome, format, quiet, &env.terminal),
        Err(e) => output::fail(&e, format),
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
