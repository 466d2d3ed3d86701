//! Human text for `du`, `prune` and `maintenance`.

use std::io::{self, Write};

use crate::commands::du::DuOutcome;
use crate::commands::prune::MaintenanceOutcome;
use crate::commands::prune::PruneOutcome;

use super::{human_size, review::relative, safe};

fn ago(updated_at: Option<&str>) -> String {
    updated_at
        .and_then(|u| u.parse::<jiff::Timestamp>().ok())
        .map_or_else(
            || "-".into(),
            |t| relative(jiff::Timestamp::now().as_second() - t.as_second()),
        )
}

/// `du`: one line per thread, largest first, then the totals.
pub fn du(d: &DuOutcome, out: &mut dyn Write) -> io::Result<()> {
    for t in &d.threads {
        writeln!(
            out,
            "{:>10}  {:>5} turn{}  {:<16}  {}",
            human_size(t.bytes),
            t.turns,
            if t.turns == 1 { " " } else { "s" },
            ago(t.updated_at.as_deref()),
            safe(&t.thread)
        )?;
    }
    writeln!(
        out,
        "{:>10}  in all (git-t3's refs, notes and operation log; shared objects counted once)",
        human_size(d.total_bytes)
    )?;
    writeln!(
        out,
        "{} loose object{} ({}); git packs them when `git gc --auto` finds enough",
        d.loose_objects,
        if d.loose_objects == 1 { "" } else { "s" },
        human_size(d.loose_bytes)
    )
}

/// `prune`: what went (or would go), what stayed and why.
pub fn prune(p: &PruneOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    let verb = if p.dry_run { "would prune" } else { "pruned" };
    if p.dry_run || !quiet {
        for t in &p.threads {
            writeln!(
                out,
                "{verb} thread {} ({} checkpoint{}, last {})",
                safe(&t.thread),
                t.turns,
                if t.turns == 1 { "" } else { "s" },
                ago(t.updated_at.as_deref())
            )?;
        }
    }
    for k in &p.kept {
        writeln!(out, "kept thread {}: {}", safe(&k.thread), k.reason)?;
    }
    if quiet || p.dry_run {
        return Ok(());
    }
    if p.threads.is_empty() && p.notes_removed == 0 && p.ops_removed == 0 {
        return writeln!(out, "nothing to prune");
    }
    writeln!(
        out,
        "removed {} ref(s), {} note(s), {} operation-log entr{}; git collects their objects after \
         gc.pruneExpire (2 weeks unless set), `git gc --prune=now` at once",
        p.refs_removed,
        p.notes_removed,
        p.ops_removed,
        if p.ops_removed == 1 { "y" } else { "ies" }
    )
}

/// `maintenance`: one line.
pub fn maintenance(m: &MaintenanceOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    if m.already_running {
        return writeln!(out, "maintenance is already running");
    }
    if let Some(p) = &m.pruned {
        prune(p, false, out)?;
    }
    if let Some(f) = m.folded.as_ref().filter(|f| f.packs > 0) {
        writeln!(
            out,
            "folded {} of git-t3's packs ({} objects) into one; {} left",
            f.packs, f.objects, f.left
        )?;
    }
    if m.reflog_entries_dropped > 0 {
        writeln!(out, "trimmed {} reflog entries", m.reflog_entries_dropped)?;
    }
    if m.refs_packed {
        writeln!(out, "packed the refs under refs/t3/")?;
    }
    match m.gc {
        Some(ok) => writeln!(out, "git gc --auto {}", if ok { "ran" } else { "failed" }),
        None => Ok(()),
    }
}
