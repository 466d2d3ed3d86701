//! Rendering a diff's summary: `--stat`, `--numstat` and `--name-only`,
//! with `-z` where git has it, and git's `{old => new}` rename labels; a
//! patch is handed to [`super::patch`].

use std::io::{self, Write};

use gix::bstr::ByteSlice;

use super::color::{GREEN, RED, RESET};
use super::patch::{self, quote};
use crate::commands::diff::{DiffOutcome, Format};
use crate::model::note::FileChange;

/// Write `d` in the format it asks for.
pub fn render(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    match d.format {
        Format::Patch => d.patch.iter().try_for_each(|p| patch::write(p, d.color, out)),
        Format::Stat => stat(d, out),
        Format::Numstat => numstat(d, out),
        Format::NameOnly => d.files.iter().try_for_each(|f| {
            if d.null_terminated {
                out.write_all(&f.path_bytes())?;
                out.write_all(b"\0")
            } else {
                out.write_all(&quote(f.path_bytes().as_bstr()))?;
                out.write_all(b"\n")
            }
        }),
    }
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

/// A file's name in `--stat` and `--numstat`: quoted, a rename as `{old => new}`.
fn display_name(f: &FileChange) -> Vec<u8> {
    let path = quote(f.path_bytes().as_bstr());
    match f.old_path_bytes() {
        Some(old) => rename_label(&quote(old.as_bstr()), &path),
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
        if d.null_terminated {
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
            out.write_all(&display_name(f))?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// `--stat`: names, counts and +/- graphs scaled to 80 columns, then totals.
fn stat(d: &DiffOutcome, out: &mut dyn Write) -> io::Result<()> {
    const WIDTH: usize = 80;
    let names: Vec<Vec<u8>> = d.files.iter().map(display_name).collect();
    let name_width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let max_change = d
        .files
        .iter()
        .map(|f| f.additions + f.deletions)
        .max()
        .unwrap_or(0);
    let count_width = d
        .files
        .iter()
        .map(|f| {
            if f.binary {
                3
            } else {
                (f.additions + f.deletions).to_string().len()
            }
        })
        .max()
        .unwrap_or(1);
    let graph_width = WIDTH.saturating_sub(name_width + count_width + 4).max(10) as u64;
    let scale = |n: u64| -> u64 {
        if max_change <= graph_width || max_change == 0 {
            n
        } else {
            (n * graph_width).div_ceil(max_change)
        }
    };
    for (f, name) in d.files.iter().zip(&names) {
        out.write_all(b" ")?;
        out.write_all(name)?;
        let pad = name_width - name.chars().count();
        out.write_all(" ".repeat(pad).as_bytes())?;
        if f.binary {
            writeln!(out, " | {:>count_width$}", "Bin")?;
            continue;
        }
        write!(out, " | {:>count_width$}", f.additions + f.deletions)?;
        let (plus, minus) = (scale(f.additions), scale(f.deletions));
        if plus + minus > 0 {
            out.write_all(b" ")?;
        }
        let (g, r, e) = if d.color {
            (GREEN, RED, RESET)
        } else {
            ("", "", "")
        };
        if plus > 0 {
            write!(out, "{g}{}{e}", "+".repeat(plus as usize))?;
        }
        if minus > 0 {
            write!(out, "{r}{}{e}", "-".repeat(minus as usize))?;
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
