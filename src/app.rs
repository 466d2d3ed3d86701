//! Turn a parsed command line into a call of the library: validate, open the
//! repository once, dispatch to the command.

use crate::cli::{Cli, Command};
use crate::commands::{self, Outcome};
use crate::error::{Context as _, Result};
use crate::model::thread::ThreadId;

/// Run the command `cli` describes.
pub fn run(cli: Cli) -> Result<Outcome> {
    // Validate what needs no repository first, so usage errors win.
    let thread = |raw: &str| ThreadId::parse(raw);
    if let Some(dir) = &cli.directory {
        std::env::set_current_dir(dir).context(|| format!("cannot change to {}", dir.display()))?;
    }
    let open = || -> Result<&'static gix::Repository> {
        let _t = crate::trace::span("open repository");
        // Discover from "." so that gix keeps worktree paths relative: every
        // lstat of the capture walk then resolves fewer path components.
        let repo = crate::repo::open(std::path::Path::new("."))?;
        // One command per process: the repository lives until exit, which
        // frees it anyway (unmapping it first was ~6 % of a quick diff).
        Ok(Box::leak(Box::new(repo)))
    };
    Ok(match cli.command {
        Command::Baseline(a) => {
            let opts = commands::baseline::Options {
                thread: thread(&a.thread.thread)?,
                provider: a.provider,
            };
            Outcome::Checkpoint(commands::baseline::run(open()?, opts)?)
        }
        Command::Capture(a) => {
            let opts = commands::capture::Options {
                thread: thread(&a.thread.thread)?,
                turn: a.turn,
                state: a.state,
                turn_id: a.turn_id,
                message_id: a.message_id,
                replace: a.replace,
                provider: None,
            };
            Outcome::Checkpoint(commands::capture::run(open()?, opts)?)
        }
        Command::Placeholder(a) => {
            let opts = commands::placeholder::Options {
                thread: thread(&a.thread.thread)?,
                turn: a.turn,
                turn_id: a.turn_id,
            };
            let repo = open()?;
            crate::repo::workdir(repo)?;
            Outcome::Checkpoint(commands::placeholder::run(repo, opts)?)
        }
        Command::List(a) => match a.thread {
            Some(t) => {
                let t = thread(&t)?;
                Outcome::Turns(commands::list::turns(open()?, &t)?)
            }
            None => Outcome::Threads(commands::list::threads(open()?)?),
        },
        Command::Show(a) => {
            let t = thread(&a.thread.thread)?;
            Outcome::Show(commands::show::run(open()?, &t, a.turn)?)
        }
        Command::Diff(a) => Outcome::Diff(diff(a, cli.json, &open)?),
        Command::Revert(a) => {
            let t = thread(&a.thread.thread)?;
            let repo = open()?;
            Outcome::Revert(if a.resume {
                crate::revert::resume(repo, &t)?
            } else if a.abort {
                crate::revert::abort(repo, &t)?
            } else if a.undo {
                crate::revert::undo(repo, &t)?
            } else {
                let to = a.to.ok_or_else(|| crate::Error::usage("revert needs --to <N>"))?;
                crate::revert::start(
                    repo,
                    crate::revert::Options {
                        thread: t,
                        to,
                        files_only: a.files_only,
                        dry_run: a.dry_run,
                    },
                )?
            })
        }
        Command::Verify(a) => {
            let thread = a.thread.as_deref().map(ThreadId::parse).transpose()?;
            let max_journal_age_secs = parse_age(&a.max_journal_age)?;
            let outcome = commands::verify::run(
                open()?,
                commands::verify::Options {
                    thread,
                    max_journal_age_secs,
                },
            )?;
            Outcome::Verify(outcome)
        }
        Command::InstallHooks(a) => {
            Outcome::Install(commands::install::install(open()?, install_options(&a))?)
        }
        Command::UninstallHooks(a) => {
            Outcome::Install(commands::install::uninstall(open()?, install_options(&a))?)
        }
        Command::Completions(a) => {
            Outcome::Text(crate::cli::completions(&a.shell).map_err(crate::Error::usage)?)
        }
        Command::Mangen(a) => Outcome::Files(
            crate::cli::mangen(&a.dir)
                .context(|| format!("could not write man pages into {}", a.dir.display()))?
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        ),
        Command::Hook(a) => {
            // A hook never breaks the agent: every failure becomes a message.
            let payload = match a.payload {
                Some(p) => Ok(p.into_bytes()),
                None => {
                    use std::io::Read as _;
                    let mut buf = Vec::new();
                    std::io::stdin()
                        .take(8 << 20)
                        .read_to_end(&mut buf)
                        .map(|_| buf)
                        .map_err(|e| crate::Error::BadInput {
                            source_name: format!("the {} hook payload", a.agent),
                            problem: format!("could not read it: {e}"),
                        })
                }
            };
            let result = payload.and_then(|p| commands::hook::run(&a.agent, &p));
            Outcome::Hook(result.map_err(|e| format!("hook {}: {}", a.agent, crate::error::one_line(&e))))
        }
        Command::Push(a) | Command::Fetch(a) if a.remote.as_deref().is_some_and(|r| r.starts_with('-')) => {
            return Err(crate::Error::usage("a remote name cannot start with '-'"));
        }
        Command::Push(a) => {
            let t = a.thread.as_deref().map(ThreadId::parse).transpose()?;
            let repo = open()?;
            let remote = crate::sync::default_remote(repo, a.remote.as_deref());
            Outcome::Sync(crate::sync::push(repo, &remote, t.as_ref())?)
        }
        Command::Fetch(a) => {
            let t = a.thread.as_deref().map(ThreadId::parse).transpose()?;
            let repo = open()?;
            let remote = crate::sync::default_remote(repo, a.remote.as_deref());
            Outcome::Sync(crate::sync::fetch(repo, &remote, t.as_ref())?)
        }
        Command::Drop(a) => {
            let t = thread(&a.thread.thread)?;
            Outcome::Drop(commands::drop::run(open()?, &t, a.force)?)
        }
    })
}

fn diff(
    a: crate::cli::DiffArgs,
    json: bool,
    open: &dyn Fn() -> Result<&'static gix::Repository>,
) -> Result<commands::diff::DiffOutcome> {
    use commands::diff::{Format, Mode};
    let mode = if a.worktree {
        Mode::Worktree
    } else if let Some(base) = a.branch {
        Mode::Branch((!base.is_empty()).then_some(base))
    } else if a.full {
        Mode::Full { to: a.to }
    } else if let Some(from) = a.from {
        Mode::Range { from, to: a.to }
    } else if let Some(to) = a.to {
        Mode::Turn(Some(to))
    } else {
        Mode::Turn(a.turn)
    };
    let needs_thread = matches!(mode, Mode::Turn(_) | Mode::Range { .. } | Mode::Full { .. });
    let thread = match (a.thread, needs_thread) {
        (Some(t), true) => Some(ThreadId::parse(&t)?),
        (None, true) => {
            return Err(crate::Error::usage(
                "this diff needs --thread <ID> (or T3_THREAD)",
            ));
        }
        (_, false) => None,
    };
    let format = if a.stat {
        Format::Stat
    } else if a.numstat {
        Format::Numstat
    } else if a.name_only {
        Format::NameOnly
    } else {
        Format::Patch
    };
    let repo = open()?;
    let mut outcome = commands::diff::run(
        repo,
        commands::diff::Options {
            thread,
            mode,
            ignore_whitespace: !a.keep_whitespace,
            binary: a.binary,
            // JSON needs no patch text: do not build it.
            format: if json { Format::NameOnly } else { format },
        },
    )?;
    outcome.format = format;
    outcome.null_terminated = a.null;
    outcome.color = !json && crate::output::pager::use_color(repo);
    outcome.pager = if json {
        None
    } else {
        crate::output::pager::pager_command(Some(repo))
    };
    Ok(outcome)
}

/// `30s`, `30m`, `12h`, `2d` or plain seconds.
fn parse_age(raw: &str) -> Result<u64> {
    let raw = raw.trim();
    let (digits, unit) = raw.split_at(raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| crate::Error::usage(format!("'{raw}' is not an age like 30m, 12h or 2d")))?;
    let factor = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(crate::Error::usage(format!(
                "'{raw}' is not an age like 30m, 12h or 2d"
            )));
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| crate::Error::usage(format!("'{raw}' is too long an age")))
}

fn install_options(a: &crate::cli::InstallArgs) -> commands::install::Options {
    let all = !(a.claude_code || a.codex || a.git);
    commands::install::Options {
        claude_code: a.claude_code || all,
        codex: a.codex || all,
        git: a.git || all,
    }
}
