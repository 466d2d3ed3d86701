//! Refs: lookups, listings, and updates as one compare-and-swap transaction
//! whose ref files are flushed to disk: before they are renamed into place
//! when the objects they name are flushed with them, else after.

use gix::ObjectId;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use crate::error::{Context as _, Error, Result, git_err};
use crate::repo::durable;
use crate::repo::lock::Locked;
use crate::repo::objects::signature;

/// Refuse, naming it, a file where the ref `name` is read from (its loose
/// file, `packed-refs`, and when `log`, its reflog) that is not a regular
/// file: git and gix open those with a blocking read, which a FIFO would
/// never answer.
pub(super) fn check_special(repo: &gix::Repository, name: &str, log: bool) -> Result<()> {
    let mut paths = vec![
        repo.git_dir().join(name),
        repo.common_dir().join(name),
        repo.common_dir().join("packed-refs"),
    ];
    if log {
        paths.push(repo.git_dir().join("logs").join(name));
        paths.push(repo.common_dir().join("logs").join(name));
    }
    for path in paths {
        // Followed: a link to a FIFO blocks as well. A folder holds refs
        // below this name, not this one.
        if let Ok(meta) = std::fs::metadata(&path)
            && !meta.is_file()
            && !meta.is_dir()
        {
            return Err(Error::Io {
                context: format!("could not read {name} from"),
                source: std::io::Error::other(crate::fsread::NotRegular(path.clone())),
                path: Some(path),
            });
        }
    }
    Ok(())
}

/// The object a ref points to, or `None` if it does not exist.
pub fn find_ref(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    check_special(repo, name, false)?;
    let found = repo
        .try_find_reference(name)
        .context(|| format!("could not read {name}"))?;
    match found {
        None => Ok(None),
        Some(mut r) => Ok(Some(
            r.peel_to_id()
                .context(|| format!("could not resolve {name}"))?
                .detach(),
        )),
    }
}

/// The object a ref points to directly: `None` when it does not exist or is
/// symbolic (a symbolic ref under `refs/t3/` is never followed), and no tag
/// is peeled.
pub fn find_direct_ref(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    check_special(repo, name, false)?;
    let found = repo
        .try_find_reference(name)
        .context(|| format!("could not read {name}"))?;
    Ok(found.and_then(|r| r.target().try_id().map(ToOwned::to_owned)))
}

/// A ref name as bytes and the object it points to.
#[derive(Debug, Clone)]
pub struct RefEntry {
    /// Full name; not necessarily UTF-8 when it came from elsewhere.
    pub name: gix::bstr::BString,
    /// The direct target, or `None` for a symbolic ref.
    pub target: Option<ObjectId>,
}

/// All refs whose full name starts with `prefix` (which must end in `/`).
///
/// `git pack-refs` (run by `git gc`, maybe in the background) moves loose
/// ref files into `packed-refs` and deletes them: a listing that finds a
/// file gone between reading the directory and the file is read again.
pub fn list_refs(repo: &gix::Repository, prefix: &str) -> Result<Vec<RefEntry>> {
    let mut attempt = 0u32;
    loop {
        match list_refs_once(repo, prefix) {
            // pack-refs deletes thousands of loose refs one by one: wait
            // up to about a second in all for it.
            Err(_) if attempt < 7 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(5u64 << attempt));
            }
            other => return other,
        }
    }
}

fn list_refs_once(repo: &gix::Repository, prefix: &str) -> Result<Vec<RefEntry>> {
    let platform = repo.references().context(|| "could not list refs".into())?;
    let iter = platform
        .prefixed(prefix)
        .context(|| format!("could not list refs under {prefix}"))?;
    let mut out = Vec::new();
    for r in iter {
        let r = r.map_err(git_err(format!("could not read a ref under {prefix}")))?;
        let target = r.target().try_id().map(ToOwned::to_owned);
        out.push(RefEntry {
            name: r.name().as_bstr().to_owned(),
            target,
        });
    }
    Ok(out)
}

/// What a ref must hold for an update to go ahead.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// The ref must not exist yet.
    Absent,
    /// The ref must point at this object.
    Is(ObjectId),
    /// Anything.
    Any,
}

impl Expect {
    /// Whether a ref now at `now` (`None`: absent) is as expected.
    pub fn holds(self, now: Option<ObjectId>) -> bool {
        match self {
            Expect::Absent => now.is_none(),
            Expect::Is(id) => now == Some(id),
            Expect::Any => true,
        }
    }

    fn previous(self) -> PreviousValue {
        match self {
            Expect::Absent => PreviousValue::MustNotExist,
            Expect::Is(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
            Expect::Any => PreviousValue::Any,
        }
    }
}

/// One ref change in a transaction.
#[derive(Debug, Clone)]
pub struct RefUpdate {
    /// Full ref name.
    pub name: String,
    /// New target, or `None` to delete.
    pub new: Option<ObjectId>,
    /// What the ref must hold now.
    pub expect: Expect,
}

/// Apply `updates` as one transaction with compare-and-swap, then flush the
/// loose ref files to disk. A lost race becomes [`Error::Conflict`].
pub fn update_refs(lock: &Locked<'_>, updates: &[RefUpdate], log_message: &str) -> Result<()> {
    transact(lock, updates, log_message, None)
}

/// [`update_refs`] for refs naming objects `rec` wrote: once the ref files
/// are locked and written, one flush wave takes the objects and the new
/// ref files to disk, then the refs move (git's `core.fsync = reference`:
/// a ref is flushed before it is published, its rename is not waited
/// for). A crash right after leaves the refs as they were, or moved, never
/// naming what the disk lacks. A transaction that deletes a ref (which
/// may rewrite `packed-refs`) flushes the objects first and the refs after,
/// as [`update_refs`] does.
pub fn update_refs_with_objects(
    lock: &Locked<'_>,
    rec: &crate::repo::objects::Recorder<'_>,
    updates: &[RefUpdate],
    log_message: &str,
) -> Result<()> {
    if updates.is_empty() || updates.iter().any(|u| u.new.is_none()) {
        rec.sync()?;
        crate::fault::point("after-objects");
        return update_refs(lock, updates, log_message);
    }
    transact(lock, updates, log_message, Some(rec))
}

/// One transaction; with `flush_first`, the objects it wrote and the ref
/// files are flushed between locking and publishing (see
/// [`update_refs_with_objects`]), else the ref files after.
fn transact(
    lock: &Locked<'_>,
    updates: &[RefUpdate],
    log_message: &str,
    flush_first: Option<&crate::repo::objects::Recorder<'_>>,
) -> Result<()> {
    if updates.is_empty() {
        return Ok(());
    }
    let _t = crate::trace::span("update refs");
    let repo = lock.repo();
    for u in updates {
        check_special(repo, &u.name, true)?;
    }
    let edits = updates
        .iter()
        .map(edit(log_message))
        .collect::<Result<Vec<_>>>()?;
    // Only directories whose entries change need a flush: each ref's parent,
    // and the parent of every directory this update creates.
    let changed_dirs = durable::dirs_to_flush(repo.common_dir(), updates.iter().map(|u| u.name.as_str()));
    let mut locks: Vec<std::path::PathBuf> = updates
        .iter()
        .map(|u| repo.common_dir().join(format!("{}.lock", u.name)))
        .collect();
    locks.push(repo.common_dir().join("packed-refs.lock"));
    let in_flight = crate::repo::inflight::begin(repo.common_dir(), &locks)?;
    if let Some(first) = locks.first() {
        crate::fault::holding("refs-locked", first);
    }
    let mut tb = gix::date::parse::TimeBuf::default();
    let sig = signature(&mut tb);
    // Locked and written, then (with `flush_first`) flushed with the
    // objects, then renamed into place.
    let (files, packed) = lock_timeouts(repo);
    let edited = match prepare_raceproof(repo, edits, files, packed) {
        Ok(prepared) => {
            if let Some(rec) = flush_first {
                let ref_files = locks.get(..updates.len()).unwrap_or_default();
                // On failure the prepared transaction is dropped: the locks
                // go, the refs stay.
                rec.sync_with(ref_files, &changed_dirs)?;
                crate::fault::point("after-objects");
            }
            prepared.commit(Some(sig)).map(drop)
        }
        Err(e) => Err(e),
    };
    drop(in_flight);
    match edited {
        Ok(()) => {}
        Err(e) if e.dominant_class() == Some(gix::error::Class::Conflict) => {
            return Err(Error::Conflict {
                reference: updates
                    .iter()
                    .map(|u| u.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Err(e) => {
            return Err(Error::Git {
                context: format!(
                    "could not update {}",
                    updates.first().map_or("refs", |u| u.name.as_str())
                ),
                source: Box::new(e),
            });
        }
    }
    if flush_first.is_some() {
        return Ok(());
    }
    durable::sync_refs(
        repo,
        updates.iter().map(|u| (u.name.as_str(), u.new.is_some())),
        changed_dirs,
    )
}

/// gix's `prepare`, again when a lock file could not be created because
/// its folder was gone: `git pack-refs` deletes the folders it empties (a
/// thread's `turn/`, once its refs are packed) and may do so between gix
/// creating the folder and the lock file in it. git retries the same way
/// (`raceproof_create_file`); nothing was changed by the failed attempt.
fn prepare_raceproof(
    repo: &gix::Repository,
    edits: Vec<RefEdit>,
    files: gix::lock::acquire::Fail,
    packed: gix::lock::acquire::Fail,
) -> std::result::Result<gix::refs::file::Transaction<'_, '_>, gix::Error> {
    let mut attempts = 0;
    loop {
        match repo.refs.transaction().prepare(edits.clone(), files, packed) {
            Err(e) if attempts < 3 && folder_vanished(&e) => attempts += 1,
            done => return done,
        }
    }
}

/// Whether `e` comes from a file that could not be created or found.
fn folder_vanished(e: &gix::Error) -> bool {
    e.iter_errors().any(|cause| {
        std::iter::successors(Some(cause), |c| c.source()).any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
        })
    })
}

/// How long to wait for a ref's lock and for `packed-refs.lock`, as git:
/// `core.filesRefLockTimeout` (100 ms) and `core.packedRefsTimeout`
/// (1000 ms), in milliseconds, negative for ever.
fn lock_timeouts(repo: &gix::Repository) -> (gix::lock::acquire::Fail, gix::lock::acquire::Fail) {
    let config = repo.config_snapshot();
    let mode = |key: &str, default: i64| {
        use gix::lock::acquire::Fail;
        match config.integer(key).unwrap_or(default) {
            0 => Fail::Immediately,
            ms if ms < 0 => {
                Fail::AfterDurationWithBackoff(std::time::Duration::from_secs(u64::from(u32::MAX)))
            }
            ms => Fail::AfterDurationWithBackoff(std::time::Duration::from_millis(ms.unsigned_abs())),
        }
    };
    (
        mode("core.filesRefLockTimeout", 100),
        mode("core.packedRefsTimeout", 1000),
    )
}

/// The gix edit for one update.
fn edit(log_message: &str) -> impl Fn(&RefUpdate) -> Result<RefEdit> + '_ {
    move |u| {
        let name: gix::refs::FullName =
            u.name
                .as_str()
                .try_into()
                .map_err(|e: gix::validate::reference::name::Error| Error::BadMetadata {
                    reference: u.name.clone(),
                    problem: format!("not a valid ref name: {e}"),
                })?;
        let change = match u.new {
            Some(id) => Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: log_message.into(),
                },
                expected: u.expect.previous(),
                new: Target::Object(id),
            },
            None => Change::Delete {
                expected: u.expect.previous(),
                log: RefLog::AndReference,
            },
        };
        Ok(RefEdit {
            change,
            name,
            deref: false,
        })
    }
}
