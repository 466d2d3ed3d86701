// git-t3 opencode plugin: a checkpoint of the worktree per turn.
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
