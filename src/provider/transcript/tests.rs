//! The unit tests of `transcript.rs`.

use super::*;

fn homes(dir: &Path) -> AgentHomes {
    AgentHomes {
        home: Some(dir.to_owned()),
        ..AgentHomes::default()
    }
}

#[test]
fn only_this_threads_file_under_the_agents_own_directory_is_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join(".claude/projects/-work-repo");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join("s1.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    std::fs::write(home.join(".bashrc"), "x\n").unwrap();
    let h = homes(home);
    let ok = locate(Agent::ClaudeCode, file.to_str().unwrap(), "s1", &h).unwrap();
    assert!(ok.exists);
    let p = |s: &str| format!("{}/{s}", home.display());
    for bad in [
        p(".bashrc"),
        p(".claude/projects/-work-repo/../../../.bashrc"),
        p(".claude/projects/-work-repo/./s1.jsonl"),
        p(".claude/projects/-work-repo//s1.jsonl"),
        p(".claude/projects/-work-repo/s2.jsonl"),
        p(".claude/projects/s1.jsonl"),
        p(".claude/projects/-work-repo/s1/subagents/s1.jsonl"),
        "relative/s1.jsonl".to_owned(),
        String::new(),
        "/".to_owned(),
    ] {
        assert!(
            matches!(
                locate(Agent::ClaudeCode, &bad, "s1", &h),
                Err(RollbackError::Untrusted { .. })
            ),
            "{bad} was accepted"
        );
    }
    // A symlinked file or directory below the data directory is refused.
    std::os::unix::fs::symlink(home.join(".bashrc"), project.join("s3.jsonl")).unwrap();
    assert!(matches!(
        locate(
            Agent::ClaudeCode,
            project.join("s3.jsonl").to_str().unwrap(),
            "s3",
            &h
        ),
        Err(RollbackError::Untrusted { .. })
    ));
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("s4.jsonl"), "{}\n").unwrap();
    std::os::unix::fs::symlink(&other, home.join(".claude/projects/evil")).unwrap();
    let through = home.join(".claude/projects/evil/s4.jsonl");
    assert!(matches!(
        locate(Agent::ClaudeCode, through.to_str().unwrap(), "s4", &h),
        Err(RollbackError::Untrusted { .. })
    ));
    // Codex: a rollout of this session.
    let day = home.join(".codex/sessions/2026/08/01");
    std::fs::create_dir_all(&day).unwrap();
    let rollout = day.join("rollout-2026-08-01T10-00-00-s1.jsonl");
    std::fs::write(&rollout, "{}\n").unwrap();
    assert!(
        locate(Agent::Codex, rollout.to_str().unwrap(), "s1", &h)
            .unwrap()
            .exists
    );
    assert!(locate(Agent::Codex, rollout.to_str().unwrap(), "s2", &h).is_err());
    assert!(locate(Agent::Codex, file.to_str().unwrap(), "s1", &h).is_err());
    // CODEX_HOME moves the directory: ~/.codex is then not accepted.
    let moved = AgentHomes {
        codex_home: Some(home.join("elsewhere")),
        ..h.clone()
    };
    assert!(locate(Agent::Codex, rollout.to_str().unwrap(), "s1", &moved).is_err());
}

#[test]
fn the_transcript_comes_from_the_turns_reverted_and_they_must_agree() {
    let t = |turn, transcript: Option<&str>| TurnInfo {
        turn,
        transcript: transcript.map(str::to_owned),
        prompt_id: None,
    };
    let turns = [t(0, Some("/a")), t(1, None), t(2, Some("/b")), t(3, Some("/b"))];
    assert_eq!(transcript_of(Agent::ClaudeCode, &turns, 1).unwrap(), "/b");
    assert_eq!(transcript_of(Agent::ClaudeCode, &turns[..2], 1).unwrap(), "/a");
    let split = [t(1, Some("/a")), t(2, Some("/b"))];
    assert!(matches!(
        transcript_of(Agent::ClaudeCode, &split, 0),
        Err(RollbackError::NotesDisagree { .. })
    ));
    assert!(matches!(
        transcript_of(Agent::Codex, &[t(1, None)], 0),
        Err(RollbackError::NoTranscript { .. })
    ));
}
