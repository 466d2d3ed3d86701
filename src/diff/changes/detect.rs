//! Renames and copies, as git's `diffcore-rename.c` pairs them: gix's
//! tracker (a port of it) over the changes already limited to the
//! pathspecs, as git limits them before it looks.
//!
//! git's rules, which the tracker follows: the sources are the deleted
//! files, and for copies the old sides of the modified ones too (and of
//! every file, `--find-copies-harder`); exact matches first (an unused
//! source, then one of the same name, preferred), then a matrix of the
//! four best sources of each destination by git's span-hash score, taken
//! best first, renames before copies. A source deleted and paired more than
//! once is renamed to its last destination (by path) and copied to the
//! others. One threshold serves renames and copies (`-M<n>` and `-C<n>`
//! set the same score), and empty files pair as git's `rename_empty`
//! (default on) lets them.

use std::ops::ControlFlow;

use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::diff::rewrites::{Copies, CopySource, Tracker, tracker};
use gix::objs::tree::EntryMode;

use super::{Side, TreeChange, percent, read_tree};
use crate::error::{Error, Result};
use crate::model::note::ChangeKind;

/// git's `MAX_SCORE`: a similarity of 100%.
pub const MAX_SCORE: u16 = 60_000;
/// git's `DEFAULT_RENAME_SCORE`: 50%.
pub const DEFAULT_SCORE: u16 = 30_000;

/// What git pairs: nothing, renames, or renames and copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Find {
    /// `--no-renames`, `diff.renames=false`.
    Off,
    /// `-M`, `diff.renames=true` (git's default).
    #[default]
    Renames,
    /// `-C`, `diff.renames=copies`.
    Copies,
}

/// How renames and copies are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detection {
    /// Renames, copies or nothing.
    pub find: Find,
    /// Copies may come from files that did not change
    /// (`--find-copies-harder`, `-C -C`).
    pub harder: bool,
    /// The least similarity of a pair, out of [`MAX_SCORE`] (`-M<n>`,
    /// `-C<n>`; git's default 50%).
    pub score: u16,
    /// `diff.renameLimit`, `-l<n>`: past `limit`² candidate pairs only
    /// exact matches are found; 0: no limit.
    pub limit: usize,
    /// Empty files are paired too (git's `--rename-empty`, on by default).
    pub empty: bool,
}

impl Detection {
    /// What `git diff-tree -r -M` finds (the notes' summaries): renames at
    /// 50%, within `diff.renameLimit`.
    pub fn renames(repo: &gix::Repository) -> Self {
        Detection {
            find: Find::Renames,
            harder: false,
            score: DEFAULT_SCORE,
            limit: super::rename_limit(repo),
            empty: true,
        }
    }

    /// Nothing paired.
    pub fn off() -> Self {
        Detection {
            find: Find::Off,
            harder: false,
            score: DEFAULT_SCORE,
            limit: 0,
            empty: true,
        }
    }

    /// Whether this is what a summary in the cache was computed with: git's
    /// default renames within the default limit.
    pub fn is_summary_default(&self) -> bool {
        self.find == Find::Renames
            && !self.harder
            && self.score == DEFAULT_SCORE
            && self.limit == super::DEFAULT_RENAME_LIMIT
            && self.empty
    }

    /// git's `diff.renames` and `diff.renameLimit` under the command line's
    /// `asked` (as `git diff` reads them: the setting first, each option
    /// then in its order).
    pub fn resolve(repo: &gix::Repository, asked: &Asked) -> Result<Self> {
        let mut find = configured(repo)?;
        let mut harder = asked.harder;
        let mut score = 0;
        for step in &asked.steps {
            match *step {
                Step::Off => find = Find::Off,
                Step::Renames(s) => {
                    score = s;
                    find = Find::Renames;
                }
                Step::Copies(s) => {
                    score = s;
                    // git's `-C` when copies are already on: harder.
                    if find == Find::Copies {
                        harder = true;
                    }
                    find = Find::Copies;
                }
            }
        }
        if harder {
            find = Find::Copies;
        }
        let limit = match asked.limit {
            Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => super::rename_limit(repo),
        };
        Ok(Detection {
            find,
            harder,
            score: if score == 0 { DEFAULT_SCORE } else { score },
            limit,
            empty: asked.empty.unwrap_or(true),
        })
    }
}

/// One of `-M[<n>]`, `-C[<n>]`, `--no-renames`, in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `--no-renames`.
    Off,
    /// `-M`/`--find-renames`, with its score (0: git's default).
    Renames(u16),
    /// `-C`/`--find-copies`, with its score (0: git's default).
    Copies(u16),
}

/// What the command line asks of rename and copy detection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asked {
    /// `-M`, `-C` and `--no-renames`, in their order.
    pub steps: Vec<Step>,
    /// `--find-copies-harder`.
    pub harder: bool,
    /// `-l<n>` (negative: the setting's).
    pub limit: Option<i64>,
    /// `--[no-]rename-empty`.
    pub empty: Option<bool>,
}

/// `diff.renames`: `copies` (or `copy`), else a boolean (git's
/// `git_config_rename`); unset: renames.
fn configured(repo: &gix::Repository) -> Result<Find> {
    let config = repo.config_snapshot();
    let Some(value) = config.string("diff.renames") else {
        return Ok(Find::Renames);
    };
    let text = value.to_string();
    if text.eq_ignore_ascii_case("copies") || text.eq_ignore_ascii_case("copy") {
        return Ok(Find::Copies);
    }
    match config.try_boolean("diff.renames") {
        Ok(Some(true) | None) => Ok(Find::Renames),
        Ok(Some(false)) => Ok(Find::Off),
        Err(_) => Err(Error::BadConfig {
            key: "diff.renames".into(),
            value: text,
            origin: "git config".into(),
            problem: "not a boolean, copies or copy".into(),
        }),
    }
}

/// git's `parse_rename_score`: `50`, `50%`, `.5` and `0.5` are all half of
/// [`MAX_SCORE`] (digits without `%` are a fraction: `5` is 50%); `None`
/// when anything follows the number.
pub fn parse_score(arg: &str) -> Option<u16> {
    let (mut num, mut scale, mut dot) = (0u64, 1u64, false);
    let mut rest = arg.as_bytes();
    while let Some((&c, tail)) = rest.split_first() {
        match c {
            b'.' if !dot => {
                scale = 1;
                dot = true;
            }
            b'%' => {
                scale = if dot { scale * 100 } else { 100 };
                rest = tail;
                break;
            }
            b'0'..=b'9' => {
                if scale < 100_000 {
                    scale *= 10;
                    num = num * 10 + u64::from(c - b'0');
                }
            }
            _ => break,
        }
        rest = tail;
    }
    if !rest.is_empty() {
        return None;
    }
    let max = u64::from(MAX_SCORE);
    Some(if num >= scale {
        MAX_SCORE
    } else {
        u16::try_from(max * num / scale).unwrap_or(MAX_SCORE)
    })
}

/// The fraction gix takes for git's integer `score`: gix turns it back
/// with `(fraction * 60000) as u16`, which gives `score` exactly (a plain
/// `score / 60000` can fall a hair short in `f32`).
fn fraction(score: u16) -> f32 {
    if score >= MAX_SCORE {
        1.0
    } else {
        (f32::from(score) + 0.5) / f32::from(MAX_SCORE)
    }
}

/// The tracker's view of a change: its old side for a modification or a
/// deletion (the copy or rename source), its new side for an addition.
impl tracker::Change for TreeChange {
    fn id(&self) -> Option<&gix::hash::oid> {
        self.old
            .as_ref()
            .or(self.new.as_ref())
            .map(|s| s.id.as_ref())
            .filter(|id| !id.is_null())
    }

    fn kind(&self) -> tracker::ChangeKind {
        match (self.old, self.new) {
            (None, _) => tracker::ChangeKind::Addition,
            (Some(_), None) => tracker::ChangeKind::Deletion,
            (Some(_), Some(_)) => tracker::ChangeKind::Modification,
        }
    }

    fn entry_mode(&self) -> EntryMode {
        self.old
            .or(self.new)
            .map_or(EntryMode::from(gix::objs::tree::EntryKind::Blob), |s| {
                s.kind.into()
            })
    }
}

/// `changes` (files only, limited to what `keep` says yes to) with their
/// renames and copies paired as `how` says; `from` is the old tree, whose
/// every file is a copy source with `--find-copies-harder`.
pub fn pair(
    repo: &gix::Repository,
    changes: Vec<TreeChange>,
    from: ObjectId,
    how: &Detection,
    keep: &mut dyn FnMut(&[u8]) -> bool,
    cache: &mut gix::diff::blob::Platform,
) -> Result<Vec<TreeChange>> {
    if how.find == Find::Off || !changes.iter().any(|c| c.old.is_none()) {
        return Ok(changes);
    }
    let copies = how.find == Find::Copies;
    let mut tracker = Tracker::new(gix::diff::Rewrites {
        copies: copies.then(|| Copies {
            source: if how.harder {
                CopySource::FromSetOfModifiedFilesAndAllSources
            } else {
                CopySource::FromSetOfModifiedFiles
            },
            percentage: Some(fraction(how.score)),
        }),
        percentage: Some(fraction(how.score)),
        limit: how.limit,
        track_empty: how.empty,
    });
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let path = change.path.clone();
        if let Some(untracked) = tracker.try_push_change(change, path.as_ref()) {
            out.push(untracked);
        }
    }
    let mut unchanged = if copies && how.harder {
        files_of(repo, from, keep)?
    } else {
        Vec::new()
    };
    tracker
        .emit(
            |dst, src| {
                out.push(paired(dst, src));
                ControlFlow::Continue(())
            },
            cache,
            &repo.objects,
            |push: &mut dyn FnMut(TreeChange, &BStr)| {
                for c in unchanged.drain(..) {
                    let path = c.path.clone();
                    push(c, path.as_ref());
                }
                Ok::<_, std::convert::Infallible>(())
            },
            Default::default(),
        )
        .map_err(|e| Error::Git {
            context: "could not pair renames and copies".into(),
            source: Box::new(e),
        })?;
    crate::interrupt::process().check()?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// What the tracker found for `dst`: the change itself, or the rename or
/// copy from its source.
fn paired(
    dst: tracker::visit::Destination<'_, TreeChange>,
    src: Option<tracker::visit::Source<'_, TreeChange>>,
) -> TreeChange {
    let Some(src) = src else {
        return dst.change;
    };
    let kind = match src.kind {
        tracker::visit::SourceKind::Rename => ChangeKind::Renamed,
        tracker::visit::SourceKind::Copy => ChangeKind::Copied,
    };
    TreeChange {
        path: dst.location.to_owned(),
        old_path: Some(src.location.to_owned()),
        kind,
        old: src.change.old,
        new: dst.change.new,
        similarity: Some(percent(src.similarity.map(|s| s.score()))),
    }
}

/// Every file of tree `id` that `keep` says yes to, as a change that
/// changed nothing (a source for `--find-copies-harder`).
fn files_of(
    repo: &gix::Repository,
    id: ObjectId,
    keep: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<Vec<TreeChange>> {
    let tree = read_tree(repo, id)?;
    let mut recorder = gix::traverse::tree::Recorder::default();
    tree.traverse()
        .breadthfirst(&mut recorder)
        .map_err(|e| Error::Git {
            context: format!("could not read tree {id}"),
            source: Box::new(e),
        })?;
    Ok(recorder
        .records
        .into_iter()
        .filter(|e| !e.mode.is_tree() && keep(&e.filepath))
        .map(|e| {
            let side = Side {
                id: e.oid,
                kind: e.mode.kind(),
            };
            unchanged(e.filepath, side)
        })
        .collect())
}

/// A file that is the same on both sides.
fn unchanged(path: BString, side: Side) -> TreeChange {
    TreeChange {
        path,
        old_path: None,
        kind: ChangeKind::Modified,
        old: Some(side),
        new: Some(side),
        similarity: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_parse_as_gits() {
        assert_eq!(parse_score(""), Some(0));
        assert_eq!(parse_score("50%"), Some(30_000));
        assert_eq!(parse_score("50"), Some(30_000));
        assert_eq!(parse_score("5"), Some(30_000));
        assert_eq!(parse_score(".5"), Some(30_000));
        assert_eq!(parse_score("0.5"), Some(30_000));
        assert_eq!(parse_score("05"), Some(3_000));
        assert_eq!(parse_score("100%"), Some(MAX_SCORE));
        assert_eq!(parse_score("12.5"), Some(MAX_SCORE));
        assert_eq!(parse_score("5.5%"), Some(3_300));
        assert_eq!(parse_score("75%"), Some(45_000));
        assert_eq!(parse_score("50%x"), None);
        assert_eq!(parse_score("x"), None);
        assert_eq!(parse_score("1.2.3"), None);
    }

    /// gix's own conversion of the fraction gives every score back.
    #[test]
    fn every_score_survives_gixs_fraction() {
        for score in 0..=MAX_SCORE {
            let back = (fraction(score).clamp(0.0, 1.0) * f32::from(MAX_SCORE)) as u16;
            assert_eq!(back, score);
        }
    }
}
