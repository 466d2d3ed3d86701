//! What decides how a file is hashed besides its bytes: git's attributes
//! (`.gitattributes` at any depth, `info/attributes`, `core.attributesFile`)
//! and the line-ending settings. Their fingerprint is stored with the
//! capture cache; when it changes, no cached id or stat data is trusted and
//! every file is hashed again (`git add` after `--renormalize`), so a new
//! `eol` or `text` rule reaches every file, tracked or not.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix::bstr::{BStr, BString, ByteSlice as _};

use crate::model::path::parent;

/// What the attribute sources and settings say, as far as a capture cares.
pub(super) struct Attributes {
    /// Their fingerprint.
    pub(super) id: String,
    /// Whether line endings may be converted automatically somewhere
    /// (`core.autocrlf`, or an `auto` value in an attributes file): such a
    /// conversion of a file with CRLF reads the index's blob (see
    /// [`super::clean`]), which the cache's ids are not.
    pub(super) auto_eol: bool,
    /// Whether any file may be converted at all (line endings, filters,
    /// `ident`, encodings): if not, an id hashed under other settings is
    /// still the one `git add` gives now, when the size agrees.
    pub(super) converts: bool,
    /// The folders whose `.gitattributes` were read (`""`: the root).
    pub(super) folders: HashSet<BString>,
}

impl Attributes {
    /// The fingerprint over the folders read and those on the way to
    /// `paths`, with its `auto_eol`: the same as [`sources`] over all of
    /// them gives. Only the folders not read yet are looked at; when none
    /// of them holds a `.gitattributes` (an absent file counts for
    /// nothing), the fingerprint is this one, else everything is read
    /// again.
    pub(super) fn extended<'a>(
        self,
        repo: &gix::Repository,
        workdir: &Path,
        paths: impl Iterator<Item = &'a BStr>,
    ) -> Stamp {
        let mut new: HashSet<BString> = HashSet::new();
        for p in paths {
            let mut dir = parent(p);
            while !self.folders.contains(dir) && new.insert(dir.to_owned()) && !dir.is_empty() {
                dir = parent(dir);
            }
        }
        let unchanged = new.iter().all(|dir| {
            gix::path::from_bstr(dir.as_bstr()).map_or(true, |rel| {
                crate::fsread::read_regular(&workdir.join(rel).join(".gitattributes"), true).is_err()
            })
        });
        if unchanged {
            return self.stamp();
        }
        let mut folders = self.folders;
        folders.extend(new);
        Sources::of_folders(repo, workdir, folders).read().stamp()
    }

    fn stamp(self) -> Stamp {
        Stamp {
            id: self.id,
            auto_eol: self.auto_eol,
        }
    }
}

/// What the capture cache keeps of the attributes: their fingerprint, and
/// whether line endings may be converted automatically under them, which
/// the next capture's walk needs before it has read the attributes again
/// (it reads them beside the walk, and walks again in the rare case they
/// changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stamp {
    /// [`Attributes::id`].
    pub(super) id: String,
    /// [`Attributes::auto_eol`].
    pub(super) auto_eol: bool,
}

/// Words in an attributes file that may make `git add` change a file.
const CONVERTING: &[&[u8]] = &[b"text", b"eol", b"crlf", b"filter", b"ident", b"encoding"];

/// The attribute sources and settings, with the `.gitattributes` of every
/// folder on the way to `paths` (sorted, or nearly: it only costs more)
/// to be read from the worktree — whether tracked, ignored or t3-ignored,
/// as git reads them — by [`Sources::read`], on any thread.
pub(super) fn sources<'a>(
    repo: &gix::Repository,
    workdir: &Path,
    paths: impl Iterator<Item = &'a BStr>,
) -> Sources {
    let mut folders: HashSet<BString> = HashSet::new();
    let mut last: Option<&BStr> = None;
    for p in paths {
        let mut dir = parent(p);
        if last == Some(dir) {
            continue;
        }
        last = Some(dir);
        // The folder and those above it, up to one seen already.
        while folders.insert(dir.to_owned()) {
            if dir.is_empty() {
                break;
            }
            dir = parent(dir);
        }
    }
    Sources::of_folders(repo, workdir, folders)
}

/// The attribute settings, read, and the files to read: every one but
/// the config's is read by [`Sources::read`], which needs no repository.
pub(super) struct Sources {
    settings: super::fingerprint::Pending,
    files: Vec<PathBuf>,
    autocrlf: bool,
    folders: HashSet<BString>,
}

impl Sources {
    /// The sources, given the folders whose `.gitattributes` count.
    fn of_folders(repo: &gix::Repository, workdir: &Path, folders: HashSet<BString>) -> Sources {
        let keys = [
            "core.autocrlf",
            "core.eol",
            "core.safecrlf",
            "core.attributesFile",
            "core.checkRoundtripEncoding",
        ];
        let mut files: Vec<PathBuf> = [
            Some(repo.common_dir().join("info").join("attributes")),
            super::fingerprint::global_file(repo, "core.attributesFile", "attributes"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut sorted: Vec<&BString> = folders.iter().collect();
        sorted.sort();
        for dir in sorted {
            let Ok(rel) = gix::path::from_bstr(dir.as_bstr()) else {
                continue;
            };
            files.push(workdir.join(rel).join(".gitattributes"));
        }
        let autocrlf = repo
            .config_snapshot()
            .string("core.autocrlf")
            .is_some_and(|v| !v.eq_ignore_ascii_case(b"false"));
        Sources {
            settings: super::fingerprint::Pending::of(repo, &keys),
            files,
            autocrlf,
            folders,
        }
    }

    /// Read the files: the attributes.
    pub(super) fn read(self) -> Attributes {
        let _t = crate::trace::span("attributes");
        let Sources {
            settings,
            files,
            autocrlf,
            folders,
        } = self;
        let (mut auto_eol, mut converts) = (autocrlf, autocrlf);
        let id = settings.finish(&files, true, &mut |data| {
            auto_eol |= data.find(b"auto").is_some();
            converts |= CONVERTING.iter().any(|w| data.find(w).is_some());
        });
        Attributes {
            id,
            auto_eol,
            converts,
            folders,
        }
    }
}
