//! One set of numbers: a turn's figures as every view shows them — the
//! agent's own changes (from the turn's `pre_turn_tree` when it has one),
//! whitespace-only changes left out unless asked — computed by the same
//! comparison as `diff --turn N`, so `list`, `log`, `show`, the page and
//! the diff never disagree.

use super::*;
use crate::store::{Checkpoint, TurnCounts};

/// How a turn is counted (the flags `diff` takes for the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counting {
    /// Leave out whitespace-only changes (`t3.diff.ignoreWhitespace`,
    /// default on; `--keep-whitespace` turns it off).
    pub ignore_whitespace: bool,
    /// Count from the turn before, the user's edits between the turns
    /// included (`--include-user-edits`).
    pub include_user_edits: bool,
}

impl Counting {
    /// The default for `repo`: whitespace ignored unless
    /// `t3.diff.ignoreWhitespace` is false, the user's edits left out.
    pub fn of(repo: &gix::Repository) -> Self {
        Counting {
            ignore_whitespace: default_ignore_whitespace(repo),
            include_user_edits: false,
        }
    }
}

/// `t3.diff.ignoreWhitespace` (default: true): whether a turn's diff and
/// figures leave out whitespace-only changes.
pub fn default_ignore_whitespace(repo: &gix::Repository) -> bool {
    repo.config_snapshot()
        .boolean("t3.diff.ignoreWhitespace")
        .unwrap_or(true)
}

/// The figures of turn `turn` of `thread`, as `diff --turn N --numstat`
/// counts them; `None` for a turn with nothing before it to compare with
/// (the baseline) or nothing in it (a placeholder), or one that cannot be
/// read.
pub fn turn_counts(ctx: &Context, thread: &ThreadId, turn: u64, how: Counting) -> Option<TurnCounts> {
    if turn == 0 {
        return None;
    }
    let opts = Options {
        thread: Some(thread.clone()),
        mode: Mode::Turn(Some(turn)),
        ignore_whitespace: how.ignore_whitespace,
        binary: false,
        format: Format::Numstat.into(),
        context: crate::diff::patch::CONTEXT,
        paths: Vec::new(),
        prefix: BString::default(),
        relative: None,
        include_user_edits: how.include_user_edits,
        shape: Default::default(),
    };
    let d = run(ctx, opts).ok()?;
    Some(TurnCounts {
        files: d.totals.files,
        additions: d.totals.additions,
        deletions: d.totals.deletions,
        whitespace_only: d.whitespace_only,
        user_edits: d.user_edits,
    })
}

/// Fill in the figures of each of `turns` (see [`turn_counts`]).
pub fn fill(ctx: &Context, thread: &ThreadId, turns: &mut [Checkpoint], how: Counting) {
    for cp in turns {
        if !cp.note.placeholder {
            cp.counts = turn_counts(ctx, thread, cp.note.turn, how);
        }
    }
}
