//! The one integration-test binary: every test builds real repositories with
//! git and drives the built `git-t3` binary.

mod algorithms;
mod bad_input;
mod binary;
mod capture;
mod color;
mod copies;
mod current;
mod diff;
mod durability;
mod extension;
mod fuzz;
mod git_attributes;
mod git_cli;
mod git_options;
mod hook;
mod hostile;
mod install;
mod layers;
mod lossless;
mod moved;
mod own_packs;
mod parity;
mod property;
mod providers;
mod recovery;
mod relative;
mod retention;
mod revert;
mod review;
mod review_page;
mod safety;
mod scope;
mod signals;
mod store;
mod sync;
mod two_threads;
mod untracked_cache;
mod util;
mod verify;
mod worktrees;

#[test]
fn every_test_module_is_listed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(
                main.contains(&format!("mod {module};")),
                "tests/it/{name} is not listed in main.rs"
            );
        }
    }
}
