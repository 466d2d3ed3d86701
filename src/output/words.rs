//! A hunk's body as `--word-diff` and `--color-words` write it, byte for
//! byte as git's `diff_words_show` and `fn_out_diff_words_write_helper`:
//! removed and added lines gathered until a context line, then their word
//! diff ([`crate::diff::words`]) in the mode's marks (`[-…-]{+…+}`, colour
//! alone, or porcelain's one piece per line with `~` for a newline).

use std::io::{self, Write};

use crate::diff::patch::{Hunk, LineKind};
use crate::diff::words::{self, Mode, Piece};
use crate::model::color::{Palette, RESET};

/// How a piece is marked: its colour (empty: none), prefix and suffix.
struct Mark<'a> {
    color: &'a str,
    prefix: &'a str,
    suffix: &'a str,
}

/// How the body is written: coloured (in `palette`), empty context lines
/// without their space (`diff.suppressBlankEmpty`).
#[derive(Clone, Copy)]
pub struct Look<'a> {
    /// Colour the pieces.
    pub color: bool,
    /// The colours.
    pub palette: &'a Palette,
    /// `diff.suppressBlankEmpty`.
    pub suppress_blank_empty: bool,
    /// What a word is (whitespace separates words when `None`).
    pub regex: Option<&'a crate::diff::posix::Posix>,
}

/// Write `hunk`'s lines in word-diff `mode`.
pub fn write_body(hunk: &Hunk, style: Look<'_>, mode: Mode, out: &mut dyn Write) -> io::Result<()> {
    let (mut minus, mut plus) = (Vec::new(), Vec::new());
    for l in &hunk.lines {
        let buffer = match l.kind {
            LineKind::Removed => &mut minus,
            LineKind::Added => &mut plus,
            LineKind::Context => {
                flush(&mut minus, &mut plus, style, mode, out)?;
                context_line(&l.text, style, mode, out)?;
                continue;
            }
        };
        // A last line without newline gets one too: xdiff hands it over
        // followed by "\n\\ No newline at end of file\n", whose marker line
        // git's word diff eats.
        buffer.extend_from_slice(&l.text);
        buffer.push(b'\n');
    }
    flush(&mut minus, &mut plus, style, mode, out)
}

/// A context line: without its leading space (porcelain keeps it, and ends
/// it with `~`), in the context colour.
fn context_line(text: &[u8], style: Look<'_>, mode: Mode, out: &mut dyn Write) -> io::Result<()> {
    let blank = text.is_empty() && style.suppress_blank_empty;
    let body: &[u8] = if mode == Mode::Porcelain && !blank {
        &[b" ", text].concat()
    } else {
        text
    };
    let (body, cr) = match body.strip_suffix(b"\r") {
        Some(b) => (b, true),
        None => (body, false),
    };
    if !body.is_empty() {
        let (set, reset) = if style.color {
            (style.palette.context.as_str(), RESET)
        } else {
            ("", "")
        };
        out.write_all(set.as_bytes())?;
        out.write_all(body)?;
        out.write_all(reset.as_bytes())?;
    }
    if cr {
        out.write_all(b"\r")?;
    }
    out.write_all(b"\n")?;
    if mode == Mode::Porcelain {
        out.write_all(b"~\n")?;
    }
    Ok(())
}

/// The word diff of the gathered lines, if any.
fn flush<'a>(
    minus: &mut Vec<u8>,
    plus: &mut Vec<u8>,
    style: Look<'a>,
    mode: Mode,
    out: &mut dyn Write,
) -> io::Result<()> {
    if minus.is_empty() && plus.is_empty() {
        return Ok(());
    }
    let p = style.palette;
    let pick = |s: &'a str| if style.color { s } else { "" };
    let (old, new, ctx) = (pick(&p.old), pick(&p.new), pick(&p.context));
    let (old_mark, new_mark, ctx_mark, newline) = match mode {
        Mode::Porcelain => (("-", "\n"), ("+", "\n"), (" ", "\n"), "~\n"),
        Mode::Plain => (("[-", "-]"), ("{+", "+}"), ("", ""), "\n"),
        Mode::Color => (("", ""), ("", ""), ("", ""), "\n"),
    };
    for (piece, text) in words::diff(minus, plus, style.regex) {
        let (color, (prefix, suffix)) = match piece {
            Piece::Context => (ctx, ctx_mark),
            Piece::Old => (old, old_mark),
            Piece::New => (new, new_mark),
        };
        write_marked(
            &Mark {
                color,
                prefix,
                suffix,
            },
            newline,
            text,
            out,
        )?;
    }
    minus.clear();
    plus.clear();
    Ok(())
}

/// git's `fn_out_diff_words_write_helper`: each line of `text` marked, the
/// newlines between them written as `newline`. git prints each line's bytes
/// with `%.*s`, which stops at a NUL: so does this.
fn write_marked(mark: &Mark<'_>, newline: &str, text: &[u8], out: &mut dyn Write) -> io::Result<()> {
    let mut chunk = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let nl = rest.iter().position(|b| *b == b'\n');
        let segment = &rest[..nl.unwrap_or(rest.len())];
        if !segment.is_empty() {
            chunk.extend_from_slice(mark.color.as_bytes());
            chunk.extend_from_slice(mark.prefix.as_bytes());
            chunk.extend_from_slice(segment);
            chunk.extend_from_slice(mark.suffix.as_bytes());
            if !mark.color.is_empty() {
                chunk.extend_from_slice(RESET.as_bytes());
            }
        }
        let Some(nl) = nl else { break };
        chunk.extend_from_slice(newline.as_bytes());
        rest = &rest[nl + 1..];
        if !rest.is_empty() {
            emit_chunk(&mut chunk, out)?;
        }
    }
    emit_chunk(&mut chunk, out)
}

/// Write `chunk` up to its first NUL, and empty it.
fn emit_chunk(chunk: &mut Vec<u8>, out: &mut dyn Write) -> io::Result<()> {
    let end = chunk.iter().position(|b| *b == 0).unwrap_or(chunk.len());
    out.write_all(&chunk[..end])?;
    chunk.clear();
    Ok(())
}
