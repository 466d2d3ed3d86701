//! `git-t3`: parse the command line, run it, render the outcome, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser as _;
use git_t3::error::{EXIT_FAILED, EXIT_OK};
use git_t3::output::{self, Format};

fn main() -> ExitCode {
    let cli = git_t3::cli::Cli::parse();
    let (format, quiet) = (if cli.json { Format::Json } else { Format::Human }, cli.quiet);
    let code = match git_t3::app::run(cli) {
        Ok(outcome) => {
            if !quiet {
                for w in outcome.warnings() {
                    eprintln!("git t3: {w}");
                }
            }
            // verify reports problems as data, and fails when there are any.
            let failed = matches!(&outcome, git_t3::commands::Outcome::Verify(v) if !v.ok);
            match output::emit(&outcome, format, quiet) {
                Ok(()) if failed => EXIT_FAILED,
                Ok(()) => EXIT_OK,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
                Err(e) => {
                    eprintln!("git t3: could not write output: {e}");
                    EXIT_FAILED
                }
            }
        }
        Err(e) if e.is_broken_pipe() => EXIT_OK,
        Err(e) => {
            eprintln!("git t3: {}", git_t3::error::one_line(&e));
            e.exit_code()
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
