//! The vendored corpus (tests/fixtures/{conformance,bench}) against `../shared` (or
//! `$CHAT_AUTOPARSER_SHARED`), when that exists: fails naming every differing file, so a refreshed
//! reference corpus is noticed. Without ../shared (a clone of the repository alone, CI) it only says so.
//! Refresh with `scripts/refresh-fixtures.sh`.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Relative paths of every file under `root`.
fn files(root: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out
}

#[test]
fn vendored_fixtures_match_shared() {
    let shared = match std::env::var_os("CHAT_AUTOPARSER_SHARED") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    if !shared.is_dir() {
        println!("fixtures: {} not found, vendored copy not compared", shared.display());
        return;
    }
    let mut differ = Vec::new();
    for dir in ["conformance", "bench"] {
        let (theirs, ours) = (shared.join(dir), common::fixtures_dir().join(dir));
        let (a, b) = (files(&theirs), files(&ours));
        for f in a.union(&b) {
            if std::fs::read(theirs.join(f)).ok() != std::fs::read(ours.join(f)).ok() {
                differ.push(format!("{dir}/{}", f.display()));
            }
        }
    }
    println!("fixtures: {} files differ from {}", differ.len(), shared.display());
    assert!(
        differ.is_empty(),
        "tests/fixtures differs from {} in {differ:?}: run scripts/refresh-fixtures.sh and review the diff",
        shared.display()
    );
}
