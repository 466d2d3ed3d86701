//! The edge of the library: turn a parsed command line and the process
//! environment into plain options, open the repository once, and dispatch
//! to the command. Environment variables are read here and nowhere else.

use std::path::PathBuf;

use crate::cli::{Cli, Command};
use crate::commands::{self, Context, Outcome, Settings};
use crate::error::{Context as _, Error, Result};
use crate::model::thread::ThreadId;
use crate::repo::lock::DEFAULT_TIMEOUT;

use super::args::{diff, install_options, log, op, parse_age, revert_action};
use super::edge::Edge;
use super::env::Environment;
use super::hook::hook;
use super::thread::Named;

/// Run the command `cli` describes, in the environment `env`.
pub fn run(cli: Cli, env: &Environment) -> Result<Outcome> {
    crate::trace::enable(env.trace || cli.timings);
    let base = cli.directory.clone().unwrap_or_else(|| PathBuf::from("."));
    // Validate what needs no repository first, so usage errors win.
    let open = |settings: Settings| -> Result<Context> {
        let _t = crate::trace::span("open repository");
        if env.config_overrides.is_none() {
            return Err(Error::usage(
                "bogus format in GIT_CONFIG_PARAMETERS, or GIT_CONFIG_COUNT without its keys and values",
            ));
        }
        Context::open(&base, settings)
    };
    let settings = env.settings(DEFAULT_TIMEOUT);
    let installing = matches!(cli.command, Command::InstallHooks(_));
    match cli.command {
        Command::Hook(a) => Ok(Outcome::Hook(hook(a, &base, env))),
        Command::Completions(a) => Ok(Outcome::Text(
            crate::cli::completions(&a.shell).map_err(Error::usage)?,
        )),
        Command::Mangen(a) => {
            let dir = match &a.dir {
                Some(dir) => base.join(dir),
                None => crate::cli::man::default_dir()
                    .context(|| "could not find where git-t3 is installed".into())?,
            };
            let written = crate::cli::man::generate(&dir)
                .context(|| format!("could not write man pages into {}", dir.display()))?;
            Ok(Outcome::Files(
                written.iter().map(|p| p.display().to_string()).collect(),
            ))
        }
        Command::InstallHooks(a) | Command::UninstallHooks(a) => {
            let opts = install_options(&a)?;
            // A user-scoped agent set-up needs no repository.
            let ctx = if opts.needs_repository() {
                Some(open(settings)?)
            } else {
                None
            };
            let repo = ctx.as_ref().map(|c| &c.repo);
            Ok(Outcome::Install(if installing {
                commands::install::install(repo, &env.places, &opts)?
            } else {
                commands::install::uninstall(repo, &env.places, &opts)?
            }))
        }
        Command::Review(a) => {
            let opts = super::args::review_options(&a, &base)?;
            // A GET reads only; the revert POST may write.
            let open_page = |writes: bool| {
                open(Settings {
                    read_only: !writes,
                    ..settings.clone()
                })
            };
            let host = crate::web::Host {
                open: &open_page,
                interrupt: env.interrupt,
                browser: env.browser.clone(),
            };
            Ok(Outcome::Review(crate::web::serve(opts, &host, &mut |url| {
                crate::output::web::announce(url)
            })?))
        }
        command => {
            let mut settings = settings;
            if let Command::Diff(a) = &command {
                // Like git's, a flag beats its setting, `-c` included.
                if let Some(algorithm) = a.algorithm() {
                    settings
                        .config_overrides
                        .push(format!("diff.algorithm={algorithm}"));
                }
                if let Some(n) = a.git.abbrev() {
                    settings.config_overrides.push(format!("core.abbrev={n}"));
                }
                if let Some(on) = a.git.indent_heuristic() {
                    settings
                        .config_overrides
                        .push(format!("diff.indentHeuristic={on}"));
                }
            }
            let edge = Edge {
                json: cli.json,
                quiet: cli.quiet,
                term: &env.terminal,
                base: &base,
                time_zone: &env.time_zone,
                say: env.say,
            };
            repository_command(command, &edge, &|| open(settings.clone()))
        }
    }
}

/// The commands that work on a repository.
fn repository_command(
    command: Command,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<Outcome> {
    Ok(match command {
        command @ (Command::Baseline(_) | Command::Capture(_) | Command::Placeholder(_)) => {
            record(command, edge, open)?
        }
        command @ (Command::List(_)
        | Command::Show(_)
        | Command::Log(crate::cli::LogArgs { remote: Some(_), .. })) => listing(command, edge, open)?,
        Command::Diff(a) => Outcome::Diff(diff(a, edge, open)?),
        command @ (Command::Log(_) | Command::Status | Command::Rev(_) | Command::Restore(_)) => {
            review(command, edge, open)?
        }
        command => upkeep(command, edge, open)?,
    })
}

/// `baseline`, `capture` and `placeholder`.
fn record(command: Command, edge: &Edge<'_>, open: &dyn Fn() -> Result<Context>) -> Result<Outcome> {
    // The thread exactly as named (these create it), `@` the current one.
    let thread = |raw: &str| -> Result<(Context, ThreadId)> {
        let named = Named::given(raw)?;
        let ctx = open()?;
        let thread = named.exact(&ctx, edge)?;
        Ok((ctx, thread))
    };
    Ok(match command {
        Command::Baseline(a) => {
            let (ctx, thread) = thread(&a.thread.thread)?;
            let opts = commands::baseline::Options {
                thread,
                provider: a.provider,
                agent: Some(a.agent.unwrap_or_else(|| "cli".into())),
            };
            Outcome::Checkpoint(commands::baseline::run(&ctx, opts)?)
        }
        Command::Capture(a) => {
            let (ctx, thread) = thread(&a.thread.thread)?;
            let opts = commands::capture::Options {
                turn: a.turn,
                state: a.state,
                turn_id: a.turn_id,
                message_id: a.message_id,
                replace: a.replace,
                title: a.title,
                agent: Some(a.agent.unwrap_or_else(|| "cli".into())),
                ..commands::capture::Options::new(thread)
            };
            Outcome::Checkpoint(commands::capture::run(&ctx, opts)?)
        }
        Command::Placeholder(a) => {
            let (ctx, thread) = thread(&a.thread.thread)?;
            let opts = commands::placeholder::Options {
                thread,
                turn: a.turn,
                turn_id: a.turn_id,
            };
            Outcome::Checkpoint(commands::placeholder::run(&ctx, opts)?)
        }
        _ => return Err(Error::Internal("not a recording command".into())),
    })
}

/// `list`, `show` and `log --remote`.
fn listing(command: Command, edge: &Edge<'_>, open: &dyn Fn() -> Result<Context>) -> Result<Outcome> {
    Ok(match command {
        Command::List(crate::cli::ListArgs {
            thread,
            remote: Some(remote),
            ..
        }) => {
            commands::sync::check_remote(Some(&remote))?;
            let named = Named::optional(thread.as_deref())?;
            let ctx = open()?;
            let thread = named.map(|n| n.exact(&ctx, edge)).transpose()?;
            Outcome::Remote(commands::list::remote(&ctx.repo, &remote, thread.as_ref())?)
        }
        Command::Log(crate::cli::LogArgs {
            thread: crate::cli::ThreadSel { thread },
            remote: Some(remote),
            ..
        }) => {
            commands::sync::check_remote(Some(&remote))?;
            let named = Named::or_current(thread.as_deref())?;
            let ctx = open()?;
            let thread = named.exact(&ctx, edge)?;
            Outcome::Remote(commands::list::remote(&ctx.repo, &remote, Some(&thread))?)
        }
        Command::List(a) => match Named::optional(a.thread.as_deref())? {
            Some(t) => {
                let ctx = open()?;
                let thread = t.resolve(&ctx, edge)?;
                let how = super::args::counting(&a.counts, &ctx.repo);
                let mut listed = commands::list::turns(&ctx, &thread, how)?;
                listed.view.time_zone = edge.time_zone();
                Outcome::Turns(listed)
            }
            None => {
                let mut listed = commands::list::threads(&open()?.repo)?;
                listed.view.time_zone = edge.time_zone();
                Outcome::Threads(listed)
            }
        },
        Command::Show(a) => {
            let named = Named::or_current(a.thread.thread.as_deref())?;
            let ctx = open()?;
            let thread = named.resolve(&ctx, edge)?;
            let how = super::args::counting(&a.counts, &ctx.repo);
            Outcome::Show(commands::show::run(&ctx, &thread, a.turn, how)?)
        }
        _ => return Err(Error::Internal("not a listing command".into())),
    })
}

/// `revert`, `verify`, `push`, `fetch`, `op`, `notes`, `du`, `prune`,
/// `maintenance` and `drop`.
fn upkeep(command: Command, edge: &Edge<'_>, open: &dyn Fn() -> Result<Context>) -> Result<Outcome> {
    let resolve = |named: Option<Named>, ctx: &Context| named.map(|n| n.resolve(ctx, edge)).transpose();
    Ok(match command {
        Command::Revert(a) => {
            let named = Named::or_current(a.thread.thread.as_deref())?;
            let action = revert_action(&a)?;
            let ctx = open()?;
            let thread = named.resolve(&ctx, edge)?;
            Outcome::Revert(commands::revert::run(&ctx, &thread, action)?)
        }
        Command::Verify(a) => {
            let named = Named::optional(a.thread.as_deref())?;
            let max_journal_age_secs = parse_age(&a.max_journal_age)?;
            let ctx = open()?;
            let opts = commands::verify::Options {
                thread: resolve(named, &ctx)?,
                max_journal_age_secs,
                fix: a.fix,
                quick: a.quick,
            };
            Outcome::Verify(commands::verify::run(&ctx, opts)?)
        }
        Command::Push(crate::cli::PushArgs { sync, allow_secrets }) => Outcome::Sync(sync_command(
            commands::sync::Direction::Push { allow_secrets },
            sync,
            edge,
            open,
        )?),
        Command::Fetch(a) => Outcome::Sync(sync_command(commands::sync::Direction::Fetch, a, edge, open)?),
        Command::Op(a) => Outcome::Op(op(a.action, edge, open)?),
        Command::Notes(a) => {
            let crate::cli::NotesAction::Backfill { thread, dry_run } = a.action;
            let named = Named::optional(thread.as_deref())?;
            let ctx = open()?;
            let opts = commands::notes::Options {
                thread: resolve(named, &ctx)?,
                dry_run,
            };
            Outcome::Notes(commands::notes::backfill(&ctx, opts)?)
        }
        Command::Du(a) => {
            let named = Named::optional(a.thread.as_deref())?;
            let ctx = open()?;
            let only = resolve(named, &ctx)?;
            Outcome::Du(commands::du::run(&ctx.repo, only.as_ref())?)
        }
        Command::Prune(a) => {
            let opts = commands::prune::Options {
                older_than: a.older_than.as_deref().map(parse_age).transpose()?,
                keep_last: a.keep_last,
                dry_run: a.dry_run,
                force: a.force,
                start_maintenance: true,
            };
            Outcome::Prune(commands::prune::run(&open()?, opts)?)
        }
        Command::Maintenance(a) => {
            Outcome::Maintenance(commands::prune::maintenance(&open()?, a.prune, a.auto)?)
        }
        Command::Drop(a) => {
            // Always named (`@` names the current thread on purpose).
            let named = Named::given(&a.thread.thread)?;
            let ctx = open()?;
            let thread = named.resolve(&ctx, edge)?;
            Outcome::Drop(commands::drop::run(&ctx, &thread, a.force)?)
        }
        _ => {
            return Err(Error::Internal(
                "a command without a repository reached the dispatch".into(),
            ));
        }
    })
}

/// `push` and `fetch`.
fn sync_command(
    dir: commands::sync::Direction,
    a: crate::cli::SyncArgs,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::sync::SyncOutcome> {
    let named = Named::optional(a.thread.as_deref())?;
    // Usage first, before a repository is looked for.
    commands::sync::check_remote(a.remote.as_deref())?;
    let ctx = open()?;
    let t = named.map(|n| n.resolve(&ctx, edge)).transpose()?;
    commands::sync::run(&ctx, dir, a.remote.as_deref(), t.as_ref())
}

/// `log`, `status`, `rev` and `restore`.
fn review(command: Command, edge: &Edge<'_>, open: &dyn Fn() -> Result<Context>) -> Result<Outcome> {
    Ok(match command {
        Command::Log(a) => Outcome::Log(log(a, edge, open)?),
        Command::Status => Outcome::Status(commands::status::run(&open()?)?),
        Command::Rev(a) => {
            let named = Named::or_current(a.thread.thread.as_deref())?;
            let ctx = open()?;
            let thread = named.resolve(&ctx, edge)?;
            Outcome::Rev(commands::rev::run(&ctx.repo, &thread, a.turn)?)
        }
        Command::Restore(a) => {
            let named = Named::or_current(a.thread.thread.as_deref())?;
            let ctx = open()?;
            let opts = commands::restore::Options {
                thread: named.resolve(&ctx, edge)?,
                turn: a.turn,
                paths: a.paths,
                cwd: edge.base.to_owned(),
                force: a.force,
                remote: a.remote,
            };
            commands::sync::check_remote(opts.remote.as_deref())?;
            Outcome::Restore(commands::restore::run(&ctx, opts)?)
        }
        _ => {
            return Err(Error::Internal(
                "a command that is not a review command reached review".into(),
            ));
        }
    })
}
