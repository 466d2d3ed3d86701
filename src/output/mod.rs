//! Rendering outcomes: human text or one JSON document. Only this module
//! formats what commands return; only `main` owns stdout and stderr.

use std::io::{self, Write};

use crate::commands::Outcome;
use crate::commands::capture::CaptureOutcome;
use crate::model::note::{ChangeKind, FileChange};
use crate::store::Checkpoint;

mod color;
mod diff;
pub mod pager;
mod patch;
pub use diff::rename_label;

/// How to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text for a person.
    Human,
    /// One JSON document.
    Json,
}

/// Write `outcome` to stdout, through a pager when it asks for one.
pub fn emit(outcome: &Outcome, format: Format, quiet: bool) -> io::Result<()> {
    if let Outcome::Diff(d) = outcome
        && format == Format::Human
        && let Some(cmd) = &d.pager
        && let Ok(mut child) = pager::spawn(cmd)
        && let Some(stdin) = child.stdin.take()
    {
        let mut pipe = io::BufWriter::new(stdin);
        let written = render(outcome, format, quiet, &mut pipe).and_then(|()| pipe.flush());
        drop(pipe);
        let _ = child.wait();
        return match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        };
    }
    // Block-buffered: stdout alone would write (and sync) line by line.
    let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    render(outcome, format, quiet, &mut out).and_then(|()| out.flush())
}

/// Write `outcome` to `out`. With `quiet`, commands that only report what
/// they did print nothing in human format.
pub fn render(outcome: &Outcome, format: Format, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if format == Format::Json {
        serde_json::to_writer_pretty(&mut *out, outcome).map_err(io::Error::other)?;
        return writeln!(out);
    }
    match outcome {
        Outcome::Checkpoint(c) => {
            if !quiet {
                checkpoint_line(c, out)?;
            }
            Ok(())
        }
        Outcome::Turns(t) => {
            writeln!(out, "thread {}", t.thread)?;
            writeln!(out, " TURN  STATUS    FILES        +        -  WHEN")?;
            for cp in &t.turns {
                let n = &cp.note;
                let (a, d) = n.totals();
                let status = if n.placeholder {
                    "pending".to_owned()
                } else {
                    n.status.as_str().to_owned()
                };
                writeln!(
                    out,
                    "{:>5}  {:<8} {:>6} {:>8} {:>8}  {}",
                    n.turn,
                    status,
                    n.files.len(),
                    format!("+{a}"),
                    format!("-{d}"),
                    n.completed_at
                )?;
            }
            for p in &t.problems {
                writeln!(out, "  unreadable: {p}")?;
            }
            if let Some(r) = &t.revert_in_progress {
                revert_line(r, &t.thread, out)?;
            }
            Ok(())
        }
        Outcome::Threads(t) => {
            if t.threads.is_empty() {
                return writeln!(out, "no threads");
            }
            writeln!(out, "{:<40} {:>6} {:>7}  UPDATED", "THREAD", "TURNS", "LATEST")?;
            for th in &t.threads {
                writeln!(
                    out,
                    "{:<40} {:>6} {:>7}  {}",
                    th.thread,
                    th.turns,
                    th.latest,
                    th.updated_at.as_deref().unwrap_or("-")
                )?;
            }
            Ok(())
        }
        Outcome::Show(s) => {
            show(&s.checkpoint, out)?;
            match &s.revert_in_progress {
                Some(r) => revert_line(r, &s.checkpoint.note.thread, out),
                None => Ok(()),
            }
        }
        Outcome::Diff(d) => diff::render(d, out),
        Outcome::Revert(r) => {
            if quiet {
                return Ok(());
            }
            let verb = match r.action {
                "dry-run" => "would revert",
                "abort" => "aborted the revert of",
                "undo" => "undid the revert of",
                _ => "reverted",
            };
            writeln!(
                out,
                "{verb} thread {} from turn {} to turn {} ({})",
                r.thread, r.from_turn, r.to_turn, r.target
            )?;
            let (w, d) = if r.action == "dry-run" {
                ("write", "delete")
            } else {
                ("written", "deleted")
            };
            for p in &r.files.write {
                writeln!(out, "  {w:<8} {}", quote_path(p))?;
            }
            for p in &r.files.delete {
                writeln!(out, "  {d:<8} {}", quote_path(p))?;
            }
            let refs_verb = match r.action {
                "abort" | "undo" => "restored",
                "dry-run" => "remove",
                _ => "removed",
            };
            for reference in &r.refs {
                writeln!(
                    out,
                    "  {refs_verb:<8} turn {} ({})",
                    reference.turn, reference.commit
                )?;
            }
            if r.rolled_back_turns > 0 {
                let v = if r.action == "dry-run" {
                    "would roll back"
                } else {
                    "rolled back"
                };
                writeln!(out, "  provider {v} {} turn(s)", r.rolled_back_turns)?;
            }
            if let Some(s) = &r.safety_commit {
                writeln!(out, "  the worktree as it was is kept in {s}")?;
            }
            Ok(())
        }
        Outcome::Verify(v) => {
            for f in &v.findings {
                writeln!(out, "{}: {}: {}", f.severity, f.reference, f.problem)?;
            }
            if !quiet && v.ok {
                writeln!(out, "verified {} ref(s) under refs/t3/: ok", v.checked)?;
            }
            Ok(())
        }
        Outcome::Text(t) => out.write_all(t.as_bytes()),
        Outcome::Install(i) => {
            if !quiet {
                for c in &i.changed {
                    writeln!(out, "{c}")?;
                }
                if i.changed.is_empty() && i.snippets.is_empty() {
                    writeln!(out, "nothing to do")?;
                }
            }
            for snippet in &i.snippets {
                out.write_all(snippet.as_bytes())?;
            }
            Ok(())
        }
        Outcome::Files(files) => {
            if !quiet {
                for f in files {
                    writeln!(out, "{f}")?;
                }
            }
            Ok(())
        }
        // Claude Code adds a UserPromptSubmit hook's stdout to the model's
        // context: a hook prints nothing there (errors go to stderr).
        Outcome::Hook(_) => Ok(()),
        Outcome::Sync(s) => {
            if !quiet {
                let dir = if s.action == "push" { "to" } else { "from" };
                writeln!(
                    out,
                    "{} checkpoints and notes {dir} {}",
                    if s.action == "push" { "pushed" } else { "fetched" },
                    s.remote
                )?;
                if s.notes_merged > 0 {
                    writeln!(out, "  merged {} note(s) from {}", s.notes_merged, s.remote)?;
                }
            }
            for c in &s.note_conflicts {
                writeln!(
                    out,
                    "  kept the local note of {c}: {} has a different one",
                    s.remote
                )?;
            }
            Ok(())
        }
        Outcome::Drop(d) => {
            if !quiet {
                writeln!(
                    out,
                    "dropped thread {}: {} ref(s) and their notes",
                    d.thread, d.removed
                )?;
            }
            Ok(())
        }
    }
}

fn revert_line(
    r: &crate::commands::list::RevertInProgress,
    thread: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "revert in progress: turn {} to {}, stopped before its {:?} step \
         (git t3 revert --continue --thread {thread}, or --abort)",
        r.from_turn, r.to_turn, r.step
    )
}

fn checkpoint_line(c: &CaptureOutcome, out: &mut dyn Write) -> io::Result<()> {
    let n = &c.checkpoint.note;
    if !c.created {
        return writeln!(
            out,
            "thread {} already has checkpoints (latest: turn {}); nothing written",
            n.thread, n.turn
        );
    }
    if n.placeholder {
        return writeln!(
            out,
            "turn {} of {}: placeholder recorded ({})",
            n.turn, n.thread, n.reference
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
        n.thread,
        n.status.as_str(),
        n.files.len(),
        if n.files.len() == 1 { "" } else { "s" },
        n.reference
    )
}

fn show(cp: &Checkpoint, out: &mut dyn Write) -> io::Result<()> {
    let n = &cp.note;
    writeln!(out, "thread     {}", n.thread)?;
    writeln!(
        out,
        "turn       {}{}",
        n.turn,
        if n.placeholder { " (placeholder)" } else { "" }
    )?;
    writeln!(out, "status     {}", n.status.as_str())?;
    writeln!(out, "ref        {}", n.reference)?;
    writeln!(out, "commit     {}", cp.commit)?;
    writeln!(out, "completed  {}", n.completed_at)?;
    if let Some(t) = &n.turn_id {
        writeln!(out, "turn id    {t}")?;
    }
    if let Some(m) = &n.assistant_message_id {
        writeln!(out, "message    {m}")?;
    }
    if let Some(p) = &n.provider {
        writeln!(out, "provider   {p}")?;
    }
    if let Some(f) = n.from_turn {
        writeln!(out, "against    turn {f}")?;
    }
    for w in &n.warnings {
        writeln!(out, "warning    {w}")?;
    }
    for r in &n.reverts {
        writeln!(out, "reverted   from turn {} to {} at {}", r.from, r.to, r.at)?;
    }
    if !n.files.is_empty() {
        writeln!(out)?;
        for f in &n.files {
            file_line(f, out)?;
        }
        let (a, d) = n.totals();
        writeln!(
            out,
            " {} file{} changed, +{a} -{d}",
            n.files.len(),
            if n.files.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(())
}

fn file_line(f: &FileChange, out: &mut dyn Write) -> io::Result<()> {
    let letter = match f.kind {
        ChangeKind::Added => 'A',
        ChangeKind::Deleted => 'D',
        ChangeKind::Modified => 'M',
        ChangeKind::Renamed => 'R',
        ChangeKind::TypeChanged => 'T',
    };
    let counts = if f.binary {
        "binary".to_owned()
    } else {
        format!("+{} -{}", f.additions, f.deletions)
    };
    match &f.old_path {
        Some(old) => writeln!(
            out,
            " {letter} {counts:>12}  {} -> {}",
            quote_path(old),
            quote_path(&f.path)
        ),
        None => writeln!(out, " {letter} {counts:>12}  {}", quote_path(&f.path)),
    }
}

/// Quote a path like git's `core.quotePath` does: in double quotes with C
/// escapes when it holds a quote, backslash, control or non-ASCII byte.
pub fn quote_path(path: &str) -> String {
    String::from_utf8_lossy(&patch::quote(gix::bstr::BStr::new(path))).into_owned()
}

#[cfg(test)]
mod tests {
    use super::quote_path;

    #[test]
    fn quotes_like_git() {
        assert_eq!(quote_path("src/lib.rs"), "src/lib.rs");
        assert_eq!(quote_path("tab\there.txt"), "\"tab\\there.txt\"");
        assert_eq!(quote_path("日本.txt"), "\"\\346\\227\\245\\346\\234\\254.txt\"");
        assert_eq!(quote_path("q\"uote"), "\"q\\\"uote\"");
    }
}
