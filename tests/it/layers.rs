//! The library's folders form layers: what one folder names of another
//! (`crate::x` in its code or its docs, tests aside) never loops back,
//! so each folder can be read knowing only the ones below it.

use crate::helpers::root;
use std::collections::{BTreeMap, BTreeSet};

/// Every folder of `src/` and the folders its files name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("src");
    let folders: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut out = BTreeMap::new();
    for folder in &folders {
        let mut named = BTreeSet::new();
        for entry in walkdir::WalkDir::new(src.join(folder)) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            // A file's unit tests may reach anywhere.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let rest = code[at + "crate::".len()..].trim_start_matches("r#");
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != *folder && folders.contains(&name) {
                    named.insert(name);
                }
            }
        }
        out.insert(folder.clone(), named);
    }
    out
}

#[test]
fn the_folders_of_the_library_import_one_another_without_a_loop() {
    let graph = imports();
    // Peel off folders that name no folder still left; whatever remains
    // is on a loop.
    let mut left: BTreeMap<String, BTreeSet<String>> = graph.clone();
    loop {
        let free: Vec<String> = left
            .iter()
            .filter(|(_, named)| named.iter().all(|n| !left.contains_key(n)))
            .map(|(f, _)| f.clone())
            .collect();
        if free.is_empty() {
            break;
        }
        for f in free {
            left.remove(&f);
        }
    }
    assert!(
        left.is_empty(),
        "folders on an import loop (each with what it names): {left:#?}"
    );
    // The lowest layers name nothing above them.
    assert!(graph["upload"].is_empty(), "{:?}", graph["upload"]);
    assert!(!graph["memcheck"].contains("runner"));
    assert!(!graph["submission"].contains("grading"));
}
