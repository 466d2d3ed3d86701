//! Shell completion: the completions script, and thread ids completed from the repository.

use super::*;

/// The environment variable that asks `git-t3` for completions instead of
/// running a command (clap's dynamic completion protocol).
pub const COMPLETE_VAR: &str = "GIT_T3_COMPLETE";

/// When the shell asks for completions (`GIT_T3_COMPLETE=<shell>`), print
/// them and exit; otherwise return and let the command run.
pub fn complete_if_asked() {
    use clap::CommandFactory as _;
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(COMPLETE_VAR)
        .bin("git-t3")
        .completer("git-t3")
        .complete();
}

/// `--thread <TAB>`: the ids of the threads in the repository around the
/// current directory (nothing outside a repository).
pub(super) fn thread_completer() -> clap_complete::ArgValueCompleter {
    clap_complete::ArgValueCompleter::new(|current: &std::ffi::OsStr| {
        let prefix = current.to_string_lossy();
        crate::commands::list::thread_ids_near(std::path::Path::new("."))
            .into_iter()
            .filter(|(id, _)| id.starts_with(prefix.as_ref()))
            .map(|(id, turns)| {
                clap_complete::CompletionCandidate::new(id).help(Some(
                    format!("{turns} turn{}", if turns == 1 { "" } else { "s" }).into(),
                ))
            })
            .collect()
    })
}

/// The completion script for `shell`: it asks `git-t3` itself for the
/// candidates (subcommands, options, thread ids) each time.
///
/// bash: a `_git_t3` function lets git's own completion complete
/// `git t3 <TAB>` through the same protocol.
pub fn completions(shell: &str) -> Result<String, String> {
    use clap_complete::env::EnvCompleter as _;
    let mut buf = Vec::new();
    let written = match shell {
        "bash" => {
            clap_complete::env::Bash.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        "zsh" => {
            clap_complete::env::Zsh.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        "fish" => {
            clap_complete::env::Fish.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        other => return Err(format!("no completions for '{other}': use bash, zsh or fish")),
    };
    written.map_err(|e| format!("could not write the completion script: {e}"))?;
    let mut script = String::from_utf8_lossy(&buf).into_owned();
    if shell == "bash" {
        script.push_str(GIT_BASH_BRIDGE);
    }
    Ok(script)
}

/// git's bash completion completes `git t3 …` by calling `_git_t3`, with
/// the words in `words` and the current one's index in `cword`: hand the
/// words after `t3` to `git-t3` as if it had been typed alone.
pub(super) const GIT_BASH_BRIDGE: &str = r#"
# git t3 <TAB>: git's completion calls _git_t3.
_git_t3() {
    local IFS=$'\013'
    local i at=0
    for ((i = 1; i < cword; i++)); do
        if [[ "${words[i]}" == t3 ]]; then at=$i; break; fi
    done
    ((at > 0)) || return
    COMPREPLY=( $( \
        _CLAP_IFS="$IFS" \
        _CLAP_COMPLETE_INDEX=$((cword - at)) \
        _CLAP_COMPLETE_COMP_TYPE="${COMP_TYPE:-9}" \
        _CLAP_COMPLETE_SPACE=true \
        GIT_T3_COMPLETE=bash \
        git-t3 -- git-t3 "${words[@]:at+1}" \
    ) )
    # `--thread=al<TAB>`: bash replaces only what follows the `=`.
    if [[ "${words[cword]}" == *=* && "${COMP_WORDBREAKS:-=}" == *=* ]]; then
        COMPREPLY=( "${COMPREPLY[@]#*=}" )
    fi
}
"#;
