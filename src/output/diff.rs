//! Rendering a diff's summary: `--stat`, `--numstat` and `--name-only`,
//! with `-z` where git has it, and git's `{old => new}` rename labels; a
//! patch is handed to [`super::patch`].

use std::io::{self, Write};

use gix::bstr::ByteSlice;

use super::patch::{self, quote_as};
use crate::commands::diff::{DiffOutcome, Format};
use crate::model::color::RESET;
use crate::model::note::FileChange;

/// Write `d` in the format it asks for.
pub fn render(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    match d.view.format {
        Format::Patch => {
            let style = patch::Style {
                color: d.view.color,
                quote_high: d.view.quote_path,
                look: &d.view.look,
            };
            d.patch.iter().try_for_each(|p| patch::write(p, style, out))
        }
        Format::Stat => stat(d, out),
        Format::Numstat => numstat(d, out),
        Format::NameStatus => name_status(d, out),
        Format::NameOnly => d.files.iter().try_for_each(|f| {
            if d.view.null_terminated {
                out.write_all(&f.path_bytes())?;
                out.write_all(b"\0")
            } else {
                out.write_all(&quote_as(f.path_bytes().as_bstr(), d.view.quote_path))?;
                out.write_all(b"\n")
            }
        }),
    }
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

/// git's `pprint_rename`: `pfx{old => new}sfx` around a common prefix and suffix.
pub fn rename_label(old: &[u8], new: &[u8]) -> Vec<u8> {
    let (la, lb) = (old.len(), new.len());
    let mut pfx = 0;
    let mut i = 0;
    while i < la && i < lb && old[i] == new[i] {
        if old[i] == b'/' {
            pfx = i + 1;
        }
        i += 1;
    }
    let adjust = usize::from(pfx > 0);
    let mut sfx = 0;
    let (mut ia, mut ib) = (la as isize - 1, lb as isize - 1);
    // Walk back from the ends, allowed to reach one into the prefix's slash.
    let floor = pfx as isize - adjust as isize;
    while ia >= floor && ib >= floor && ia >= 0 && ib >= 0 && old[ia as usize] == new[ib as usize] {
        if old[ia as usize] == b'/' {
            sfx = la - ia as usize;
        }
        ia -= 1;
        ib -= 1;
    }
    let a_mid = la.saturating_sub(pfx + sfx);
    let b_mid = lb.saturating_sub(pfx + sfx);
    let mut s = Vec::new();
    if pfx + sfx > 0 {
        s.extend_from_slice(&old[..pfx]);
        s.push(b'{');
    }
    s.extend_from_slice(&old[pfx..pfx + a_mid]);
    s.extend_from_slice(b" => ");
    s.extend_from_slice(&new[pfx..pfx + b_mid]);
    if pfx + sfx > 0 {
        s.push(b'}');
        s.extend_from_slice(&old[la - sfx..]);
    }
    s
}

/// A file's name in `--stat` and `--numstat`: quoted, a rename as `{old =>
/// new}`; as git's `pprint_rename`, a rename where either name needs
/// quoting is both names whole, each quoted: `"a\303\274" => "b"`.
fn display_name(f: &FileChange, quote_high: bool) -> Vec<u8> {
    let raw = f.path_bytes();
    let path = quote_as(raw.as_bstr(), quote_high);
    match f.old_path_bytes() {
        Some(old) => {
            let quoted_old = quote_as(old.as_bstr(), quote_high);
            if quoted_old[..] != old[..] || path[..] != raw[..] {
                let mut s = quoted_old;
                s.extend_from_slice(b" => ");
                s.extend_from_slice(&path);
                s
            } else {
                rename_label(&old, &raw)
            }
        }
        None => path,
    }
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

/// The name and graph widths git's `show_stats` settles on.
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

/// Columns a name takes (its characters; quoted names are ASCII).
fn display_width(name: &[u8]) -> usize {
    name.chars().count()
}

/// A name cut to `width` columns from the left, git's way: `...` and the
/// rest from a `/` on.
fn scaled_name(name: &[u8], width: usize) -> (Vec<u8>, usize) {
    let len = display_width(name);
    if len <= width {
        return (name.to_vec(), width - len);
    }
    let room = width.saturating_sub(3);
    let skip = len - room;
    let tail: String = name.to_str_lossy().chars().skip(skip).collect();
    let tail = match tail.find('/') {
        Some(i) => tail[i..].to_owned(),
        None => tail,
    };
    let pad = room.saturating_sub(tail.chars().count());
    ([b"...".as_slice(), tail.as_bytes()].concat(), pad)
}

/// `--stat`: git's `show_stats`, byte for byte: names (cut from the left
/// when too long), counts and +/- graphs scaled to the width, then totals;
/// nothing at all for an empty diff.
fn stat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    if d.files.is_empty() {
        return Ok(());
    }
    let names: Vec<Vec<u8>> = d
        .files
        .iter()
        .map(|f| display_name(f, d.view.quote_path))
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

#[cfg(test)]
mod tests {
    use super::rename_label;

    #[test]
    fn renames_print_like_git() {
        let l = |a: &str, b: &str| String::from_utf8(rename_label(a.as_bytes(), b.as_bytes())).unwrap();
        assert_eq!(
            l("docs/old name.txt", "docs/new name.txt"),
            "docs/{old name.txt => new name.txt}"
        );
        assert_eq!(l("a.txt", "b.txt"), "a.txt => b.txt");
        assert_eq!(l("src/a/x.rs", "src/b/x.rs"), "src/{a => b}/x.rs");
        // Checked against git 2.47: no common directory, no braces.
        assert_eq!(l("x.rs", "sub/x.rs"), "x.rs => sub/x.rs");
        assert_eq!(l("sub/x.rs", "x.rs"), "sub/x.rs => x.rs");
        assert_eq!(l("a/b/c.rs", "a/c.rs"), "a/{b => }/c.rs");
    }
}
