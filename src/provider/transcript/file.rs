//! Where a transcript is, and reading and writing it (a file, or an opencode session).

use super::*;

/// A transcript path that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file (below the data directory with symlinks resolved); for
    /// opencode, the session as [`crate::provider::opencode::handle`] names it.
    pub path: PathBuf,
    /// Whether it exists (as a regular file; for opencode, whether the
    /// program was found, the session's existence is learnt by reading it).
    pub exists: bool,
    /// opencode: the program and the session id.
    pub opencode: Option<(PathBuf, String)>,
}

/// Check that `raw` (from a note or an op) names the conversation file of
/// `thread` under `agent`'s data directory, as the module says.
pub fn locate(agent: Agent, raw: &str, thread: &str, homes: &AgentHomes) -> Result<Located, RollbackError> {
    if agent == Agent::Opencode {
        return locate_opencode(raw, thread, homes);
    }
    let root = agent.data_root(homes).ok_or(RollbackError::NoDataDir { agent })?;
    let refuse = |why: &str| RollbackError::Untrusted {
        path: raw.to_owned(),
        why: why.to_owned(),
        root: root.clone(),
    };
    if raw.len() > 4096 || raw.contains('\0') {
        return Err(refuse("it is not a path"));
    }
    if !raw.starts_with('/') {
        return Err(refuse("it is not an absolute path"));
    }
    if raw[1..].split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(refuse("it has an empty, '.' or '..' component"));
    }
    let meta = std::fs::metadata(&root).map_err(|_| refuse("the data directory does not exist"))?;
    if !meta.is_dir() || !owned_by_me(&meta) {
        return Err(refuse("the data directory is not a directory of yours"));
    }
    let canonical =
        std::fs::canonicalize(&root).map_err(|_| refuse("the data directory cannot be resolved"))?;
    let raw_path = Path::new(raw);
    let rel = raw_path
        .strip_prefix(&root)
        .or_else(|_| raw_path.strip_prefix(&canonical))
        .map_err(|_| refuse("it is not under the agent's data directory"))?;
    let parts: Vec<&OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(n) => Ok(n),
            _ => Err(refuse("it has a component that is not a name")),
        })
        .collect::<Result<_, _>>()?;
    if !agent.is_session_file(&parts, thread) {
        return Err(refuse(match agent {
            Agent::ClaudeCode => "it is not <project>/<this thread's session id>.jsonl",
            Agent::Codex => "it is not a rollout-…-<this thread's session id>.jsonl file",
            Agent::Opencode | Agent::Cursor => "it is not this thread's session",
        }));
    }
    let mut path = canonical;
    let (name, dirs) = parts.split_last().ok_or_else(|| refuse("it names no file"))?;
    for dir in dirs {
        path.push(dir);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse("a directory on its way is a symbolic link"));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refuse("a component on its way is not a directory")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RollbackError::Missing { agent, path });
            }
            Err(source) => {
                return Err(RollbackError::Io {
                    context: "could not read",
                    path,
                    source,
                });
            }
        }
    }
    path.push(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(refuse("it is a symbolic link")),
        Ok(m) if !m.is_file() => Err(refuse("it is not a regular file")),
        Ok(m) if !owned_by_me(&m) => Err(refuse("it belongs to another user")),
        Ok(_) => Ok(Located {
            path,
            exists: true,
            opencode: None,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Located {
            path,
            exists: false,
            opencode: None,
        }),
        Err(source) => Err(RollbackError::Io {
            context: "could not read",
            path,
            source,
        }),
    }
}

/// opencode's session `thread`, named `raw` (by an op), reached through
/// the `opencode` program on `PATH`.
pub(super) fn locate_opencode(raw: &str, thread: &str, homes: &AgentHomes) -> Result<Located, RollbackError> {
    let handle = crate::provider::opencode::handle(thread);
    let refuse = |why: &str| RollbackError::Untrusted {
        path: raw.chars().filter(|c| !c.is_control()).take(200).collect(),
        why: why.to_owned(),
        root: PathBuf::from("opencode's database"),
    };
    if !crate::provider::opencode::is_plain_id(thread) {
        return Err(refuse("the thread is not an opencode session id"));
    }
    if raw != handle {
        return Err(refuse("it is not this thread's session"));
    }
    let program =
        crate::provider::opencode::program(homes.search_path.as_deref()).ok_or(RollbackError::NoProgram {
            agent: Agent::Opencode,
            program: "opencode",
        })?;
    Ok(Located {
        path: PathBuf::from(handle),
        exists: true,
        opencode: Some((program, thread.to_owned())),
    })
}

pub(super) fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.uid() == rustix::process::geteuid().as_raw()
}

/// The bytes of the located file (`None`: it does not exist), read without
/// following a symbolic link, at most [`MAX_TRANSCRIPT_BYTES`].
pub fn read(agent: Agent, at: &Located) -> Result<Option<Vec<u8>>, RollbackError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if let Some(session) = opencode_session(at) {
        return match session.read() {
            Ok(data) => Ok(Some(data)),
            Err(crate::provider::opencode::Failure::NoSession) => Ok(None),
            Err(crate::provider::opencode::Failure::Other(problem)) => Err(RollbackError::Format {
                agent,
                path: at.path.clone(),
                problem,
            }),
        };
    }
    let io = |context, source| RollbackError::Io {
        context,
        path: at.path.clone(),
        source,
    };
    let file = match std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&at.path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("could not open", e)),
    };
    let meta = file.metadata().map_err(|e| io("could not read", e))?;
    if !meta.is_file() {
        return Err(RollbackError::Format {
            agent,
            path: at.path.clone(),
            problem: "it is not a regular file".into(),
        });
    }
    if meta.len() > MAX_TRANSCRIPT_BYTES {
        return Err(RollbackError::Format {
            agent,
            path: at.path.clone(),
            problem: format!(
                "it is {} bytes, more than git t3 reads ({MAX_TRANSCRIPT_BYTES})",
                meta.len()
            ),
        });
    }
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_TRANSCRIPT_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| io("could not read", e))?;
    Ok(Some(data))
}

pub(super) fn opencode_session(at: &Located) -> Option<crate::provider::opencode::Session<'_>> {
    at.opencode
        .as_ref()
        .map(|(program, id)| crate::provider::opencode::Session { program, id })
}

/// Replace the located file with `data` atomically (`None`: remove it; for
/// opencode, the session is left without messages).
pub(super) fn write(at: &Located, data: Option<&[u8]>) -> Result<()> {
    if let Some(session) = opencode_session(at) {
        return session.write(data.unwrap_or(b"[]")).map_err(|f| {
            let problem = match f {
                crate::provider::opencode::Failure::NoSession => {
                    format!("the session {} is gone", at.path.display())
                }
                crate::provider::opencode::Failure::Other(p) => p,
            };
            RollbackError::Format {
                agent: Agent::Opencode,
                path: at.path.clone(),
                problem,
            }
            .into_error(Agent::Opencode)
        });
    }
    match data {
        Some(bytes) => crate::atomic::write(
            &at.path,
            bytes,
            (!at.exists).then_some(0o600),
            crate::atomic::Durability::Flushed,
        ),
        None => match std::fs::remove_file(&at.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
                context: "could not remove".into(),
                path: Some(at.path.clone()),
                source: e,
            }),
            _ => Ok(()),
        },
    }
}
