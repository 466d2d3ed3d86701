//! Human text about what commands did: revert, verify, install, mangen,
//! push/fetch and drop. With `quiet`, only problems and requested data are
//! printed.

use std::io::{self, Write};

use super::quote_path;
use crate::commands::drop::DropOutcome;
use crate::commands::hook::{HookReport, Reply};
use crate::commands::install::InstallOutcome;
use crate::commands::sync::SyncOutcome;
use crate::commands::verify::VerifyOutcome;
use crate::revert::{Ran, RevertOutcome};

/// `revert` (and its `--dry-run`, `--abort`, `--undo`): what changed.
pub fn revert(r: &RevertOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    revert_headline(r, out)?;
    revert_changes(r, out)?;
    revert_conversation(r, out)?;
    revert_others(r, out)
}

/// The first line: what was reverted, aborted or undone.
fn revert_headline(r: &RevertOutcome, out: &mut dyn Write) -> io::Result<()> {
    let verb = match r.action {
        Ran::DryRun => "would revert",
        Ran::Abort => "aborted the revert of",
        Ran::Undo => "undid the revert of",
        Ran::Revert | Ran::Continue => "reverted",
    };
    if let Some(u) = &r.report.undid {
        let op = u.op.to_hex_with_len(12);
        let thread = match (&u.thread, &u.title) {
            (Some(t), Some(title)) => format!(
                " of thread \"{}\" ({})",
                super::safe(title),
                super::safe(t.get(..t.len().min(12)).unwrap_or(t))
            ),
            (Some(t), None) => format!(" of thread {}", super::safe(t)),
            _ => String::new(),
        };
        writeln!(out, "undid the {} (op {op}){thread}", u.kind)?;
        let turn = |t: Option<u64>| t.map_or("none".to_owned(), |t| format!("turn {t}"));
        if u.thread.is_some() && u.latest_before != u.latest_after {
            writeln!(
                out,
                "  latest turn: {} before, {} now",
                turn(u.latest_before),
                turn(u.latest_after)
            )?;
        }
    } else if r.action == Ran::Undo && r.report.refs.is_empty() && r.report.target.starts_with("op ") {
        // An op that moved no ref (a restore of some paths): no turns to name.
        writeln!(out, "undid {} of thread {}", r.report.target, r.report.thread)?;
    } else {
        writeln!(
            out,
            "{verb} thread {} from turn {} to turn {} ({})",
            r.report.thread, r.report.from_turn, r.report.to_turn, r.report.target
        )?;
    }
    Ok(())
}

/// The files written and deleted, and the refs removed or restored.
fn revert_changes(r: &RevertOutcome, out: &mut dyn Write) -> io::Result<()> {
    let (w, d) = if r.action == Ran::DryRun {
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
        Ran::Abort | Ran::Undo => "restored",
        Ran::DryRun => "remove",
        Ran::Revert | Ran::Continue => "removed",
    };
    for reference in &r.report.refs {
        writeln!(
            out,
            "  {refs_verb:<8} turn {} ({})",
            reference.turn, reference.commit
        )?;
    }
    Ok(())
}

/// What happened to the agent's conversation.
fn revert_conversation(r: &RevertOutcome, out: &mut dyn Write) -> io::Result<()> {
    if r.report.rolled_back_turns > 0 {
        let v = if r.action == Ran::DryRun {
            "would roll back"
        } else {
            "rolled back"
        };
        writeln!(out, "  provider {v} {} turn(s)", r.report.rolled_back_turns)?;
    }
    let v = match r.action {
        Ran::DryRun => "would change",
        Ran::Abort | Ran::Undo => "put back",
        Ran::Revert | Ran::Continue => "changed",
    };
    for t in &r.report.transcripts {
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
    Ok(())
}

/// Work of others it overwrote (or would), and where the worktree as it was is kept.
fn revert_others(r: &RevertOutcome, out: &mut dyn Write) -> io::Result<()> {
    let dry_run = r.action == Ran::DryRun;
    for p in &r.report.overwritten {
        writeln!(out, "  changed since, put back anyway: {}", quote_path(&p.0))?;
    }
    if !r.report.others.is_empty() {
        let head = if dry_run {
            "another thread's work it would overwrite (a revert refuses without --force):"
        } else {
            "another thread's work overwritten (--force):"
        };
        writeln!(out, "  {head}")?;
        for f in &r.report.others {
            writeln!(out, "    {}", super::safe(&f.describe()))?;
        }
    }
    if !r.report.uncaptured.is_empty() {
        let head = if dry_run {
            "work no checkpoint holds that it would replace (it would be kept in a safety checkpoint; \
             `git t3 revert --undo` puts it back):"
        } else {
            "work no checkpoint held, replaced (kept in the safety checkpoint below; \
             `git t3 revert --undo` puts it back):"
        };
        writeln!(out, "  {head}")?;
        for p in &r.report.uncaptured {
            writeln!(out, "    {}", quote_path(&p.0))?;
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
    if !quiet && v.notes_removed > 0 {
        writeln!(out, "removed {} orphaned note(s)", v.notes_removed)?;
    }
    if !quiet && v.ok {
        writeln!(out, "verified {} ref(s) under refs/t3/: ok", v.checked)?;
    }
    Ok(())
}

/// `install-hooks`, `uninstall-hooks`: what happened to each file, then
/// what the user should know or do.
pub fn install(i: &InstallOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    for c in &i.changes {
        writeln!(out, "{}: {}", c.path.display(), change_line(c))?;
    }
    if i.changes.is_empty() {
        writeln!(out, "nothing to do")?;
    }
    for n in &i.notices {
        install_notice(n, out)?;
    }
    Ok(())
}

/// What happened to one file of an install.
fn change_line(c: &crate::commands::install::Change) -> String {
    use crate::commands::install::{Action, What};
    match (&c.what, c.action) {
        (What::Hooks { events, .. }, Action::Added) => {
            format!("added the git t3 hooks for {}", events.join(", "))
        }
        (What::Hooks { .. } | What::GitPrePush, Action::AlreadyThere) => {
            "the git t3 hooks are already there".to_owned()
        }
        (What::Hooks { .. }, Action::Removed) => "removed the git t3 hooks".to_owned(),
        (What::Hooks { .. } | What::CodexNotify { .. } | What::CodexFeature { .. }, Action::Restored) => {
            match &c.what {
                What::CodexNotify { then, .. } if !then.is_empty() => {
                    format!("back as it was (notify runs {} again)", then.join(" "))
                }
                _ => "back as it was, byte for byte".to_owned(),
            }
        }
        (What::CodexFeature { key }, Action::Added) => {
            format!("turned on [features] {key} (lifecycle hooks, for Codex versions that need it)")
        }
        (What::CodexFeature { .. }, Action::AlreadyThere) => {
            "lifecycle hooks are already on in [features]".to_owned()
        }
        (What::CodexFeature { key }, Action::Removed) => format!("put [features] {key} back as it was"),
        (What::CodexFeature { key }, Action::KeptForOthers) => {
            format!("[features] {key} stays on: git t3 hooks at another scope need it")
        }
        (What::CodexFeature { key }, Action::NotThere) => {
            format!("[features] {key} was changed since; left as it is")
        }
        (What::CodexNotify { then, moved_from }, Action::Added) => {
            let mut line = "notify runs `git t3 hook codex`".to_owned();
            if !then.is_empty() {
                line.push_str(&format!(", then your notifier: {}", then.join(" ")));
            }
            for table in moved_from {
                line.push_str(&format!(" (moved out of [{table}], where Codex never read it)"));
            }
            line
        }
        (What::CodexNotify { .. }, Action::AlreadyThere) => "notify already runs git t3".to_owned(),
        (What::CodexNotify { then, .. }, Action::Removed) if !then.is_empty() => {
            format!("notify runs {} again", then.join(" "))
        }
        (What::CodexNotify { .. }, Action::Removed) => "removed the git t3 notify".to_owned(),
        (What::CodexNotify { .. }, Action::NotThere) => {
            "notify does not run git t3: left as it is".to_owned()
        }
        (What::OpencodePlugin, Action::Added) => "wrote the git t3 plugin".to_owned(),
        (What::OpencodePlugin, Action::AlreadyThere) => "the git t3 plugin is already there".to_owned(),
        (What::OpencodePlugin, Action::LeftChanged) => {
            "changed since git t3 wrote it: left in place (delete it yourself if you want it gone)".to_owned()
        }
        (What::GitPrePush, Action::Added) => {
            "added the git t3 block (active when `git config t3.pushCheckpoints true`)".to_owned()
        }
        (What::GitPrePush, Action::Removed) => "removed the git t3 block".to_owned(),
        (What::Excluded { path }, Action::Added) => format!(
            "{} kept out of git (and out of checkpoints)",
            quote_path(path.as_os_str().as_encoded_bytes())
        ),
        (What::Excluded { path }, Action::Removed) => format!(
            "took out the line for {}",
            quote_path(path.as_os_str().as_encoded_bytes())
        ),
        (_, Action::Deleted) => "removed (git t3 had created it)".to_owned(),
        (_, Action::NotThere) => "nothing of git t3's there".to_owned(),
        (_, action) => format!("{action:?}").to_lowercase(),
    }
}

/// Something the user should know or do after an install.
fn install_notice(n: &crate::commands::install::Notice, out: &mut dyn Write) -> io::Result<()> {
    use crate::commands::install::Notice;
    match n {
        Notice::CodexTrust => writeln!(
            out,
            "Codex runs new or changed hooks only once you trust them (and skips them silently until then): start Codex and type /hooks to trust the git t3 hooks; a headless `codex exec` needs --dangerously-bypass-hook-trust."
        )?,
        Notice::Elsewhere {
            agent,
            scope,
            path,
            installing: true,
        } => writeln!(
            out,
            "note: {agent} hooks of git t3 are also in {} (scope {}): both run; remove one with `git t3 uninstall-hooks {agent} --scope {}`",
            path.display(),
            scope.name(),
            scope.name()
        )?,
        Notice::Elsewhere {
            agent, scope, path, ..
        } => writeln!(
            out,
            "note: {agent} hooks of git t3 are in {}: `git t3 uninstall-hooks {agent} --scope {}` removes them",
            path.display(),
            scope.name()
        )?,
        Notice::FeatureWasOff { key } => writeln!(
            out,
            "note: [features] {key} was off; uninstall-hooks turns it off again"
        )?,
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
        let dir = if s.action == crate::sync::Action::Push {
            "to"
        } else {
            "from"
        };
        writeln!(
            out,
            "{} checkpoints and notes {dir} {}",
            if s.action == crate::sync::Action::Push {
                "pushed"
            } else {
                "fetched"
            },
            s.remote
        )?;
        if s.notes_merged > 0 {
            writeln!(out, "  merged {} note(s) from {}", s.notes_merged, s.remote)?;
        }
        let changed = if s.action == crate::sync::Action::Push {
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
    for d in &s.diverged {
        writeln!(out, "  diverged {d}")?;
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
/// hooks): Claude Code, Codex and opencode get nothing on a quiet success
/// (Claude Code and Codex add a prompt hook's plain stdout to the model's
/// context) and one `{"systemMessage": "git t3: …"}` on failure or when
/// the capture has something to say; Cursor gets JSON on
/// every path; an unknown agent gets nothing (the message is on stderr).
pub fn hook(h: &HookReport, out: &mut dyn Write) -> io::Result<()> {
    // A failure, else what the capture had to say (a file skipped for its
    // size, a secret-looking path): the user sees it either way.
    let said = match &h.result {
        Err(e) => Some(e.clone()),
        Ok(o) if !o.notices.is_empty() => Some(o.notices.join("; ")),
        Ok(_) => None,
    };
    let message = said.map(|m| {
        let m: String = super::safe(&m).chars().take(HOOK_MESSAGE_CHARS).collect();
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
