//! What `install-hooks` changed, kept so that `uninstall-hooks` gives each
//! file back byte for byte when nothing else changed it meanwhile.
//!
//! One JSON file per place: `<git common dir>/t3/install/records.json` for
//! files inside the repository, `$XDG_STATE_HOME/git-t3/install-records.json`
//! (`~/.local/state/…`) for the user's own configuration.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{self, Durability};
use crate::error::{Error, IoContext as _, Result};

/// One change to one file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Record {
    /// What was installed (`claude-code`, `codex`, `codex-feature`,
    /// `codex-notify`, `cursor`, `opencode`).
    pub part: String,
    /// The file.
    pub path: PathBuf,
    /// Its text before (`None`: it did not exist).
    pub before: Option<String>,
    /// The text install wrote.
    pub after: String,
    /// The file did not exist before git t3 first changed it (this part or
    /// another one: shared by the records of one file).
    #[serde(default)]
    pub file_created: bool,
    /// Containers install created in it (`hooks`, `hooks.Stop`, `features`).
    #[serde(default)]
    pub created: Vec<String>,
    /// The value install replaced, as written (`codex-feature`: the flag's
    /// key and value; `codex-notify`: the notify array).
    #[serde(default)]
    pub previous: Option<String>,
    /// `codex-feature`: the key install set.
    #[serde(default)]
    pub key: Option<String>,
    /// `codex-feature`: the hooks files that need the flag.
    #[serde(default)]
    pub users: Vec<PathBuf>,
    /// `codex-feature`: the deprecated `codex_hooks` value install took out
    /// when it wrote `hooks`, as written (put back by uninstall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrated: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    records: Vec<Record>,
    /// Folders install created, removed once empty.
    #[serde(default)]
    created_dirs: Vec<PathBuf>,
}

/// The records kept in one file.
#[derive(Debug)]
pub(super) struct Store {
    path: PathBuf,
}

impl Store {
    pub fn new(path: PathBuf) -> Self {
        Store { path }
    }

    fn load(&self) -> Result<File> {
        match crate::fsread::read_regular(&self.path, true) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::BadInput {
                source_name: self.path.display().to_string(),
                problem: format!(
                    "not a git t3 install record ({e}); remove it to go on (uninstall then removes only our entries)"
                ),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
            Err(e) => Err(e).at("could not read", &self.path),
        }
    }

    fn save(&self, file: &mut File) -> Result<()> {
        // Deepest first: a folder is empty once those inside it are gone.
        file.created_dirs
            .sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        file.created_dirs.dedup();
        file.created_dirs.retain(|d| {
            let empty = std::fs::read_dir(d).is_ok_and(|mut entries| entries.next().is_none());
            !(empty && std::fs::remove_dir(d).is_ok()) && d.is_dir()
        });
        if file.records.is_empty() && file.created_dirs.is_empty() {
            match std::fs::remove_file(&self.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).at("could not remove", &self.path);
                }
                _ => {}
            }
            if let Some(dir) = self.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
            return Ok(());
        }
        let mut text = serde_json::to_string_pretty(file).map_err(|e| Error::Internal(e.to_string()))?;
        text.push('\n');
        atomic::write(&self.path, text.as_bytes(), Some(0o600), Durability::Flushed)
    }

    /// Refuse a record file that cannot be read, before anything is written.
    pub fn check(&self) -> Result<()> {
        self.load().map(drop)
    }

    /// The record of `part` in `path`.
    pub fn get(&self, part: &str, path: &Path) -> Result<Option<Record>> {
        Ok(self
            .load()?
            .records
            .into_iter()
            .find(|r| r.part == part && r.path == path))
    }

    /// Keep `record`, replacing the one of the same part and file. Whether
    /// git t3 created the file, and the folders it created for it, are
    /// shared by every record of the file.
    pub fn put(&self, mut record: Record) -> Result<()> {
        let mut file = self.load()?;
        file.records
            .retain(|r| !(r.part == record.part && r.path == record.path));
        for other in file.records.iter().filter(|r| r.path == record.path) {
            record.file_created |= other.file_created;
        }
        file.records.push(record);
        self.save(&mut file)
    }

    /// Remember folders install created, to remove them once empty.
    pub fn add_dirs(&self, dirs: Vec<PathBuf>) -> Result<()> {
        if dirs.is_empty() {
            return Ok(());
        }
        let mut file = self.load()?;
        file.created_dirs.extend(dirs);
        self.save(&mut file)
    }

    /// Forget the record of `part` in `path` (and remove the folders
    /// install created that are empty now).
    pub fn remove(&self, part: &str, path: &Path) -> Result<()> {
        let mut file = match self.load() {
            Ok(f) => f,
            // A broken record file was reported when it was read; the
            // uninstall went on without it.
            Err(_) => return Ok(()),
        };
        file.records.retain(|r| !(r.part == part && r.path == path));
        self.save(&mut file)
    }
}
