//! Git-format patches: `diff --git` headers, index, mode, rename and
//! new/deleted-file lines, hunks with 3 lines of context and git's default
//! function-name context, `\ No newline at end of file`, and `GIT binary
//! patch` sections that `git apply` accepts.
//!
//! This module builds the patch as data; `output` turns it into text.

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use gix::diff::blob::{Algorithm, Diff};
use gix::objs::tree::EntryKind;

use crate::diff::changes::{self, Side, TreeChange};
use crate::diff::lines;
use crate::error::{Context as _, Result};
use crate::model::note::ChangeKind;

/// Lines of context around changes, like git's default `-U3`.
pub const CONTEXT: u32 = 3;

/// How to build patches.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Compare lines with all whitespace removed (`-w`).
    pub ignore_whitespace: bool,
    /// Emit binary patches instead of "Binary files differ" (implies full index ids).
    pub binary: bool,
}

/// The patch of one file (a type change is two of these).
#[derive(Debug, Clone, Default)]
pub struct FilePatch {
    /// `diff --git …` and the extended header lines, without newlines.
    pub header: Vec<Vec<u8>>,
    /// `--- …` and `+++ …`, when there is content to show.
    pub files: Option<(Vec<u8>, Vec<u8>)>,
    /// The hunks.
    pub hunks: Vec<Hunk>,
    /// `Binary files … differ`, or a `GIT binary patch` section (lines without newlines).
    pub binary: Vec<Vec<u8>>,
}

/// One `@@` hunk.
#[derive(Debug, Clone)]
pub struct Hunk {
    /// The `@@ -a,b +c,d @@` line without the function context.
    pub range: String,
    /// git's function-name context, if a line before the hunk qualifies.
    pub function: Option<Vec<u8>>,
    /// The lines.
    pub lines: Vec<Line>,
}

/// One line of a hunk.
#[derive(Debug, Clone)]
pub struct Line {
    /// ' ', '-' or '+'.
    pub origin: u8,
    /// The text without its newline.
    pub text: Vec<u8>,
    /// The line had no newline (the file ended there).
    pub no_newline: bool,
}

/// Build the patches of `changes`.
pub fn build(repo: &gix::Repository, changes: &[TreeChange], opts: Options) -> Result<Vec<FilePatch>> {
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        if change.kind == ChangeKind::TypeChanged {
            // git shows a type change as a deletion and an addition.
            let deletion = TreeChange {
                kind: ChangeKind::Deleted,
                new: None,
                ..change.clone()
            };
            let addition = TreeChange {
                kind: ChangeKind::Added,
                old: None,
                ..change.clone()
            };
            out.push(file_patch(repo, &deletion, opts)?);
            out.push(file_patch(repo, &addition, opts)?);
        } else {
            let p = file_patch(repo, change, opts)?;
            if !p.header.is_empty() {
                out.push(p);
            }
        }
    }
    Ok(out)
}

fn mode(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Blob => "100644",
        EntryKind::BlobExecutable => "100755",
        EntryKind::Link => "120000",
        EntryKind::Commit => "160000",
        EntryKind::Tree => "040000",
    }
}

fn abbrev(id: ObjectId, full: bool) -> String {
    if full {
        id.to_string()
    } else {
        id.to_hex_with_len(7).to_string()
    }
}

/// The content git diffs for one side: blob bytes, or a gitlink's line.
fn content(repo: &gix::Repository, side: Option<Side>) -> Result<Vec<u8>> {
    match side {
        Some(Side {
            kind: EntryKind::Commit,
            id,
        }) => Ok(format!("Subproject commit {id}\n").into_bytes()),
        other => Ok(changes::load(repo, other)?.unwrap_or_default()),
    }
}

fn file_patch(repo: &gix::Repository, change: &TreeChange, opts: Options) -> Result<FilePatch> {
    let new_path = change.path.as_bstr();
    let old_path = change.old_path.as_ref().map_or(new_path, |p| p.as_bstr());
    let a = prefixed("a/", old_path);
    let b = prefixed("b/", new_path);
    let null = ObjectId::null(repo.object_hash());
    let old_id = change.old.map_or(null, |s| s.id);
    let new_id = change.new.map_or(null, |s| s.id);
    let old_data = content(repo, change.old)?;
    let new_data = content(repo, change.new)?;
    let binary = lines::is_binary(&old_data) || lines::is_binary(&new_data);
    let full_index = opts.binary && binary;

    let mut p = FilePatch::default();
    let mut header = vec![[b"diff --git ".as_slice(), &a, b" ", &b].concat()];
    let index_mode = match (change.old, change.new) {
        (None, Some(n)) => {
            header.push(format!("new file mode {}", mode(n.kind)).into_bytes());
            None
        }
        (Some(o), None) => {
            header.push(format!("deleted file mode {}", mode(o.kind)).into_bytes());
            None
        }
        (Some(o), Some(n)) => {
            if o.kind != n.kind {
                header.push(format!("old mode {}", mode(o.kind)).into_bytes());
                header.push(format!("new mode {}", mode(n.kind)).into_bytes());
            }
            if change.kind == ChangeKind::Renamed {
                header.push(format!("similarity index {}%", change.similarity.unwrap_or(100)).into_bytes());
                header.push([b"rename from ".as_slice(), &quote(old_path)].concat());
                header.push([b"rename to ".as_slice(), &quote(new_path)].concat());
            }
            (o.kind == n.kind).then_some(n.kind)
        }
        (None, None) => return Ok(p),
    };
    if old_id == new_id {
        // Mode change or pure rename: no content to show.
        p.header = header;
        return Ok(p);
    }
    let mut index = format!(
        "index {}..{}",
        abbrev(old_id, full_index),
        abbrev(new_id, full_index)
    );
    if let Some(k) = index_mode {
        index.push(' ');
        index.push_str(mode(k));
    }
    header.push(index.into_bytes());

    let minus = if change.old.is_some() {
        with_tab(&a)
    } else {
        b"/dev/null".to_vec()
    };
    let plus = if change.new.is_some() {
        with_tab(&b)
    } else {
        b"/dev/null".to_vec()
    };
    if binary {
        p.header = header;
        if opts.binary {
            p.binary = binary_patch(&old_data, &new_data)?;
        } else {
            let from = if change.old.is_some() {
                a.clone()
            } else {
                b"/dev/null".to_vec()
            };
            let to = if change.new.is_some() {
                b.clone()
            } else {
                b"/dev/null".to_vec()
            };
            p.binary = vec![[b"Binary files ".as_slice(), &from, b" and ", &to, b" differ"].concat()];
        }
        return Ok(p);
    }
    let hunks = hunks(&old_data, &new_data, opts.ignore_whitespace);
    if hunks.is_empty()
        && opts.ignore_whitespace
        && change.kind == ChangeKind::Modified
        && index_mode.is_some()
    {
        // Only whitespace changed: git shows nothing for this file.
        return Ok(p);
    }
    p.header = header;
    if !hunks.is_empty() {
        p.files = Some((
            [b"--- ".as_slice(), &minus].concat(),
            [b"+++ ".as_slice(), &plus].concat(),
        ));
    }
    p.hunks = hunks;
    Ok(p)
}

/// `a/` or `b/` joined to `path`, C-quoted as a whole when needed.
fn prefixed(prefix: &str, path: &BStr) -> Vec<u8> {
    let mut raw = prefix.as_bytes().to_vec();
    raw.extend_from_slice(path);
    quote(raw.as_bstr())
}

/// git appends a TAB to `---`/`+++` names that contain a space.
fn with_tab(name: &[u8]) -> Vec<u8> {
    let mut v = name.to_vec();
    if name.contains(&b' ') {
        v.push(b'\t');
    }
    v
}

/// C-quote `path` like git's `quote_c_style` with `core.quotePath` on.
pub fn quote(path: &BStr) -> Vec<u8> {
    let needs = path
        .iter()
        .any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\');
    if !needs {
        return path.to_vec();
    }
    let mut s = Vec::with_capacity(path.len() + 2);
    s.push(b'"');
    for &b in path.iter() {
        match b {
            b'"' => s.extend_from_slice(b"\\\""),
            b'\\' => s.extend_from_slice(b"\\\\"),
            b'\n' => s.extend_from_slice(b"\\n"),
            b'\t' => s.extend_from_slice(b"\\t"),
            b'\r' => s.extend_from_slice(b"\\r"),
            0x07 => s.extend_from_slice(b"\\a"),
            0x08 => s.extend_from_slice(b"\\b"),
            0x0b => s.extend_from_slice(b"\\v"),
            0x0c => s.extend_from_slice(b"\\f"),
            0x20..=0x7e => s.push(b),
            _ => s.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    s.push(b'"');
    s
}

/// The hunks between two texts, with [`CONTEXT`] lines of context, merged
/// when their contexts touch (as xdiff does).
pub fn hunks(old: &[u8], new: &[u8], ignore_whitespace: bool) -> Vec<Hunk> {
    if old == new {
        return Vec::new();
    }
    let old_lines: Vec<&[u8]> = old.split_inclusive(|b| *b == b'\n').collect();
    let new_lines: Vec<&[u8]> = new.split_inclusive(|b| *b == b'\n').collect();
    let mut scratch = lines::Squeezed::default();
    let input = lines::intern(old, new, ignore_whitespace, &mut scratch);
    let mut diff = Diff::compute(Algorithm::MyersMinimal, &input);
    diff.postprocess_lines(&input);
    let changes: Vec<_> = diff.hunks().collect();
    let mut groups: Vec<Vec<gix::diff::blob::Hunk>> = Vec::new();
    for c in changes {
        match groups.last_mut() {
            Some(g)
                if g.last()
                    .is_some_and(|l| c.before.start - l.before.end <= 2 * CONTEXT) =>
            {
                g.push(c)
            }
            _ => groups.push(vec![c]),
        }
    }
    let old_len = u32::try_from(old_lines.len()).unwrap_or(u32::MAX);
    let new_len = u32::try_from(new_lines.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        let (Some(first), Some(last)) = (g.first(), g.last()) else {
            continue;
        };
        let pre = first.before.start.min(CONTEXT).min(first.after.start);
        let post = (old_len - last.before.end)
            .min(CONTEXT)
            .min(new_len - last.after.end);
        let (o_start, n_start) = (first.before.start - pre, first.after.start - pre);
        let (o_end, n_end) = (last.before.end + post, last.after.end + post);
        let mut lines = Vec::new();
        let push = |lines: &mut Vec<Line>, origin: u8, l: &[u8]| {
            let no_newline = !l.ends_with(b"\n");
            let text = l.strip_suffix(b"\n").unwrap_or(l).to_vec();
            lines.push(Line {
                origin,
                text,
                no_newline,
            });
        };
        // Context comes from the new side, as git prints it.
        let mut n = n_start;
        for c in &g {
            while n < c.after.start {
                push(&mut lines, b' ', new_lines[n as usize]);
                n += 1;
            }
            for i in c.before.clone() {
                push(&mut lines, b'-', old_lines[i as usize]);
            }
            for i in c.after.clone() {
                push(&mut lines, b'+', new_lines[i as usize]);
            }
            n = c.after.end;
        }
        while n < n_end {
            push(&mut lines, b' ', new_lines[n as usize]);
            n += 1;
        }
        out.push(Hunk {
            range: format!(
                "@@ -{} +{} @@",
                span(o_start, o_end - o_start),
                span(n_start, n_end - n_start)
            ),
            function: function_line(&old_lines, o_start),
            lines,
        });
    }
    out
}

/// `start,len` as git prints it: 1-based, `,1` omitted, an empty range at the line before.
fn span(start: u32, len: u32) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// git's default function context: the closest line above the hunk that
/// starts with a letter, `_` or `$`, cut to 80 bytes, trailing space dropped.
fn function_line(old_lines: &[&[u8]], hunk_start: u32) -> Option<Vec<u8>> {
    let before = old_lines.get(..hunk_start as usize)?;
    let line = before.iter().rev().find(|l| {
        l.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$')
    })?;
    let mut l = &line[..line.len().min(80)];
    while let Some((last, rest)) = l.split_last() {
        if last.is_ascii_whitespace() {
            l = rest;
        } else {
            break;
        }
    }
    Some(l.to_vec())
}

/// A `GIT binary patch` section: the new content, then the old (reverse) one.
fn binary_patch(old: &[u8], new: &[u8]) -> Result<Vec<Vec<u8>>> {
    let mut lines = vec![b"GIT binary patch".to_vec()];
    for data in [new, old] {
        lines.push(format!("literal {}", data.len()).into_bytes());
        let deflated = deflate(data)?;
        for chunk in deflated.chunks(52) {
            let len = u8::try_from(chunk.len()).unwrap_or(52);
            let mut line = vec![if len <= 26 {
                b'A' + len - 1
            } else {
                b'a' + len - 27
            }];
            base85(chunk, &mut line);
            lines.push(line);
        }
        lines.push(Vec::new());
    }
    Ok(lines)
}

fn deflate(data: &[u8]) -> Result<Vec<u8>> {
    use std::io::Write as _;
    let mut w = gix::zlib::stream::deflate::Write::new(Vec::new(), gix::zlib::Compression::BEST);
    w.write_all(data)
        .and_then(|()| w.flush())
        .context(|| "could not compress a binary patch".into())?;
    Ok(w.into_inner())
}

/// git's base85: 4 bytes (zero padded) to 5 characters, most significant first.
fn base85(data: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 85] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    for chunk in data.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut n = u32::from_be_bytes(word);
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = ALPHABET[(n % 85) as usize];
            n /= 85;
        }
        out.extend_from_slice(&digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_like_git() {
        assert_eq!(span(0, 0), "0,0");
        assert_eq!(span(0, 1), "1");
        assert_eq!(span(4, 3), "5,3");
    }

    #[test]
    fn hunks_merge_when_context_touches() {
        let old: Vec<u8> = (0..20).flat_map(|i| format!("{i}\n").into_bytes()).collect();
        let mut new = old.clone();
        new[0] = b'X'; // line 0
        let h = hunks(&old, &new, false);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].range, "@@ -1,4 +1,4 @@");
        let changed: Vec<u8> = (0..20)
            .flat_map(|i| {
                if i == 2 || i == 9 {
                    b"x\n".to_vec()
                } else {
                    format!("{i}\n").into_bytes()
                }
            })
            .collect();
        assert_eq!(hunks(&old, &changed, false).len(), 1, "gap of 6 lines merges");
        let far: Vec<u8> = (0..20)
            .flat_map(|i| {
                if i == 2 || i == 10 {
                    b"x\n".to_vec()
                } else {
                    format!("{i}\n").into_bytes()
                }
            })
            .collect();
        assert_eq!(hunks(&old, &far, false).len(), 2, "gap of 7 lines splits");
    }

    #[test]
    fn base85_matches_git() {
        let mut out = Vec::new();
        base85(b"\x00\x00\x00\x00", &mut out);
        assert_eq!(out, b"00000");
        out.clear();
        base85(&[0xff; 4], &mut out);
        assert_eq!(out, b"|NsC0");
    }

    #[test]
    fn function_context_like_git() {
        let old: Vec<&[u8]> = vec![b"fn main() {  \n", b"    let x = 1;\n", b"    y();\n"];
        assert_eq!(function_line(&old, 2), Some(b"fn main() {".to_vec()));
        assert_eq!(function_line(&old, 0), None);
    }
}
