//! The opencode plugin `install-hooks --opencode` writes. The same text is
//! shipped as `hooks/opencode/plugins/git-t3.js` (a test keeps them equal).

/// The first line of every version of our plugin: a file that starts with
/// it is ours to replace with a newer version.
pub(super) const MARKER: &str = "// git-t3 opencode plugin";

/// The plugin: `chat.message` → `git t3 hook opencode` with
/// `{"event": "chat.message", "sessionID", "messageID", "prompt",
/// "directory"}` on stdin; `session.idle` → `{"event": "session.idle",
/// "sessionID", "directory"}`. Subagent sessions (those with a parent) are
/// left out.
pub(super) const PLUGIN: &str = r#"// git-t3 opencode plugin: a checkpoint of the worktree per turn.
// Written by `git t3 install-hooks --opencode`; `git t3 uninstall-hooks
// --opencode` removes it while it is unchanged. Payloads: hooks/README.md.
export const GitT3 = async ({ $, directory }) => {
  // Sessions a subagent (the task tool) runs in: their turns are the
  // parent's, not threads of their own.
  const children = new Set()
  const remember = (info) => {
    if (info && info.id && info.parentID) children.add(info.id)
  }
  const hook = async (payload) => {
    try {
      await $`git t3 hook opencode < ${new Response(JSON.stringify(payload))}`
        .cwd(directory)
        .quiet()
        .nothrow()
    } catch {
      // git t3 missing or failing never stops the agent.
    }
  }
  return {
    "chat.message": async (input, output) => {
      if (children.has(input.sessionID)) return
      const text = (output.parts || []).find((p) => p.type === "text" && !p.synthetic)
      await hook({
        event: "chat.message",
        sessionID: input.sessionID,
        messageID: (output.message && output.message.id) || input.messageID,
        prompt: text ? text.text : "",
        directory,
      })
    },
    event: async ({ event }) => {
      if (event.type === "session.created" || event.type === "session.updated") {
        remember(event.properties && event.properties.info)
      } else if (event.type === "session.idle") {
        const sessionID = event.properties && event.properties.sessionID
        if (!sessionID || children.has(sessionID)) return
        await hook({ event: "session.idle", sessionID, directory })
      }
    },
  }
}
"#;
