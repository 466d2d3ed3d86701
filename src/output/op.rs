//! Rendering the operation log for people.

use std::io::{self, Write};

use crate::commands::op::OpOutcome;
use crate::oplog::Entry;

/// Write an `op` outcome; an undo renders like a revert (`revert_text`).
pub fn render(
    o: &OpOutcome,
    quiet: bool,
    out: &mut dyn Write,
    revert_text: &dyn Fn(&crate::commands::revert::RevertOutcome, &mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match o {
        OpOutcome::Log { ops } => {
            if ops.is_empty() && !quiet {
                return writeln!(out, "no operations");
            }
            ops.iter().try_for_each(|e| line(e, out))
        }
        OpOutcome::Show(e) => show(e, out),
        OpOutcome::Undo(r) if !quiet => revert_text(r, out),
        OpOutcome::Undo(_) => Ok(()),
    }
}

fn line(e: &Entry, out: &mut dyn Write) -> io::Result<()> {
    let op = &e.op;
    writeln!(
        out,
        "{}  {}  {:<7}  {}  {} ref(s){}{}",
        e.id.to_hex_with_len(12),
        op.time,
        op.kind.as_str(),
        op.thread
            .as_deref()
            .map_or_else(|| "-".to_owned(), |t| format!("thread {}", super::quote_path(t))),
        op.refs.len(),
        match op.transcripts.len() {
            0 => String::new(),
            n => format!(", {n} conversation(s)"),
        },
        op.undoes
            .as_deref()
            .map(|u| format!(", undoes {}", u.to_hex_with_len(12)))
            .unwrap_or_default()
    )
}

fn show(e: &Entry, out: &mut dyn Write) -> io::Result<()> {
    let op = &e.op;
    writeln!(out, "op          {}", e.id)?;
    writeln!(out, "kind        {}", op.kind.as_str())?;
    if let Some(t) = &op.thread {
        writeln!(out, "thread      {}", super::quote_path(t))?;
    }
    writeln!(out, "time        {}", op.time)?;
    for (label, value) in [
        ("safety", &op.safety),
        ("index tree", &op.index_tree),
        ("undoes", &op.undoes),
        ("restored", &op.restored),
    ] {
        if let Some(v) = value {
            writeln!(out, "{label:<12}{v}")?;
        }
    }
    if let Some(p) = &op.provider {
        writeln!(out, "provider    {}", super::safe(p))?;
    }
    for m in &op.moved_aside {
        writeln!(out, "moved aside {} -> {}", super::quote_path(&m.path), m.to)?;
    }
    for t in &op.transcripts {
        writeln!(
            out,
            "conversation {} {}: {} -> {}",
            super::safe(&t.agent),
            super::quote_path(&t.path),
            t.before.map_or("(none)".into(), |b| b.to_string()),
            t.after.map_or("(none)".into(), |a| a.to_string())
        )?;
    }
    for r in &op.refs {
        writeln!(
            out,
            "  {}  {} -> {}",
            r.reference,
            r.old.map_or("(none)".into(), |o| o.to_string()),
            r.new.map_or("(none)".into(), |n| n.to_string())
        )?;
    }
    Ok(())
}
