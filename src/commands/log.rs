//! `git t3 log`: a thread's turns, newest first, with what each changed
//! (and, with `-p`, its patch).

use serde::Serialize;

use crate::commands::Context;
use crate::commands::diff::{self, Format, Mode};
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
    let listed = super::list::turns(&ctx.repo, &opts.thread)?;
    let mut turns = listed.turns;
    turns.reverse();
    let mut notices = Vec::new();
    let patches = if opts.patch {
        turns
            .iter()
            .map(|cp| patch_of(ctx, &opts.thread, cp, &mut notices))
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    Ok(LogOutcome {
        thread: listed.thread,
        turns,
        problems: listed.problems,
        patches,
        now: jiff::Timestamp::now(),
        view: View::default(),
        notices,
    })
}

/// The patch of turn `cp` against the turn before it, if it has one.
fn patch_of(
    ctx: &Context,
    thread: &ThreadId,
    cp: &Checkpoint,
    notices: &mut Vec<String>,
) -> Result<Option<Vec<FilePatch>>> {
    let turn = cp.note.turn;
    if turn == 0 || cp.note.placeholder {
        return Ok(None);
    }
    let opts = diff::Options {
        thread: Some(thread.clone()),
        mode: Mode::Turn(Some(turn)),
        ignore_whitespace: true,
        binary: false,
        format: Format::Patch,
        context: crate::diff::patch::CONTEXT,
        paths: Vec::new(),
        prefix: Default::default(),
        relative: None,
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
