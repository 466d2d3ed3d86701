//! `--stat`, `--shortstat` and `--summary`, byte for byte as git's
//! `show_stats`, `show_shortstats` and `diff_summary` write them.

use std::io::{self, Write};

use gix::bstr::ByteSlice;

use super::names::display_name;
use super::patch::quote_as;
use crate::commands::diff::DiffOutcome;
use crate::model::color::RESET;
use crate::model::note::{ChangeKind, FileChange};

/// Digits of `n` in decimal.
fn decimal_width(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// git's `scale_linear`: `it` of `max_change` on a graph `width` wide.
fn scale_linear(it: u64, width: usize, max_change: u64) -> u64 {
    if it == 0 || max_change == 0 {
        return 0;
    }
    1 + it.saturating_mul(width.saturating_sub(1) as u64) / max_change
}

/// The name and graph widths git's `show_stats` settles on for the files
/// shown (`names`, the first of `d.files`).
fn layout(d: &DiffOutcome, names: &[Vec<u8>]) -> (usize, usize, usize, u64) {
    let w = d.view.stat_widths;
    let (mut max_change, mut max_len, mut number_width, mut bin_width) = (0u64, 0usize, 0usize, 0usize);
    for (f, name) in d.files.iter().zip(names) {
        max_len = max_len.max(display_width(name));
        if f.binary {
            let (old, new) = d.binary_sizes(f);
            bin_width = bin_width.max(14 + decimal_width(new) + decimal_width(old));
            number_width = 3;
            continue;
        }
        max_change = max_change.max(f.additions + f.deletions);
    }
    number_width = number_width.max(decimal_width(max_change));
    // Room for at least 10 columns of name and 6 of graph.
    let width = w.width.max(16 + 6 + number_width);
    let mut graph_width = if max_change + 4 > bin_width as u64 {
        usize::try_from(max_change).unwrap_or(usize::MAX)
    } else {
        bin_width - 4
    };
    if w.graph != 0 && w.graph < graph_width {
        graph_width = w.graph;
    }
    let mut name_width = if w.name > 0 && w.name < max_len {
        w.name
    } else {
        max_len
    };
    if name_width + number_width + 6 + graph_width > width {
        let third = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > third {
            graph_width = third.max(6);
        }
        if w.graph != 0 && graph_width > w.graph {
            graph_width = w.graph;
        }
        let rest = width.saturating_sub(number_width + 6 + graph_width);
        if name_width > rest {
            name_width = rest;
        } else {
            graph_width = width.saturating_sub(number_width + 6 + name_width);
        }
    }
    (name_width, graph_width, number_width, max_change)
}

/// Columns a name takes, as git counts them (`utf8_strwidth`).
fn display_width(name: &[u8]) -> usize {
    crate::model::width::columns(name)
}

/// A name cut to `width` columns from the left, git's way: `...`, then the
/// name past as many *bytes* as it has columns too many (git's own
/// shortcut), from the next `/` on; and the padding after it.
fn scaled_name(name: &[u8], width: usize) -> (Vec<u8>, usize) {
    let len = display_width(name);
    if len <= width {
        return (name.to_vec(), width - len);
    }
    let room = width.saturating_sub(3);
    let tail = name.get(len - room..).unwrap_or_default();
    let tail = match tail.find_byte(b'/') {
        Some(i) => &tail[i..],
        None => tail,
    };
    let pad = room.saturating_sub(display_width(tail));
    ([b"...".as_slice(), tail].concat(), pad)
}

/// `--stat`: git's `show_stats`, byte for byte: names (cut from the left
/// when too long), counts and +/- graphs scaled to the width, ` ...` after
/// the first `<count>` files, then totals; nothing at all for an empty diff.
pub(super) fn stat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    if d.files.is_empty() {
        return Ok(());
    }
    let count = match d.view.stat_widths.count {
        0 => d.files.len(),
        n => n.min(d.files.len()),
    };
    let names: Vec<Vec<u8>> = d.files[..count]
        .iter()
        .map(|f| {
            let mut name = display_name(f, d.view.quote_path);
            if d.view.compact_summary
                && let Some(note) = compact_note(f)
            {
                name.extend_from_slice(format!(" ({note})").as_bytes());
            }
            name
        })
        .collect();
    let (name_width, graph_width, number_width, max_change) = layout(d, &names);
    let palette = &d.view.look.palette;
    let (g, r, e) = if d.view.color {
        (palette.new.as_str(), palette.old.as_str(), RESET)
    } else {
        ("", "", "")
    };
    for (f, name) in d.files.iter().zip(&names) {
        let (name, pad) = scaled_name(name, name_width);
        out.write_all(b" ")?;
        out.write_all(&name)?;
        write!(out, "{:pad$} | ", "")?;
        if f.binary {
            write!(out, "{:>number_width$}", "Bin")?;
            match d.binary_sizes(f) {
                (0, 0) => writeln!(out)?,
                (old, new) => writeln!(out, " {r}{old}{e} -> {g}{new}{e} bytes")?,
            }
            continue;
        }
        let total = f.additions + f.deletions;
        let (mut add, mut del) = (f.additions, f.deletions);
        if (graph_width as u64) <= max_change {
            let mut scaled = scale_linear(total, graph_width, max_change);
            if scaled < 2 && add > 0 && del > 0 {
                scaled = 2;
            }
            if add < del {
                add = scale_linear(add, graph_width, max_change);
                del = scaled - add;
            } else {
                del = scale_linear(del, graph_width, max_change);
                add = scaled - del;
            }
        }
        write!(out, "{total:>number_width$}{}", if total > 0 { " " } else { "" })?;
        if add > 0 {
            write!(out, "{g}{}{e}", "+".repeat(add as usize))?;
        }
        if del > 0 {
            write!(out, "{r}{}{e}", "-".repeat(del as usize))?;
        }
        out.write_all(b"\n")?;
    }
    if count < d.files.len() {
        out.write_all(b" ...\n")?;
    }
    shortstat(d, out)
}

/// `--shortstat`: the totals line of `--stat` (nothing for an empty diff).
pub(super) fn shortstat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    if d.files.is_empty() {
        return Ok(());
    }
    let t = &d.totals;
    let mut summary = format!(" {} file{} changed", t.files, if t.files == 1 { "" } else { "s" });
    if t.additions > 0 || t.deletions == 0 {
        summary.push_str(&format!(
            ", {} insertion{}(+)",
            t.additions,
            if t.additions == 1 { "" } else { "s" }
        ));
    }
    if t.deletions > 0 || t.additions == 0 {
        summary.push_str(&format!(
            ", {} deletion{}(-)",
            t.deletions,
            if t.deletions == 1 { "" } else { "s" }
        ));
    }
    writeln!(out, "{summary}")
}

/// `--summary`: git's `diff_summary` for each file: created and deleted
/// files with their mode, renames with their similarity, mode changes;
/// whole paths, `--relative` or not, as git's.
pub(super) fn summary(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    let q = |p: &[u8]| quote_as(p.as_bstr(), d.view.quote_path);
    let files = if d.whole.is_empty() { &d.files } else { &d.whole };
    for f in files {
        let [old, new] = f.modes.unwrap_or_default();
        match f.kind {
            ChangeKind::Added => file_mode_name(out, "create", new, &q(&f.path_bytes()))?,
            ChangeKind::Deleted => file_mode_name(out, "delete", old, &q(&f.path_bytes()))?,
            ChangeKind::Renamed | ChangeKind::Copied => {
                let what: &[u8] = if f.kind == ChangeKind::Copied {
                    b" copy "
                } else {
                    b" rename "
                };
                out.write_all(what)?;
                out.write_all(&display_name(f, d.view.quote_path))?;
                writeln!(out, " ({}%)", f.similarity.unwrap_or(100))?;
                mode_change(out, f, None)?;
            }
            ChangeKind::Modified | ChangeKind::TypeChanged => mode_change(out, f, Some(&q(&f.path_bytes())))?,
        }
    }
    Ok(())
}

/// ` create mode 100644 name` (or without the mode when it is unknown).
fn file_mode_name(out: &mut dyn Write, what: &str, mode: Option<&str>, name: &[u8]) -> io::Result<()> {
    match mode {
        Some(m) => write!(out, " {what} mode {m} ")?,
        None => write!(out, " {what} ")?,
    }
    out.write_all(name)?;
    out.write_all(b"\n")
}

/// ` mode change 100644 => 100755 name` when the modes differ.
fn mode_change(out: &mut dyn Write, f: &FileChange, name: Option<&[u8]>) -> io::Result<()> {
    let [Some(old), Some(new)] = f.modes.unwrap_or_default() else {
        return Ok(());
    };
    if old == new {
        return Ok(());
    }
    write!(out, " mode change {old} => {new}")?;
    if let Some(name) = name {
        out.write_all(b" ")?;
        out.write_all(name)?;
    }
    out.write_all(b"\n")
}

/// `--compact-summary`'s note after a name in `--stat` (git's
/// `get_compact_summary`): created, gone, or how the mode changed.
fn compact_note(f: &FileChange) -> Option<&'static str> {
    let [old, new] = f.modes.unwrap_or_default();
    match f.kind {
        ChangeKind::Added => {
            return Some(match new {
                Some("120000") => "new +l",
                Some("100755") => "new +x",
                _ => "new",
            });
        }
        ChangeKind::Deleted => return Some("gone"),
        _ => {}
    }
    let link = |m: Option<&str>| m == Some("120000");
    match (old, new) {
        (o, n) if link(o) && !link(n) => Some("mode -l"),
        (o, n) if !link(o) && link(n) => Some("mode +l"),
        (Some("100644"), Some("100755")) => Some("mode +x"),
        (Some("100755"), Some("100644")) => Some("mode -x"),
        _ => None,
    }
}
