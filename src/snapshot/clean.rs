//! The clean filters `git add` runs a file through (filter drivers, `ident`,
//! `working-tree-encoding`, line endings), with git's "safe autocrlf" check
//! made against the right blob.
//!
//! When a file's line endings are converted automatically (`text=auto`, or
//! `core.autocrlf` without a `text` attribute), git leaves CRLF alone if the
//! index's blob at that path already has CRLF. The reference a checkpoint
//! equals is `git add -A` into a private index read from HEAD, so that blob is
//! HEAD's — never the last capture's, which the capture cache holds. gix's
//! `Pipeline::convert_to_git` takes the blob from an index it is given; this
//! one asks a tree (HEAD's, for a capture; none, for a revert's comparison).

use std::io::Read;
use std::path::Path;

use gix::ObjectId;
use gix::filter::plumbing::pipeline::convert::ToGitOutcome;

/// gix's clean-filter pipeline and attribute stack, split apart so the
/// blob the CRLF check reads can come from a tree.
pub struct Clean<'r> {
    filters: gix::filter::plumbing::Pipeline,
    attributes: gix::worktree::Stack,
    repo: &'r gix::Repository,
    /// The tree whose blob at a path stands for the index's (`None`: no
    /// blob, as for a path the index lacks).
    index_tree: Option<ObjectId>,
}

impl<'r> Clean<'r> {
    /// `pipeline`'s filters and attributes, with the CRLF check reading
    /// blobs of `index_tree`.
    pub fn new(
        repo: &'r gix::Repository,
        pipeline: gix::filter::Pipeline<'r>,
        index_tree: Option<ObjectId>,
    ) -> Self {
        let (filters, attributes) = pipeline.into_parts();
        Clean {
            filters,
            attributes,
            repo,
            index_tree,
        }
    }

    /// `src`, the worktree file at `rela`, as `git add` would store it.
    pub fn convert_to_git<R: Read>(&mut self, src: R, rela: &Path) -> gix::Result<ToGitOutcome<'_, R>> {
        let platform = self
            .attributes
            .at_path(rela, None, &self.repo.objects)
            .map_err(gix::Error::from_error)?;
        let repo = self.repo;
        let tree = self.index_tree;
        let key = gix::path::into_bstr(rela)
            .map_err(gix::Error::from_error)?
            .into_owned();
        self.filters.convert_to_git(
            src,
            rela,
            &mut |_, out| {
                platform.matching_attributes(out);
            },
            &mut |buf| {
                let Some(tree) = tree else {
                    return Ok(None);
                };
                let found =
                    crate::repo::entry_at(repo, tree, key.as_ref()).map_err(gix::Error::from_error)?;
                let Some((_, id)) = found.filter(|(mode, _)| mode.is_blob()) else {
                    return Ok(None);
                };
                let obj =
                    gix::objs::Find::try_find(&repo.objects, &id, buf).map_err(gix::Error::from_error)?;
                Ok(obj.filter(|o| o.kind == gix::objs::Kind::Blob).map(|_| ()))
            },
        )
    }
}
