// git-t3 opencode plugin: a checkpoint of the worktree per turn.
// Written by `git t3 install-hooks --opencode`; `git t3 uninstall-hooks
// --opencode` removes it while it is unchanged. Payloads: hooks/README.md.
import { spawnSync } from "node:child_process"

export const GitT3 = async ({ $, directory }) => {
  // Sessions a subagent (the task tool) runs in: their turns are the
  // parent's, not threads of their own.
  const children = new Set()
  // The last error of a turn still running, by session: how it ended.
  const errors = new Map()
  // Sessions whose turn is running (a prompt came, no idle yet).
  const running = new Set()
  // `opencode run` dies on SIGINT or SIGTERM without ending its turn: the
  // running turns are captured as interrupted first, then the signal does
  // what it did (when nothing else in opencode listens for it).
  const onSignal = (signal) => {
    for (const sessionID of running) {
      const payload = JSON.stringify({ event: "session.idle", sessionID, directory, error: "MessageAbortedError" })
      try {
        spawnSync("git", ["t3", "hook", "opencode"], { cwd: directory, input: payload, stdio: ["pipe", "ignore", "ignore"], timeout: 20000 })
      } catch {
        // never stops the agent
      }
    }
    running.clear()
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, onSignal)
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
      running.add(input.sessionID)
      errors.delete(input.sessionID)
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
      } else if (event.type === "session.error") {
        // An abort (MessageAbortedError) or a failed model call: told with
        // the turn's end, which follows.
        const p = event.properties || {}
        if (p.sessionID && running.has(p.sessionID)) {
          errors.set(p.sessionID, String((p.error && p.error.name) || "error"))
        }
      } else if (event.type === "session.idle") {
        const sessionID = event.properties && event.properties.sessionID
        if (!sessionID || children.has(sessionID)) return
        const error = errors.get(sessionID)
        errors.delete(sessionID)
        running.delete(sessionID)
        await hook({ event: "session.idle", sessionID, directory, ...(error ? { error } : {}) })
      }
    },
  }
}
