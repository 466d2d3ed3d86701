//! Human text about checkpoints: the line a capture prints, a thread's
//! turns, the list of threads, one checkpoint in full, and a revert that
//! stopped half-way.

use std::io::{self, Write};

use super::figures::{figures, figures_of_note, left_out};
use super::safe;

use super::quote_path;
use crate::commands::capture::CaptureOutcome;
use crate::commands::list::{RemoteOutcome, ThreadsOutcome, TurnsOutcome};
use crate::commands::show::ShowOutcome;
use crate::model::note::{ChangeKind, FileChange};
use crate::revert::RevertInProgress;

/// What `baseline`, `capture` or `placeholder` wrote (or found), in one line.
pub fn captured(c: &CaptureOutcome, out: &mut dyn Write) -> io::Result<()> {
    let n = &c.checkpoint.note;
    if !c.created {
        return writeln!(
            out,
            "thread {} already has checkpoints (latest: turn {}); nothing written",
            safe(&n.thread),
            n.turn
        );
    }
    if n.placeholder {
        return writeln!(
            out,
            "turn {} of {}: placeholder recorded ({})",
            n.turn,
            safe(&n.thread),
            safe(&n.reference)
        );
    }
    let (a, d) = n.totals();
    let against = n
        .from_turn
        .map(|f| format!(" against turn {f}"))
        .unwrap_or_default();
    writeln!(
        out,
        "turn {} of {}: {}, {} file{} changed{against}, +{a} -{d} ({})",
        n.turn,
        safe(&n.thread),
        n.status.as_str(),
        n.files.len(),
        if n.files.len() == 1 { "" } else { "s" },
        safe(&n.reference)
    )
}

/// `list --thread T`: a table of the thread's turns.
pub fn turns(t: &TurnsOutcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "thread {}", safe(&t.thread))?;
    writeln!(
        out,
        " TURN  STATUS       FILES        +        -  WHEN                       TITLE"
    )?;
    for cp in &t.turns {
        let n = &cp.note;
        let (files, a, d) = figures(cp);
        let status = if n.placeholder {
            "pending".to_owned()
        } else {
            n.status.as_str().to_owned()
        };
        let when = super::review::local_and_relative(&n.completed_at, t.view.time_zone.as_ref(), None);
        let mut title = n.title.as_deref().map(safe).unwrap_or_default().into_owned();
        if let Some(aside) = left_out(cp) {
            title = format!("{title} ({aside})").trim_start().to_owned();
        }
        let line = format!(
            "{:>5}  {:<11} {:>6} {:>8} {:>8}  {:<25}  {title}",
            n.turn,
            status,
            files,
            format!("+{a}"),
            format!("-{d}"),
            when,
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    for p in &t.problems {
        writeln!(out, "  unreadable: {}", safe(&p.to_string()))?;
    }
    if let Some(r) = &t.revert_in_progress {
        revert_line(r, &t.thread, out)?;
    }
    Ok(())
}

/// `list --remote NAME`: per thread kept apart, its turns from the remote
/// (turn, short commit, status, title).
pub fn remote(r: &RemoteOutcome, out: &mut dyn Write) -> io::Result<()> {
    if r.threads.is_empty() {
        return writeln!(
            out,
            "no turns of {} kept apart (every thread fetched from it continues one here)",
            safe(&r.remote)
        );
    }
    for t in &r.threads {
        writeln!(
            out,
            "thread {} ({} turn(s) of {} kept apart):",
            safe(&t.thread),
            t.turns.len(),
            safe(&r.remote)
        )?;
        for turn in &t.turns {
            writeln!(
                out,
                "  turn {:<4} {}  {:<11} {}",
                turn.turn,
                turn.commit.get(..12).unwrap_or(&turn.commit),
                turn.status.as_deref().unwrap_or("no note"),
                safe(turn.title.as_deref().unwrap_or(""))
            )?;
        }
    }
    Ok(())
}

/// `list`: the threads, newest first, one line each: `*` for this
/// worktree's current thread (as `git branch` marks HEAD's), when (local
/// and relative), turns, agent, branch (and worktree when it is another
/// one), the id, and the title.
pub fn threads(t: &ThreadsOutcome, out: &mut dyn Write) -> io::Result<()> {
    if t.threads.is_empty() {
        return writeln!(out, "no threads");
    }
    let rows: Vec<[String; 5]> = t.threads.iter().map(|th| thread_row(th, &t.view)).collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    for (r, th) in rows.iter().zip(&t.threads) {
        let line = format!(
            "{:<w0$}  {:>w1$}  {:<w2$}  {:<w3$}  {}",
            r[0], r[1], r[2], r[3], r[4]
        );
        let mark = if th.current { "* " } else { "  " };
        let line = format!("{mark}{line}");
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn thread_row(th: &crate::store::ThreadSummary, view: &crate::commands::list::ListView) -> [String; 5] {
    let when = th.updated_at.as_deref().map_or_else(
        || "-".to_owned(),
        |u| super::review::local_and_relative(u, view.time_zone.as_ref(), view.now),
    );
    let turns = format!("{} turn{}", th.turns, if th.turns == 1 { "" } else { "s" });
    let agent = th
        .agent
        .as_deref()
        .map_or_else(|| "-".to_owned(), |a| safe(a).into_owned());
    let mut place = match th.branch.as_deref() {
        Some("") => "(detached)".to_owned(),
        Some(b) => safe(b).into_owned(),
        None => "-".to_owned(),
    };
    if let Some(w) = &th.worktree
        && view.here.as_deref().is_some_and(|here| here != w)
    {
        place.push_str(&format!(" in {}", safe(w)));
    }
    let title = th
        .title
        .as_deref()
        .map(|t| format!("  {}", safe(t)))
        .unwrap_or_default();
    [when, turns, agent, place, format!("{}{title}", safe(&th.thread))]
}

/// `show`: one checkpoint's fields, then its files.
pub fn show(s: &ShowOutcome, out: &mut dyn Write) -> io::Result<()> {
    let cp = &s.checkpoint;
    let n = &cp.note;
    writeln!(out, "thread     {}", safe(&n.thread))?;
    writeln!(
        out,
        "turn       {}{}",
        n.turn,
        if n.placeholder { " (placeholder)" } else { "" }
    )?;
    writeln!(out, "status     {}", n.status.as_str())?;
    writeln!(out, "ref        {}", safe(&n.reference))?;
    writeln!(out, "commit     {}", cp.commit)?;
    writeln!(out, "completed  {}", safe(&n.completed_at))?;
    if let Some(t) = &n.turn_id {
        writeln!(out, "turn id    {}", safe(t))?;
    }
    if let Some(m) = &n.assistant_message_id {
        writeln!(out, "message    {}", safe(m))?;
    }
    if let Some(p) = &n.provider {
        writeln!(out, "provider   {}", safe(p))?;
    }
    if let Some(f) = n.from_turn {
        writeln!(out, "against    turn {f}")?;
    }
    for w in &n.warnings {
        writeln!(out, "warning    {}", safe(w))?;
    }
    for r in &n.reverts {
        writeln!(
            out,
            "reverted   from turn {} to {} at {}",
            r.from,
            r.to,
            safe(&r.at)
        )?;
    }
    if !n.files.is_empty() {
        writeln!(out)?;
        for f in &n.files {
            file_line(f, out)?;
        }
        let omitted = n.files_omitted.unwrap_or_default();
        if omitted.files > 0 {
            writeln!(
                out,
                " … and {} more files, not listed (the summary was too large to store whole)",
                omitted.files
            )?;
        }
        let (a, d) = n.totals();
        let count = n.files.len() as u64 + omitted.files;
        writeln!(
            out,
            " {count} file{} changed, +{a} -{d}",
            if count == 1 { "" } else { "s" }
        )?;
    }
    // The turn's own figures, when they differ from the note's record
    // (the user's edits between turns, whitespace-only changes).
    if let Some(c) = cp.counts
        && (figures_of_note(cp) != (c.files as u64, c.additions, c.deletions) || left_out(cp).is_some())
    {
        writeln!(
            out,
            "\nturn {}: {} file{} changed, +{} -{} (as `git t3 diff --turn {}` counts)",
            n.turn,
            c.files,
            if c.files == 1 { "" } else { "s" },
            c.additions,
            c.deletions,
            n.turn
        )?;
        if let Some(aside) = left_out(cp) {
            writeln!(out, " {aside}")?;
        }
    }
    match &s.revert_in_progress {
        Some(r) => revert_line(r, &n.thread, out),
        None => Ok(()),
    }
}

/// One file of `show`: its kind letter, counts and path(s).
fn file_line(f: &FileChange, out: &mut dyn Write) -> io::Result<()> {
    let letter = match f.kind {
        ChangeKind::Added => 'A',
        ChangeKind::Deleted => 'D',
        ChangeKind::Modified => 'M',
        ChangeKind::Renamed => 'R',
        ChangeKind::Copied => 'C',
        ChangeKind::TypeChanged => 'T',
    };
    let counts = if f.binary {
        "binary".to_owned()
    } else {
        format!("+{} -{}", f.additions, f.deletions)
    };
    match f.old_path_bytes() {
        Some(old) => writeln!(
            out,
            " {letter} {counts:>12}  {} -> {}",
            quote_path(old),
            quote_path(f.path_bytes())
        ),
        None => writeln!(out, " {letter} {counts:>12}  {}", quote_path(f.path_bytes())),
    }
}

/// A revert of `thread` that stopped half-way, and how to go on.
fn revert_line(r: &RevertInProgress, thread: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "revert in progress: turn {} to {}, stopped before its {:?} step \
         (git t3 revert --continue --thread {thread}, or --abort)",
        r.from_turn, r.to_turn, r.step
    )
}
