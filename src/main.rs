//! `git-t3`: parse the command line, run it, render the outcome, map errors to exit codes.

use std::process::ExitCode;

use git_t3::cli::{self, Environment};
use git_t3::output::{self, Format};

fn main() -> ExitCode {
    git_t3::trace::start_clock();
    // `GIT_T3_COMPLETE=<shell>`: the shell asks for completions.
    cli::complete_if_asked();
    // `--help` opens the man page when it is installed, as git's do;
    // otherwise clap prints the built-in help.
    let args: Vec<_> = std::env::args_os().collect();
    if let Some(page) = cli::man::page_for_help(&args, std::io::IsTerminal::is_terminal(&std::io::stdout())) {
        return ExitCode::from(u8::try_from(cli::man::show(&page)).unwrap_or(1));
    }
    let parsed = cli::parse(cli::git_diff_shorts(args));
    let (format, quiet) = (
        if parsed.json { Format::Json } else { Format::Human },
        parsed.quiet,
    );
    // Background maintenance starts this program again: the binary hands
    // the library that way (an embedder that does not gets none).
    git_t3::retention::maintenance::install_starter(cli::start_maintenance);
    let env = Environment {
        interrupt: git_t3::interrupt::install(),
        say: Some(output::say),
        ..Environment::from_process()
    };
    let code = match cli::run(parsed, &env) {
        Ok(outcome) => output::finish(&outcome, format, quiet, &env.terminal, env.interrupt),
        Err(e) => output::fail(&e, format),
    };
    git_t3::fault::report_peak();
    git_t3::trace::mark("done");
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
