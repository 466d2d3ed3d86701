//! The module graph has ranks, and every arrow runs down: a room (a
//! top-level module of `src/`) may use only rooms of a lower rank — not
//! its own rank, not a higher one — so there is no circle (see
//! docs/design.md).

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src/` and its rank, from the bottom.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("fault", 0),
    ("fsread", 0),
    ("testing", 0),
    ("trace", 0),
    ("cores", 0),
    ("atomic", 1),
    ("interrupt", 1),
    ("model", 1),
    ("child", 2),
    ("repo", 2),
    ("diff", 3),
    ("oplog", 3),
    ("prompts", 3),
    ("snapshot", 3),
    ("provider", 4),
    ("restore", 4),
    ("store", 4),
    ("context", 5),
    ("retention", 5),
    ("revert", 5),
    ("sync", 5),
    ("compare", 6),
    ("record", 6),
    ("commands", 7),
    ("output", 8),
    ("web", 9),
    ("cli", 10),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a source text refers to as `crate::<module>`.
fn used_modules(text: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            used.insert(name);
        }
        // `use crate::{a, b::{c, d}}` names several: the first path segment
        // of each top-level item of the group.
        if let Some(group) = rest.strip_prefix('{') {
            for part in top_level_items(group) {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    used.insert(name);
                }
            }
        }
    }
    used
}

/// The comma-separated items of a `{…}` group (its opening brace already
/// stripped), nested groups kept whole.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

#[test]
fn every_room_uses_only_lower_ranks() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut problems = Vec::new();
    for path in all {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some(own) = layer(&top) else {
            problems.push(format!("src/{top} has no layer in tests/it/layers.rs"));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for used in used_modules(&text) {
            // `crate::Error`, `crate::Result` are re-exports of `error`.
            let used_layer = match used.as_str() {
                "Error" | "Result" => 0,
                other => layer(other).unwrap_or(0),
            };
            if used != top && used_layer >= own {
                problems.push(format!(
                    "{} (layer {own}) uses crate::{used} (layer {used_layer})",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "arrows not running down:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_parser_sees_grouped_imports() {
    let used = used_modules("use crate::{repo::{self, Locked}, model::note};\nlet x = crate::store::f();");
    assert!(
        used.contains("repo") && used.contains("model") && used.contains("store"),
        "{used:?}"
    );
}

#[test]
fn at_most_three_unsafe_blocks_each_with_its_proof() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut blocks = Vec::new();
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("unsafe {") {
                continue;
            }
            // The comment that proves it sound, just above (attributes and
            // `#[cfg]` lines may sit between).
            let proved = lines[..i]
                .iter()
                .rev()
                .take_while(|l| {
                    let t = l.trim();
                    t.starts_with("//") || t.starts_with("#[") || !t.contains(';') && !t.ends_with('}')
                })
                .any(|l| l.trim().starts_with("// SAFETY:"));
            blocks.push((format!("{}:{}", path.display(), i + 1), proved));
        }
    }
    assert!(blocks.len() <= 3, "more than 3 unsafe blocks: {blocks:?}");
    let unproved: Vec<_> = blocks.iter().filter(|(_, p)| !p).collect();
    assert!(
        unproved.is_empty(),
        "unsafe blocks without a SAFETY comment: {unproved:?}"
    );
}

/// The module path of a source file under `src/` (`diff/lines.rs` →
/// `["diff", "lines"]`, `diff/mod.rs` → `["diff"]`).
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Every module path a source text names through `crate::`, `super::` or
/// `self::` (groups expanded one level), resolved from `module` (the
/// file's own module path). Comments are skipped.
fn named_paths(text: &str, module: &[String]) -> Vec<Vec<String>> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|seg| {
                seg.trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|seg| !seg.is_empty())
            .collect()
    };
    let mut out = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(root) {
            // Not the tail of a longer identifier (`my_crate::`).
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let mut rest = &code[at + root.len()..];
            let mut base: Vec<String> = match root {
                "crate::" => Vec::new(),
                "self::" => module.to_vec(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            if let Some(group) = rest.strip_prefix('{') {
                for item in top_level_items(group) {
                    let mut p = base.clone();
                    p.extend(ident(item).into_iter().filter(|s| s != "self"));
                    out.push(p);
                }
            } else {
                let mut p = base;
                p.extend(ident(rest));
                out.push(p);
            }
        }
    }
    out
}

/// For each module, the sibling modules it uses: an arrow from `a::x` to
/// `a::y` for every file under `a::x` that names something under `a::y`.
fn sibling_arrows() -> std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let sources: Vec<(Vec<String>, String)> = all
        .iter()
        .map(|p| {
            (
                module_path(p.strip_prefix(&src).unwrap()),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .filter(|(m, _)| !m.is_empty() && m[0] != "lib" && m[0] != "main")
        .collect();
    let mut modules = BTreeSet::new();
    for (m, _) in &sources {
        for i in 1..=m.len() {
            modules.insert(m[..i].to_vec());
        }
    }
    let mut arrows: std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = Default::default();
    for (module, text) in &sources {
        for mut target in named_paths(text, module) {
            while !target.is_empty() && !modules.contains(&target) {
                target.pop();
            }
            let common = module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == module.len() || common == target.len() {
                continue; // itself, an ancestor or a descendant
            }
            arrows
                .entry(module[..=common].to_vec())
                .or_default()
                .insert(target[..=common].to_vec());
        }
    }
    arrows
}

#[test]
fn no_circle_among_sibling_modules() {
    let arrows = sibling_arrows();
    // Depth-first search for a back edge, reporting the circle it closes.
    fn visit(
        m: &Vec<String>,
        arrows: &std::collections::BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        path: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            let names: Vec<String> = path[at..].iter().chain([m]).map(|p| p.join("::")).collect();
            circles.push(names.join(" -> "));
            return;
        }
        path.push(m.clone());
        for next in arrows.get(m).into_iter().flatten() {
            visit(next, arrows, path, done, circles);
        }
        path.pop();
        done.insert(m.clone());
    }
    let mut circles = Vec::new();
    let mut done = BTreeSet::new();
    for m in arrows.keys() {
        visit(m, &arrows, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}

#[test]
fn no_command_uses_another_command() {
    let arrows = sibling_arrows();
    let problems: Vec<String> = arrows
        .iter()
        .filter(|(from, _)| from.len() == 2 && from[0] == "commands")
        .flat_map(|(from, to)| {
            to.iter()
                .map(move |t| format!("{} uses {}", from.join("::"), t.join("::")))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "a command calls another (shared steps belong in the library):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_sibling_parser_resolves_super_and_groups() {
    let module = ["diff".to_owned(), "lines".to_owned()];
    let named = named_paths(
        "use super::{patience, myers::{a, b}};\nlet x = super::super::repo::f();\n// super::ignored\n",
        &module,
    );
    let names: Vec<String> = named.iter().map(|p| p.join("::")).collect();
    assert!(names.contains(&"diff::patience".to_owned()), "{names:?}");
    assert!(names.contains(&"diff::myers".to_owned()), "{names:?}");
    assert!(names.contains(&"repo::f".to_owned()), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("ignored")), "{names:?}");
}

#[test]
fn no_source_file_over_450_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let long: Vec<String> = all
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > 450).then(|| format!("{} ({n} lines)", p.strip_prefix(&src).unwrap().display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 450 lines:\n{}", long.join("\n"));
}
