//! Human text about what commands did: revert, verify, install, mangen,
//! push/fetch and drop. With `quiet`, only problems and requested data are
//! printed.

use std::io::{self, Write};

use super::quote_path;
use crate::commands::drop::DropOutcome;
use crate::commands::hook::{HookReport, Reply};
use crate::commands::install::InstallOutcome;
use crate::commands::revert::RevertOutcome;
use crate::commands::sync::SyncOutcome;
use crate::commands::verify::VerifyOutcome;

/// `revert` (and its `--dry-run`, `--abort`, `--undo`): what changed.
pub fn revert(r: &RevertOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    let dry_run = r.action == "dry-run";
    let verb = match r.action {
        "dry-run" => "would revert",
        "abort" => "aborted the revert of",
        "undo" => "undid the revert of",
        _ => "reverted",
    };
    if r.action == "undo" && r.report.refs.is_empty() && r.report.target.starts_with("op ") {
        // An op that moved no ref (a restore of some paths): no turns to name.
        writeln!(out, "undid {} of thread {}", r.report.target, r.report.thread)?;
    } else {
        writeln!(
            out,
            "{verb} thread {} from turn {} to turn {} ({})",
            r.report.thread, r.report.from_turn, r.report.to_turn, r.report.target
        )?;
    }
    let (w, d) = if dry_run {
        ("write", "delete")
    } else {
        ("written", "deleted")
    };
    for p in &r.report.files.write {
        writeln!(out, "  {w:<8} {}", quote_path(&p.0))?;
    }
    for p in &r.report.files.delete {
        writeln!(out, "  {d:<8} {}", quote_path(&p.0))?;
    }
    let refs_verb = match r.action {
        "abort" | "undo" => "restored",
        "dry-run" => "remove",
        _ => "removed",
    };
    for reference in &r.report.refs {
        writeln!(
            out,
            "  {refs_verb:<8} turn {} ({})",
            reference.turn, reference.commit
        )?;
    }
    if r.report.rolled_back_turns > 0 {
        let v = if dry_run { "would roll back" } else { "rolled back" };
        writeln!(out, "  provider {v} {} turn(s)", r.report.rolled_back_turns)?;
    }
    for t in &r.report.transcripts {
        let v = match r.action {
            "dry-run" => "would change",
            "abort" | "undo" => "put back",
            _ => "changed",
        };
        writeln!(
            out,
            "  {v} the {} conversation {}: {}",
            super::safe(&t.agent),
            quote_path(&t.path),
            super::safe(&t.how)
        )?;
        if let Some(b) = &t.backup {
            writeln!(out, "  the conversation as it was is kept in blob {b}")?;
        }
    }
    if let Some(s) = &r.report.safety_commit {
        writeln!(out, "  the worktree as it was is kept in {s}")?;
    }
    Ok(())
}

/// `verify`: each finding, then a closing line when all is well.
pub fn verify(v: &VerifyOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    for f in &v.findings {
        writeln!(
            out,
            "{}: {}: {}",
            f.severity,
            super::safe(&f.reference),
            super::safe(&f.problem)
        )?;
    }
    if !quiet && v.ok {
        writeln!(out, "verified {} ref(s) under refs/t3/: ok", v.checked)?;
    }
    Ok(())
}

/// `install-hooks`, `uninstall-hooks`: what changed, and snippets to paste.
pub fn install(i: &InstallOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
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

/// Files written, one a line.
pub fn files(files: &[String], quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if !quiet {
        for f in files {
            writeln!(out, "{f}")?;
        }
    }
    Ok(())
}

/// `push`, `fetch`: what moved, and notes kept over the remote's.
pub fn sync(s: &SyncOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
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
        let changed = if s.action == "push" {
            "updated on the remote"
        } else {
            "new"
        };
        for r in &s.refs_changed {
            writeln!(out, "  {changed:<8} {r}")?;
        }
        for r in &s.kept_removed {
            writeln!(out, "  not restored {r} (removed here, see `git t3 op log`)")?;
        }
    }
    for r in &s.refused {
        writeln!(out, "  refused {r}")?;
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

/// `drop`: what was removed.
pub fn drop(d: &DropOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if !quiet {
        writeln!(
            out,
            "dropped thread {}: {} ref(s) (kept in the operation log: `git t3 op undo` brings them back)",
            d.thread, d.removed
        )?;
    }
    Ok(())
}

/// `notes backfill`: one line per note, then the count.
pub fn backfill(
    b: &crate::commands::notes::BackfillOutcome,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    let verb = if b.dry_run { "would write" } else { "wrote" };
    for n in &b.notes {
        writeln!(
            out,
            "{verb} the note of turn {} of thread {} ({} file{})",
            n.turn,
            super::safe(&n.thread),
            n.files,
            if n.files == 1 { "" } else { "s" }
        )?;
    }
    match b.notes.len() {
        0 => writeln!(out, "every checkpoint has a note: nothing to backfill"),
        n => writeln!(out, "{verb} {n} note{}", if n == 1 { "" } else { "s" }),
    }
}

/// The longest message a hook puts in its JSON answer (Claude Code caps
/// hook output strings at 10 000 characters).
const HOOK_MESSAGE_CHARS: usize = 2000;

/// A hook's answer on stdout, in the terms of its agent (DESIGN: Agent
/// hooks): Claude Code, Codex and opencode get nothing on success (Claude
/// Code and Codex add a prompt hook's plain stdout to the model's context)
/// and one `{"systemMessage": "git t3: …"}` on failure; Cursor gets JSON on
/// every path; an unknown agent gets nothing (the message is on stderr).
pub fn hook(h: &HookReport, out: &mut dyn Write) -> io::Result<()> {
    let message = h.error().map(|m| {
        let m: String = super::safe(m).chars().take(HOOK_MESSAGE_CHARS).collect();
        format!("git t3: {m}")
    });
    let doc = match (h.reply, message) {
        (Reply::Stderr, _) | (Reply::SystemMessage, None) => return Ok(()),
        (Reply::SystemMessage, Some(m)) => serde_json::json!({ "systemMessage": m }),
        (Reply::CursorPrompt, None) => serde_json::json!({ "continue": true }),
        (Reply::CursorPrompt, Some(m)) => serde_json::json!({ "continue": true, "user_message": m }),
        (Reply::CursorOther, _) => serde_json::json!({}),
    };
    writeln!(out, "{doc}")
}
