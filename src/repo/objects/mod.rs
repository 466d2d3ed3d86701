//! Objects: the fixed identity, a [`Recorder`] that remembers which objects
//! this process wrote so they can be flushed before anything points at them
//! (writing through an [`ObjectSink`]), commits written with the identity,
//! and small readers of commits and HEAD.

use gix::ObjectId;

use crate::error::{Context as _, Result};

mod read;
mod recorder;
mod sink;
pub use read::*;
pub use recorder::Recorder;
pub use sink::{ObjectSink, write_loose, write_retrying};

/// Name of the identity on every object git-t3 writes.
pub const IDENTITY_NAME: &str = "T3 Checkpoint";
/// Email of the identity on every object git-t3 writes.
pub const IDENTITY_EMAIL: &str = "t3@checkpoint.invalid";
/// The identity T3 Code itself writes checkpoints with (same refs, no note).
pub const T3CODE_NAME: &str = "T3 Code";
/// Its email.
pub const T3CODE_EMAIL: &str = "t3code@users.noreply.github.com";

/// Whether an author is git-t3's fixed identity or T3 Code's.
pub fn is_t3_identity(name: &gix::bstr::BStr, email: &gix::bstr::BStr) -> bool {
    (name == IDENTITY_NAME && email == IDENTITY_EMAIL) || (name == T3CODE_NAME && email == T3CODE_EMAIL)
}

/// Whether commit `id` is a checkpoint T3 Code wrote.
pub fn is_t3code_commit(repo: &gix::Repository, id: ObjectId) -> bool {
    commit_identity(repo, id).is_ok_and(|(name, email, _)| name == T3CODE_NAME && email == T3CODE_EMAIL)
}

/// When commit `id` was made, as RFC 3339 UTC.
pub fn commit_time(repo: &gix::Repository, id: ObjectId) -> Result<String> {
    check_commit_size(repo, id)?;
    let commit = repo.find_commit(id).context(|| format!("{id} is not a commit"))?;
    let seconds = commit
        .time()
        .context(|| format!("commit {id} has no readable time"))?
        .seconds;
    Ok(jiff::Timestamp::from_second(seconds)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default())
}

/// The fixed identity, dated now.
pub(crate) fn signature(tb: &mut gix::date::parse::TimeBuf) -> gix::actor::SignatureRef<'_> {
    gix::actor::SignatureRef {
        name: IDENTITY_NAME.into(),
        email: IDENTITY_EMAIL.into(),
        time: gix::date::Time::now_utc().to_str(tb),
    }
}

/// Write a parentless-or-not commit with the fixed identity.
pub fn write_commit(
    rec: &Recorder<'_>,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    message: &str,
) -> Result<ObjectId> {
    let mut tb = gix::date::parse::TimeBuf::default();
    let sig: gix::actor::Signature = signature(&mut tb).into();
    let commit = gix::objs::Commit {
        tree,
        parents: parents.into(),
        author: sig.clone(),
        committer: sig,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    rec.write_object(&commit)
}

/// A tree editor starting from the tree `base` (`None`: the empty tree).
pub fn tree_editor(repo: &gix::Repository, base: Option<ObjectId>) -> Result<gix::objs::tree::Editor<'_>> {
    let root = match base {
        None => gix::objs::Tree::empty(),
        Some(base) => repo
            .find_tree(base)
            .context(|| format!("could not read tree {base}"))?
            .decode()
            .context(|| format!("could not parse tree {base}"))?
            .into(),
    };
    let find: &dyn gix::objs::FindExt = repo;
    Ok(gix::objs::tree::Editor::new(root, find, repo.object_hash()))
}

/// Make sure the empty tree exists as a real object (git treats it as virtual,
/// but other tools and transports expect it on disk).
pub fn ensure_tree_object(rec: &Recorder<'_>, tree: ObjectId) -> Result<()> {
    if tree == ObjectId::empty_tree(rec.repo().object_hash()) {
        rec.write_object(&gix::objs::Tree::empty())?;
    }
    Ok(())
}

/// Largest commit object read (checkpoint commits are a few hundred bytes;
/// a commit inflating to gigabytes must not be read to find that out).
pub const MAX_COMMIT_BYTES: u64 = 16 << 20;

/// Fail unless `id` is a commit of at most [`MAX_COMMIT_BYTES`].
fn check_commit_size(repo: &gix::Repository, id: ObjectId) -> Result<()> {
    let header = repo.find_header(id).context(|| format!("{id} cannot be read"))?;
    if header.kind() != gix::objs::Kind::Commit {
        return Err(crate::Error::Refused(format!(
            "{id} is a {}, not a commit",
            header.kind()
        )));
    }
    if header.size() > MAX_COMMIT_BYTES {
        return Err(crate::Error::Refused(format!(
            "commit {id} is {} bytes, more than the {MAX_COMMIT_BYTES} accepted",
            header.size()
        )));
    }
    Ok(())
}
