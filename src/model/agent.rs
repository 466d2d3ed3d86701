//! The coding agents git-t3 knows: one type for the hooks, the notes, the
//! providers and the messages (`install-hooks` has its own list of what it
//! sets up, which also holds Codex's legacy notify program).

/// A coding agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Claude Code.
    ClaudeCode,
    /// Codex.
    Codex,
    /// opencode.
    Opencode,
    /// Cursor.
    Cursor,
}

impl Agent {
    /// Every agent, in the order messages list them.
    pub const ALL: [Agent; 4] = [Agent::ClaudeCode, Agent::Codex, Agent::Opencode, Agent::Cursor];

    /// The agent called `name` (see [`Agent::name`]).
    pub fn parse(name: &str) -> Option<Self> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Its name: on the command line (`git t3 hook <name>`), in notes
    /// (`agent`) and as the provider of its threads.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Opencode => "opencode",
            Agent::Cursor => "cursor",
        }
    }

    /// The agent as people call it.
    pub fn label(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Opencode => "opencode",
            Agent::Cursor => "Cursor",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.name()), Some(a));
        }
        assert_eq!(Agent::parse("claude"), None);
    }
}
