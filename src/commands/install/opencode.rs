//! The opencode plugin `install-hooks --opencode` writes: the file shipped
//! as `hooks/opencode/plugins/git-t3.js`, built into the binary.

/// The first line of every version of our plugin: a file that starts with
/// it is ours to replace with a newer version.
pub(super) const MARKER: &str = "// git-t3 opencode plugin";

/// The plugin: `chat.message` → `git t3 hook opencode` with
/// `{"event": "chat.message", "sessionID", "messageID", "prompt",
/// "directory"}` on stdin; `session.idle` → `{"event": "session.idle",
/// "sessionID", "directory"}`. Subagent sessions (those with a parent) are
/// left out.
pub(super) const PLUGIN: &str = include_str!("../../../hooks/opencode/plugins/git-t3.js");
