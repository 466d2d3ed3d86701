//! Reading a blob as a stream, so a restore of a file of any size holds a
//! few buffers, not the file (gix reads objects whole).
//!
//! A loose object is inflated from its file as it is read. A packed one is
//! read through `git cat-file blob`, which streams undeltified large
//! objects: gix has no streaming read of pack entries, and large files are
//! never deltified by git (`core.bigFileThreshold`). Either way the reader
//! fails unless it yields exactly the size the object database announced.

use std::io::{BufReader, Read};
use std::process::{Child, ChildStdout, Command, Stdio};

use gix::ObjectId;

use crate::error::{Context as _, Error, Result};

/// A blob's bytes, read as they are needed.
pub struct BlobReader {
    source: Source,
    left: u64,
}

enum Source {
    Loose {
        file: BufReader<std::fs::File>,
        state: gix::zlib::Decompress,
    },
    Git {
        child: Child,
        out: ChildStdout,
    },
}

impl BlobReader {
    /// The blob `id` (of `size` bytes, from its header) as a stream.
    pub fn open(repo: &gix::Repository, id: ObjectId, size: u64) -> Result<Self> {
        let loose = gix::odb::loose::Store::at(repo.common_dir().join("objects"), repo.object_hash());
        let path = loose.object_path(&id);
        let source = match crate::fsread::open_regular(&path, true) {
            Err(e) if crate::fsread::is_not_regular(&e) => {
                return Err(e).context(|| format!("could not read blob {id} from {}", path.display()));
            }
            Ok(file) => {
                let mut source = Source::Loose {
                    file: BufReader::with_capacity(1 << 16, file),
                    state: gix::zlib::Decompress::new(),
                };
                skip_header(&mut source, id, size)?;
                source
            }
            Err(_) => {
                let mut child = Command::new("git")
                    .arg("--git-dir")
                    .arg(repo.git_dir())
                    .args(["cat-file", "blob", &id.to_string()])
                    .env_remove("GIT_DIR")
                    .env_remove("GIT_OBJECT_DIRECTORY")
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .context(|| format!("could not run git to read blob {id}"))?;
                let out = child
                    .stdout
                    .take()
                    .ok_or_else(|| Error::Internal("git's stdout was not piped".into()))?;
                Source::Git { child, out }
            }
        };
        Ok(BlobReader { source, left: size })
    }
}

/// Read the loose object's `blob <size>\0` header and check it.
fn skip_header(source: &mut Source, id: ObjectId, size: u64) -> Result<()> {
    let mut header = Vec::with_capacity(32);
    let mut byte = [0u8; 1];
    loop {
        let n = source
            .read(&mut byte)
            .context(|| format!("could not read object {id}"))?;
        if n == 0 || header.len() > 32 {
            return Err(Error::Internal(format!("object {id} has a malformed header")));
        }
        if byte[0] == 0 {
            break;
        }
        header.push(byte[0]);
    }
    if header != format!("blob {size}").as_bytes() {
        return Err(Error::Internal(format!(
            "object {id} is not the blob of {size} bytes it was announced as"
        )));
    }
    Ok(())
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Source::Loose { file, state } => gix::zlib::stream::inflate::read(file, state, buf),
            Source::Git { out, .. } => out.read(buf),
        }
    }
}

impl Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        if want == 0 {
            // Past the announced size: the stream must end here.
            let mut probe = [0u8; 1];
            return match self.source.read(&mut probe)? {
                0 => self.finish().map(|()| 0),
                _ => Err(std::io::Error::other("the object is longer than announced")),
            };
        }
        let n = self.source.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the object is shorter than announced",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

impl BlobReader {
    /// A `git cat-file` that failed fails the read.
    fn finish(&mut self) -> std::io::Result<()> {
        if let Source::Git { child, .. } = &mut self.source
            && !child.wait()?.success()
        {
            return Err(std::io::Error::other("git cat-file failed"));
        }
        Ok(())
    }
}

impl Drop for BlobReader {
    fn drop(&mut self) {
        if let Source::Git { child, .. } = &mut self.source {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
