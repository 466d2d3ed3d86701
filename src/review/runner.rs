//! The commands the page runs, rendered as the command line renders them.

use super::*;

/// Runs `git t3` commands for the API, as the command line would.
pub(super) struct Runner<'a> {
    /// The runner the edge handed the server.
    pub(super) run: &'a dyn Fn(Cli, bool) -> Result<Outcome>,
    /// The worktree the page shows.
    pub(super) base: PathBuf,
}

type Answer = std::result::Result<Vec<u8>, (u16, Error)>;

impl Runner<'_> {
    pub(super) fn cli(&self, json: bool, args: &[String]) -> std::result::Result<Cli, (u16, Error)> {
        let mut argv = vec![
            "git-t3".to_owned(),
            "-C".to_owned(),
            self.base.display().to_string(),
        ];
        if json {
            argv.push("--json".to_owned());
        }
        argv.extend(args.iter().cloned());
        Cli::try_parse_from(argv).map_err(|e| (400, Error::usage(e.to_string().trim().to_owned())))
    }

    pub(super) fn run(&self, cli: Cli, format: Format) -> Answer {
        let outcome = (self.run)(cli, false).map_err(|e| (status_of(&e), e))?;
        render(&outcome, format)
    }

    /// `git t3 --json <args>`, read-only.
    pub(super) fn json(&self, args: &[String]) -> Answer {
        self.run(self.cli(true, args)?, Format::Json)
    }

    /// `git t3 --json revert <args>`: the one command that writes.
    pub(super) fn revert(&self, args: &[String]) -> Answer {
        let outcome = (self.run)(self.cli(true, args)?, true).map_err(|e| (status_of(&e), e))?;
        render(&outcome, Format::Json)
    }

    /// `git t3 --json list` (built directly: `T3_THREAD` must not turn it
    /// into one thread's turns).
    pub(super) fn threads(&self) -> Answer {
        let cli = Cli {
            directory: Some(self.base.clone()),
            json: true,
            quiet: false,
            command: Command::List(ListArgs {
                thread: None,
                remote: None,
            }),
        };
        self.run(cli, Format::Json)
    }

    /// `git t3 --json list --thread T`.
    pub(super) fn turns(&self, thread: &str) -> Answer {
        self.json(&["list".to_owned(), format!("--thread={thread}")])
    }

    /// `git t3 diff --no-color <args>`: the patch, files from `start` on,
    /// a page at most.
    pub(super) fn patch(&self, args: &[String], start: usize) -> Answer {
        let mut args = args.to_vec();
        args.push("--no-color".to_owned());
        let text = self.run(self.cli(false, &args)?, Format::Human)?;
        serde_json::to_vec(&web::patch_page(&text, start)).map_err(|e| (500, Error::Internal(e.to_string())))
    }
}

pub(super) fn render(outcome: &Outcome, format: Format) -> Answer {
    let mut out = Vec::new();
    output::render(outcome, format, false, &mut out)
        .map_err(|e| (500, Error::Internal(format!("could not render: {e}"))))?;
    Ok(out)
}

/// The HTTP status of a command's error.
pub(super) fn status_of(e: &Error) -> u16 {
    use crate::error::ErrorKind as K;
    match e.kind() {
        K::Usage => 400,
        K::NotFound => 404,
        K::Conflict | K::Refused => 409,
        K::Interrupted => 503,
        _ => 500,
    }
}
