//! Rendering a diff: `--stat`, `--numstat`, `--name-only` and the others,
//! together in git's order, with `-z` where git has it, and git's `{old =>
//! new}` rename labels; a patch is handed to [`super::patch`].

use std::io::{self, Write};

use gix::bstr::ByteSlice;

use super::names::display_name;
use super::patch::{self, quote_as};
use crate::commands::diff::{DiffOutcome, Names};

/// Write `d` in the formats it asks for, in git's order (`diff_flush`):
/// the names alone; else numstat, stat, shortstat and a dirstat by lines,
/// another dirstat, the summary, then the patch after a separator line
/// when anything came before it.
pub fn render(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    let f = d.view.format;
    // git writes nothing at all when nothing changed (whitespace-only
    // changes count: they are in git's queue).
    if d.files.is_empty() && d.whitespace_only == 0 {
        return Ok(());
    }
    match f.names {
        Some(Names::Status) => return name_status(d, out),
        Some(Names::Only) => return name_only(d, out),
        None => {}
    }
    let mut separator = false;
    if f.numstat || f.stat || f.shortstat || f.dirstat_by_lines() {
        if f.numstat {
            numstat(d, out)?;
        }
        if f.stat {
            super::stat::stat(d, out)?;
        }
        if f.shortstat {
            super::stat::shortstat(d, out)?;
        }
        if f.dirstat_by_lines() {
            dirstat(d, out)?;
        }
        separator = true;
    }
    if f.dirstat.is_some() && !f.dirstat_by_lines() {
        dirstat(d, out)?;
    }
    if f.summary {
        let mut lines = Vec::new();
        super::stat::summary(d, &mut lines)?;
        out.write_all(&lines)?;
        separator |= !lines.is_empty();
    }
    if f.patch {
        if separator {
            out.write_all(if d.view.null_terminated { b"\0" } else { b"\n" })?;
        }
        let style = patch::Style {
            color: d.view.color,
            quote_high: d.view.quote_path,
            look: &d.view.look,
            prefixes: [&d.view.prefixes[0], &d.view.prefixes[1]],
            suppress_blank_empty: d.view.suppress_blank_empty,
            words: d.view.words,
            word_regex: None,
        };
        match d.view.moved.filter(|_| d.view.color && d.view.words.is_none()) {
            Some(settings) => {
                let tab_width = d.view.look.whitespace.tab_width;
                let marks = crate::diff::moved::by_file(&d.patch, settings, tab_width);
                d.patch
                    .iter()
                    .zip(&marks)
                    .try_for_each(|(p, m)| patch::write_marked(p, style, m, out))?;
            }
            None => d.patch.iter().try_for_each(|p| patch::write(p, style, out))?,
        }
    }
    Ok(())
}

/// `--dirstat`'s lines.
fn dirstat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    d.dirstat.iter().try_for_each(|l| writeln!(out, "{l}"))
}

/// `--name-only`: the names, quoted (NUL-terminated with `-z`).
fn name_only(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    d.files.iter().try_for_each(|f| {
        if d.view.null_terminated {
            out.write_all(&f.path_bytes())?;
            out.write_all(b"\0")
        } else {
            out.write_all(&quote_as(f.path_bytes().as_bstr(), d.view.quote_path))?;
            out.write_all(b"\n")
        }
    })
}

/// `--name-status`: a letter (`R` and `C` with the similarity) and the
/// names, TAB-separated (NUL with `-z`).
fn name_status(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    use crate::model::note::ChangeKind;
    let (sep, end) = if d.view.null_terminated {
        (b"\0", b"\0")
    } else {
        (b"\t", b"\n")
    };
    let name = |p: &[u8]| {
        if d.view.null_terminated {
            p.to_vec()
        } else {
            quote_as(p.as_bstr(), d.view.quote_path)
        }
    };
    for f in &d.files {
        let status = match f.kind {
            ChangeKind::Added => "A".to_owned(),
            ChangeKind::Deleted => "D".to_owned(),
            ChangeKind::Modified => "M".to_owned(),
            ChangeKind::TypeChanged => "T".to_owned(),
            ChangeKind::Renamed => format!("R{:03}", f.similarity.unwrap_or(100)),
            ChangeKind::Copied => format!("C{:03}", f.similarity.unwrap_or(100)),
        };
        out.write_all(status.as_bytes())?;
        if let Some(old) = f.old_path_bytes() {
            out.write_all(sep)?;
            out.write_all(&name(&old))?;
        }
        out.write_all(sep)?;
        out.write_all(&name(&f.path_bytes()))?;
        out.write_all(end)?;
    }
    Ok(())
}

/// `--numstat`: added and deleted lines per file (`-` `-` for binary).
fn numstat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    for f in &d.files {
        let counts = if f.binary {
            "-\t-\t".to_owned()
        } else {
            format!("{}\t{}\t", f.additions, f.deletions)
        };
        out.write_all(counts.as_bytes())?;
        if d.view.null_terminated {
            match f.old_path_bytes() {
                Some(old) => {
                    out.write_all(b"\0")?;
                    out.write_all(&old)?;
                    out.write_all(b"\0")?;
                    out.write_all(&f.path_bytes())?;
                    out.write_all(b"\0")?;
                }
                None => {
                    out.write_all(&f.path_bytes())?;
                    out.write_all(b"\0")?;
                }
            }
        } else {
            out.write_all(&display_name(f, d.view.quote_path))?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
