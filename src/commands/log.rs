//! `git t3 log`: a thread's turns, newest first, with what each changed
//! (and, with `-p`, its patch).

use serde::Serialize;

use crate::compare::{self as diff, Format, Mode};
use crate::context::Context;
use crate::diff::patch::FilePatch;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::store::Checkpoint;

/// Inputs of `log`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread.
    pub thread: ThreadId,
    /// Build each turn's patch (`-p`).
    pub patch: bool,
    /// Pathspecs (git's syntax): only the turns that changed a path they
    /// match, and only those paths' changes.
    pub paths: Vec<String>,
    /// Where the pathspecs start: the current directory, from the top.
    pub prefix: gix::bstr::BString,
    /// How each turn's figures (and patch) are counted.
    pub counting: crate::compare::Counting,
}

/// A thread's turns, newest first.
#[derive(Debug, Serialize)]
pub struct LogOutcome {
    /// The thread id.
    pub thread: String,
    /// Its checkpoints, newest first (the shape of `list --thread`'s turns).
    pub turns: Vec<Checkpoint>,
    /// Turns that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// With `-p`: each turn's patch (turn N-1 → N, whitespace ignored like
    /// `diff`), `None` where there is none (the baseline, a placeholder).
    #[serde(skip)]
    pub patches: Vec<Option<Vec<FilePatch>>>,
    /// When the log was read, for "2 hours ago".
    #[serde(skip)]
    pub now: jiff::Timestamp,
    /// How to show it (set by the caller).
    #[serde(skip)]
    pub view: View,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
}

/// How a log is shown; the edge fills it in.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// One line per turn.
    pub oneline: bool,
    /// Colour the patches.
    pub color: bool,
    /// Page through this shell command.
    pub pager: Option<String>,
    /// The time zone dates are shown in (`None`: UTC).
    pub time_zone: Option<jiff::tz::TimeZone>,
    /// The colours and whitespace rules of git's config.
    pub look: crate::diff::style::Look,
    /// Quote bytes above 0x7f in paths (`core.quotePath`).
    pub quote_path: bool,
}

/// The turns of `opts.thread`, newest first.
pub fn run(ctx: &Context, opts: Options) -> Result<LogOutcome> {
    let (mut turns, problems) = crate::store::load_thread(&ctx.repo, &opts.thread)?;
    // Limited to paths, a turn shows its note's files of those paths.
    if opts.paths.is_empty() {
        crate::compare::fill(ctx, &opts.thread, &mut turns, opts.counting);
    }
    turns.reverse();
    if let Some(mut spec) = crate::diff::changes::Pathspecs::new(&ctx.repo, &opts.paths, &opts.prefix)? {
        turns.retain_mut(|cp| limit_to(cp, &mut spec));
    }
    let mut notices = Vec::new();
    let patches = if opts.patch {
        turns
            .iter()
            .map(|cp| patch_of(ctx, &opts, cp, &mut notices))
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    Ok(LogOutcome {
        thread: opts.thread.to_string(),
        turns,
        problems,
        patches,
        now: jiff::Timestamp::now(),
        view: View::default(),
        notices,
    })
}

/// The patch of turn `cp` against the turn before it, if it has one.
fn patch_of(
    ctx: &Context,
    opts: &Options,
    cp: &Checkpoint,
    notices: &mut Vec<String>,
) -> Result<Option<Vec<FilePatch>>> {
    let turn = cp.note.turn;
    if turn == 0 || cp.note.placeholder {
        return Ok(None);
    }
    let opts = diff::Options {
        thread: Some(opts.thread.clone()),
        mode: Mode::Turn(Some(turn)),
        ignore_whitespace: opts.counting.ignore_whitespace,
        binary: false,
        format: Format::Patch.into(),
        context: crate::diff::patch::CONTEXT,
        paths: opts.paths.clone(),
        prefix: opts.prefix.clone(),
        relative: None,
        // Like the figures above it, and `diff --turn N`.
        include_user_edits: opts.counting.include_user_edits,
        shape: Default::default(),
    };
    match diff::run(ctx, opts) {
        Ok(d) => Ok(Some(d.patch)),
        // The turn before is gone or a placeholder: no patch, said once.
        Err(e @ (Error::Placeholder { .. } | Error::NoSuchTurn { .. } | Error::BadMetadata { .. })) => {
            notices.push(format!("turn {turn}: no patch ({})", crate::error::one_line(&e)));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Keep only the files of `cp` that `spec` matches (either side of a
/// rename); whether the turn changed any of them, as `git log -- PATH`
/// decides. A note that left files out (`files_omitted`) may hide a match:
/// such a turn is kept.
fn limit_to(cp: &mut Checkpoint, spec: &mut crate::diff::changes::Pathspecs<'_>) -> bool {
    cp.note.files.retain(|f| {
        spec.includes(&f.path_bytes()) || f.old_path_bytes().is_some_and(|old| spec.includes(&old))
    });
    !cp.note.files.is_empty() || cp.note.files_omitted.is_some()
}
