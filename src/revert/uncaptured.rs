//! Work no checkpoint holds: the files a revert or restore of a thread
//! would overwrite or delete whose content now differs from the thread's
//! latest checkpoint (edited since it, or never captured). They are named
//! before anything changes (in `--dry-run` too) and kept in the safety
//! checkpoint, from which `revert --undo` and `op undo` put them back.

use gix::ObjectId;
use gix::bstr::BString;

use crate::error::Result;
use crate::model::path::PathText;
use crate::restore::Plan;

/// The paths of `plan` whose content in the worktree snapshot `now`
/// differs from `latest` (the thread's latest checkpoint tree; `None`: no
/// checkpoint, so all of them), leaving out `except` (named already, as
/// another thread's work). A path `now` lacks holds nothing to lose.
pub fn uncaptured(
    repo: &gix::Repository,
    latest: Option<ObjectId>,
    now: ObjectId,
    plan: &Plan,
    except: &[PathText],
) -> Result<Vec<PathText>> {
    let mut out = Vec::new();
    let paths: Vec<&BString> = plan.writes().iter().chain(plan.deletes()).collect();
    for path in paths {
        if except.iter().any(|e| e.0 == path.as_slice()) {
            continue;
        }
        let Some(current) = crate::repo::entry_at(repo, now, path)? else {
            continue;
        };
        let captured = match latest {
            Some(tree) => crate::repo::entry_at(repo, tree, path)?,
            None => None,
        };
        if captured != Some(current) {
            out.push(PathText(path.to_vec()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}
