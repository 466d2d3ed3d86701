//! `--dirstat`: the damage of each changed file, counted as git counts it,
//! and the lines [`crate::diff::dirstat::report`] makes of them.

use gix::bstr::BString;

use crate::diff::changes::{self, TreeChange};
use crate::diff::dirstat::{self, Method};
use crate::error::Result;
use crate::model::note::FileChange;

/// `--dirstat`'s lines for `changes` (their counts in `files`).
pub(super) fn lines(
    params: dirstat::Params,
    repo: &gix::Repository,
    (changes, treatments): (&[TreeChange], &[crate::diff::attributes::Treatment]),
    files: &[FileChange],
) -> Result<Vec<String>> {
    let mut damaged: Vec<(BString, u64)> = Vec::new();
    for (i, (c, f)) in changes.iter().zip(files).enumerate() {
        let binary = treatments.get(i).map_or([None, None], |t| t.counts.binary);
        let ids = (c.old.map(|s| s.id), c.new.map(|s| s.id));
        let damage = match params.method {
            _ if ids.0 == ids.1 => 0,
            Method::Files => 1,
            Method::Lines if f.binary => {
                let size = |side: Option<changes::Side>| -> Result<u64> {
                    Ok(changes::load(repo, side)?.map_or(0, |d| d.len() as u64))
                };
                (size(c.old)? + size(c.new)?).div_ceil(64)
            }
            Method::Lines => f.additions + f.deletions,
            Method::Changes => {
                let (old, new) = (changes::diffed(repo, c.old)?, changes::diffed(repo, c.new)?);
                dirstat::damage(old.as_deref(), new.as_deref(), binary)
            }
        };
        if damage > 0 {
            // git keeps whole paths here, --relative or not.
            let name = c.path.clone();
            damaged.push((name, damage));
        }
    }
    damaged.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(dirstat::report(&damaged, params))
}
