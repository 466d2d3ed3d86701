//! What the files' attributes (`.gitattributes`: `diff`, `whitespace`)
//! change in a diff, at the points the comparison meets them: whether they
//! are read at all, whether a cached summary still holds, what git would
//! run a program for (a `textconv`, an external `command`: `diff` refuses
//! them), and the word regex each file's word diff splits with.

use std::collections::HashMap;
use std::sync::Arc;

use gix::bstr::ByteSlice;

use super::Formats;
use crate::diff::attributes::{Attributes, Treatment};
use crate::diff::changes::TreeChange;
use crate::diff::patch::FilePatch;
use crate::diff::posix::Posix;
use crate::error::{Error, Result};
use crate::model::note::FileChange;

/// The error for an option or setting git-t3 cannot honour byte for byte.
pub fn not_supported(name: &str) -> Error {
    Error::usage(format!(
        "{name} is not supported by git t3 diff yet (it would not print what git prints); see \"git compatibility\" in the README"
    ))
}

/// The attributes a diff in `format` reads (none for names alone, which
/// look at no content).
pub(super) fn for_format(
    format: Formats,
    repo: &gix::Repository,
    live: bool,
    multibyte: bool,
) -> Result<Option<Attributes<'_>>> {
    // A dirstat by files alone looks at no content either.
    let files_only = Formats {
        dirstat: None,
        ..format
    } == Formats::default()
        && format
            .dirstat
            .is_some_and(|p| p.method == crate::diff::dirstat::Method::Files);
    let contents = format.names.is_none() && !files_only;
    contents
        .then(|| Attributes::new(repo, live, multibyte))
        .transpose()
}

/// Whether a summary cached without attributes (`files`, and `all` when
/// whitespace hid some) is what the attributes give.
pub(super) fn summary_holds(
    attrs: Option<&mut Attributes<'_>>,
    files: &[FileChange],
    all: Option<&[FileChange]>,
) -> Result<bool> {
    let Some(attrs) = attrs else {
        return Ok(true);
    };
    let listed: Vec<Vec<u8>> = files
        .iter()
        .chain(all.unwrap_or_default())
        .flat_map(|f| {
            [
                Some(f.path_bytes().to_vec()),
                f.old_path_bytes().map(|p| p.to_vec()),
            ]
        })
        .flatten()
        .collect();
    attrs.counts_unchanged(listed.iter().map(Vec::as_slice))
}

/// What git would run a program on these files' contents for (a diff
/// driver's `textconv`, or its `command` as the whole diff), each named by
/// its setting and file.
pub(super) fn programs(shown: &[TreeChange], treatments: &[Treatment]) -> Vec<String> {
    let mut out = Vec::new();
    for (c, t) in shown.iter().zip(treatments) {
        let path = c.path.to_str_lossy();
        if let Some(name) = &t.command {
            out.push(format!(
                "diff.{name}.command (an external diff, the diff driver of {path})"
            ));
        }
        if let Some(name) = &t.textconv {
            out.push(format!("diff.{name}.textconv (the diff driver of {path})"));
        }
    }
    out
}

/// Set the word regex of each file of `patch` as git chooses it for
/// `--word-diff`: `given` (`--word-diff-regex`, `--color-words=<regex>`),
/// else the file's diff driver's, else `diff.wordRegex`; none: words are
/// separated by whitespace. A regex git cannot compile stops the diff.
pub fn word_regexes(
    patch: &mut [FilePatch],
    repo: &gix::Repository,
    given: Option<&str>,
    multibyte: bool,
) -> Result<()> {
    let config = repo
        .config_snapshot()
        .string("diff.wordRegex")
        .map(|v| v.to_vec());
    let mut compiled: HashMap<Vec<u8>, Arc<Posix>> = HashMap::new();
    for p in patch {
        let source = given
            .map(|g| g.as_bytes().to_vec())
            .or_else(|| p.written.driver_word_regex.clone())
            .or_else(|| config.clone());
        let Some(source) = source else { continue };
        let regex = match compiled.get(&source) {
            Some(r) => Arc::clone(r),
            None => {
                let r = Arc::new(crate::diff::userdiff::word_regex(&source, multibyte)?);
                compiled.insert(source, Arc::clone(&r));
                r
            }
        };
        p.written.word_regex = Some(regex);
    }
    Ok(())
}

/// git's stat pass runs before the patch over every file, and a diff
/// driver's algorithm stays set on git's options after its file: the patch
/// of a file no driver algorithm names is made with the last one the stat
/// pass set (diff.c's `run_diffstat` and `run_diff_cmd` both call
/// `set_diff_algorithm` on the shared options).
pub(super) fn carry_stat_algorithm(treatments: &mut [crate::diff::attributes::Treatment]) {
    let last = treatments.iter().rev().find_map(|t| t.counts.algorithm);
    for t in treatments {
        t.counts.algorithm = t.counts.algorithm.or(last);
    }
}
