//! Where objects go: an [`ObjectSink`] (a pack being gathered, loose
//! files, or memory only) shared by the threads that write for one
//! [`Recorder`](super::Recorder), and the loose write that retries.

use std::sync::{Arc, Mutex};

use gix::ObjectId;

use crate::repo::loose::LooseWriter;
use crate::repo::pack::PackSink;

/// Where an object is written: into a pack being gathered, else loose with
/// git-t3's writer where the repository allows it, else with gix's; or,
/// for a look that must not write
/// ([`Recorder::in_memory`](super::Recorder::in_memory)), only into memory.
/// Shared by the threads that hash files for one
/// [`Recorder`](super::Recorder).
#[derive(Debug, Clone)]
pub struct ObjectSink {
    pub(super) loose: Option<LooseWriter>,
    pub(super) pack: Option<Arc<PackSink>>,
    pub(super) memory: Option<Memory>,
}

/// Objects kept in memory instead of written, shared by the threads of one
/// [`Recorder::in_memory`](super::Recorder::in_memory).
#[derive(Debug, Clone, Default)]
pub(super) struct Memory(Arc<Mutex<gix::odb::memory::Storage>>);

impl Memory {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, gix::odb::memory::Storage> {
        // A thread that panicked while inserting left a whole map behind.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ObjectSink {
    /// Loose objects, as git writes them.
    pub fn loose(repo: &gix::Repository) -> ObjectSink {
        ObjectSink {
            loose: LooseWriter::of(repo),
            pack: None,
            memory: None,
        }
    }

    /// Whether objects go to memory only: a file is then hashed in memory,
    /// never streamed into the object database.
    pub fn in_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// Write object `id` (computed by the caller) of `kind` holding `data`
    /// through `odb` when there is no writer of git-t3's own. Returns
    /// whether it went loose (and must be flushed as a file).
    pub fn write(
        &self,
        odb: &impl gix::objs::Write,
        kind: gix::objs::Kind,
        data: &[u8],
        id: ObjectId,
    ) -> gix::Result<bool> {
        if let Some(memory) = &self.memory {
            memory.lock().entry(id).or_insert_with(|| (kind, data.to_vec()));
            return Ok(false);
        }
        if let Some(pack) = &self.pack {
            pack.add(kind, data, id).map_err(gix::Error::from_error)?;
            return Ok(false);
        }
        write_loose(odb, self.loose.as_ref(), kind, data, id).map(|_| true)
    }

    /// Whether object `id` went into the pack.
    pub(super) fn packed(&self, id: &ObjectId) -> bool {
        self.pack.as_ref().is_some_and(|p| p.holds(id))
    }
}

/// Write object `id` loose, with `loose` when there is one, else with gix's
/// writer `odb`.
pub fn write_loose(
    odb: &impl gix::objs::Write,
    loose: Option<&LooseWriter>,
    kind: gix::objs::Kind,
    data: &[u8],
    id: ObjectId,
) -> gix::Result<ObjectId> {
    match loose {
        Some(w) => w
            .write(kind, data, id)
            .map(|()| id)
            .map_err(gix::Error::from_error),
        None => odb.write_buf_with_known_id(kind, data, id),
    }
}

/// Run an object write again when it fails, a few times: `git gc` (its
/// `prune-packed`, maybe in the background) removes emptied fan-out
/// folders, and gix creates the folder, then renames the object into it, so
/// a removal in between fails the rename (git's own writer retries too). A
/// write is idempotent: the same bytes make the same object.
pub fn write_retrying<T>(mut write: impl FnMut() -> gix::Result<T>) -> gix::Result<T> {
    let mut attempt = 0u32;
    loop {
        match write() {
            Err(_) if attempt < 3 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(u64::from(attempt)));
            }
            other => return other,
        }
    }
}
