//! Arguments turned into commands' options: diff, log, op, revert,
//! install-hooks, ages.

use super::diff_args::{diff_number, git_view, shape};
use super::diff_replay;
use super::edge::Edge;
use super::thread::Named;
use crate::commands::{self, Context};
use crate::error::{Error, Result};

pub(super) fn diff(
    a: crate::cli::DiffArgs,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::diff::DiffOutcome> {
    use commands::diff::{Format, Formats, Mode};
    let (json, quiet, term) = (edge.json, edge.quiet, edge.term);
    a.git.refused.check()?;
    let mode = diff_mode(&a)?;
    let live_worktree = matches!(mode, Mode::Worktree | Mode::ToWorktree { .. });
    let needs_thread = matches!(
        mode,
        Mode::Turn(_) | Mode::Range { .. } | Mode::Full { .. } | Mode::ToWorktree { .. }
    );
    let thread = needs_thread
        .then(|| Named::or_current(a.thread.as_deref()))
        .transpose()?;
    let filter = a.git.filter()?;
    let context = diff_replay::context(&a)?;
    let ctx = open()?;
    // git reads its settings before anything else, and stops on a bad one.
    let warnings = crate::compare::check_settings(&ctx.repo)?;
    let (format, compact_summary) = diff_replay::formats(&a, &ctx.repo)?;
    let config_number = |key: &str| diff_number(&ctx.repo, key);
    let thread = thread.map(|t| t.resolve(&ctx, edge)).transpose()?;
    if let (Mode::ToWorktree { .. }, Some(t)) = (&mode, &thread) {
        crate::store::require_bound_here(&ctx.repo, t, "diff --to worktree", a.force)?;
    }
    let prefix = crate::repo::prefix(&ctx.repo, edge.base);
    let live = matches!(mode, Mode::Worktree | Mode::Branch(_));
    let ignore_whitespace = if a.keep_whitespace {
        false
    } else if a.ignore_all_space {
        true
    } else if a.git.space().is_some() {
        // `-b` or `--ignore-space-at-eol` asked for less than `-w`.
        false
    } else {
        // Turn diffs hide whitespace (the seed's default); the live modes
        // compare like `git diff`.
        !live && crate::compare::default_ignore_whitespace(&ctx.repo)
    };
    let modes = format.summary || (format.stat && compact_summary);
    let algorithm_given = a.algorithm().is_some();
    let mut outcome = commands::diff::run(
        &ctx,
        commands::diff::Options {
            thread,
            mode,
            ignore_whitespace,
            binary: a.binary,
            // JSON needs no patch text: do not build it; without output
            // (`-s`), the counts still make the exit status.
            format: if json || format == Formats::default() {
                Format::Numstat.into()
            } else {
                format
            },
            context: match context {
                Some(n) => n,
                None => config_number("diff.context")?.unwrap_or(crate::diff::patch::CONTEXT),
            },
            paths: a.paths.clone(),
            relative: relative(a.relative.clone(), a.no_relative, &ctx.repo, prefix.as_ref())?,
            prefix,
            include_user_edits: a.include_user_edits,
            shape: commands::diff::Shape {
                ignore_driver_algorithm: algorithm_given,
                ..shape(&a.git, filter, config_number("diff.interHunkContext")?, modes)?
            },
        },
    )?;
    outcome.notices.extend(warnings);
    outcome.view.format = format;
    outcome.view.compact_summary = compact_summary;
    refuse_programs(&outcome, format.patch && !json && !quiet)?;
    git_view(&mut outcome.view, &a.git, &ctx.repo);
    outcome.view.prefixes = diff_replay::prefixes(&a, &ctx.repo, live_worktree);
    outcome.view.null_terminated = a.null;
    // git's `diff --quiet`: no output, the exit status says it all.
    outcome.view.exit_code = a.exit_code || quiet;
    outcome.view.quiet = quiet;
    outcome.view.stat_widths = diff_replay::stat_widths(&a, &ctx.repo, term)?;
    let (color, words, regex) = diff_replay::colour_and_words(&a, &ctx.repo, term)?;
    outcome.view.color = color && !json;
    if words.is_some() && !json {
        // Each file's words are what its word regex says.
        crate::compare::word_regexes(
            &mut outcome.patch,
            &ctx.repo,
            regex.as_deref(),
            ctx.settings.multibyte,
        )?;
    }
    outcome.view.words = words;
    if !json {
        // Like git, a colour or whitespace setting it cannot use stops the
        // diff even when it is not coloured.
        outcome.view.moved = super::diff_args::moved(&a.git, &ctx.repo)?;
        let (look, warnings) = crate::diff::style::read(&ctx.repo)?;
        outcome.view.look = look;
        outcome.notices.extend(warnings);
    }
    outcome.view.pager = if json {
        None
    } else {
        crate::output::pager::pager_command(Some(&ctx.repo), term)
    };
    Ok(outcome)
}

/// A patch git would print through a program (a diff driver's `textconv`
/// or `command`) is refused, by the setting and file.
fn refuse_programs(outcome: &commands::diff::DiffOutcome, printed: bool) -> Result<()> {
    match outcome.programs.first() {
        Some(program) if printed => Err(super::diff_args::refused(program)),
        _ => Ok(()),
    }
}

/// What `diff`'s flags ask to compare.
fn diff_mode(a: &crate::cli::DiffArgs) -> Result<commands::diff::Mode> {
    use commands::diff::Mode;
    // `--to worktree`: the live files are the newer side.
    let (to, to_worktree) = match a.to.as_deref() {
        None => (None, false),
        Some("worktree") => (None, true),
        Some(n) => (
            Some(
                n.parse::<u64>()
                    .map_err(|_| Error::usage(format!("--to {n}: want a turn number or 'worktree'")))?,
            ),
            false,
        ),
    };
    Ok(if a.worktree {
        Mode::Worktree
    } else if let Some(base) = &a.branch {
        Mode::Branch((!base.is_empty()).then(|| base.clone()))
    } else if to_worktree {
        Mode::ToWorktree {
            from: if a.full { Some(0) } else { a.from },
        }
    } else if a.full {
        Mode::Full { to }
    } else if let Some(from) = a.from {
        Mode::Range { from, to }
    } else if let Some(to) = to {
        Mode::Turn(Some(to))
    } else {
        Mode::Turn(a.turn)
    })
}

/// git's `--relative[=<path>]`, `--no-relative` (the last given wins) and
/// `diff.relative`: the leading part of paths to keep and strip. Without a
/// path it is the current directory's `prefix`; a path is taken from the top
/// as written.
pub(super) fn relative(
    arg: Option<Option<String>>,
    no_relative: bool,
    repo: &gix::Repository,
    prefix: &gix::bstr::BStr,
) -> Result<Option<gix::bstr::BString>> {
    if no_relative {
        return Ok(None);
    }
    match arg {
        Some(Some(path)) => Ok(Some(path.into())),
        Some(None) => Ok(Some(prefix.to_owned())),
        None => commands::diff::relative_from_config(repo, prefix),
    }
}

/// `30s`, `30m`, `12h`, `2d` or plain seconds.
pub(super) fn parse_age(raw: &str) -> Result<u64> {
    crate::model::age::parse(raw).map_err(Error::usage)
}

pub(super) fn install_options(a: &crate::cli::InstallArgs) -> Result<commands::install::Options> {
    use commands::install::{Options, Scope, Target};
    let chosen = [
        (a.claude_code, Target::ClaudeCode),
        (a.codex, Target::Codex),
        (a.codex_notify, Target::CodexNotify),
        (a.cursor, Target::Cursor),
        (a.opencode, Target::Opencode),
    ];
    let opts = Options {
        agents: chosen
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, agent)| *agent)
            .collect(),
        git: a.git,
        scope: a
            .scope
            .as_deref()
            .map(|s| {
                Scope::parse(s)
                    .ok_or_else(|| Error::usage(format!("unknown scope '{s}': say local, project or user")))
            })
            .transpose()?,
    };
    opts.check()?;
    Ok(opts)
}

pub(super) fn revert_action(a: &crate::cli::RevertArgs) -> Result<commands::revert::Action> {
    use commands::revert::Action;
    Ok(if a.resume {
        Action::Continue
    } else if a.abort {
        Action::Abort { force: a.force }
    } else if a.undo {
        Action::Undo { force: a.force }
    } else {
        Action::To {
            turn: a.to.ok_or_else(|| Error::usage("revert needs --to <N>"))?,
            files_only: a.files_only,
            dry_run: a.dry_run,
            force: a.force,
        }
    })
}

pub(super) fn log(
    a: crate::cli::LogArgs,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::log::LogOutcome> {
    let named = Named::or_current(a.thread.thread.as_deref())?;
    let ctx = open()?;
    let counting = counting(&a.counts, &ctx.repo);
    let opts = commands::log::Options {
        thread: named.resolve(&ctx, edge)?,
        // JSON carries no patch: do not build it.
        patch: a.patch && !edge.json,
        paths: a.paths,
        prefix: crate::repo::prefix(&ctx.repo, edge.base),
        counting,
    };
    let mut outcome = commands::log::run(&ctx, opts)?;
    let look = if edge.json {
        Default::default()
    } else {
        let (look, warnings) = crate::diff::style::read(&ctx.repo)?;
        outcome.notices.extend(warnings);
        look
    };
    outcome.view = commands::log::View {
        oneline: a.oneline,
        color: !edge.json && a.patch && crate::output::pager::use_color(&ctx.repo, edge.term),
        pager: if edge.json {
            None
        } else {
            crate::output::pager::pager_command(Some(&ctx.repo), edge.term)
        },
        time_zone: edge.time_zone(),
        look,
        quote_path: ctx
            .repo
            .config_snapshot()
            .boolean("core.quotePath")
            .unwrap_or(true),
    };
    Ok(outcome)
}

pub(super) fn op(
    action: crate::cli::OpAction,
    edge: &Edge<'_>,
    open: &dyn Fn() -> Result<Context>,
) -> Result<commands::op::OpOutcome> {
    use crate::cli::OpAction;
    match action {
        OpAction::Log { thread } => {
            let named = Named::optional(thread.as_deref())?;
            let ctx = open()?;
            let thread = named.map(|t| t.resolve(&ctx, edge)).transpose()?;
            commands::op::log(&ctx.repo, thread.as_ref())
        }
        OpAction::Show { op } => commands::op::show(&open()?.repo, &op),
        OpAction::Undo { op, force } => commands::op::undo(&open()?, op.as_deref(), force),
    }
}

/// The options of `review` from its arguments.
pub(super) fn review_options(
    a: &crate::cli::ReviewArgs,
    base: &std::path::Path,
) -> Result<crate::web::Options> {
    use crate::error::Context as _;
    let idle = parse_age(&a.idle_timeout)?;
    if idle == 0 {
        return Err(Error::usage("--idle-timeout must be more than 0"));
    }
    let base = std::path::absolute(base).context(|| format!("could not resolve {}", base.display()))?;
    Ok(crate::web::Options {
        port: a.port,
        open: !a.no_open,
        thread: a.thread.clone(),
        allow_revert: a.allow_revert,
        idle: std::time::Duration::from_secs(idle),
        base,
    })
}

/// How `list`, `log` and `show` count a turn's figures: as `diff --turn N`
/// with the same flags.
pub(super) fn counting(a: &crate::cli::CountArgs, repo: &gix::Repository) -> crate::compare::Counting {
    let default = crate::compare::Counting::of(repo);
    crate::compare::Counting {
        ignore_whitespace: default.ignore_whitespace && !a.keep_whitespace,
        include_user_edits: a.include_user_edits,
    }
}
