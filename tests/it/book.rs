//! The README is a newcomer's page and `docs/` a book (mdBook's layout):
//! the README stays short and keeps its two set-up commands, `SUMMARY.md`
//! lists every chapter once, and every relative link of the README and
//! the book points at a file that exists and, with `#anchor`, at a heading
//! of that file (GitHub's and mdBook's anchors: the heading lowercased,
//! punctuation dropped, spaces as `-`). Moving text between chapters is
//! where links break; this catches it without a network or mdBook.

use crate::helpers::root;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// docs/*.md, the book's chapters and SUMMARY.md.
fn book_files() -> Vec<PathBuf> {
    crate::helpers::book_chapters()
        .iter()
        .map(|d| root().join(d))
        .collect()
}

/// Lines outside fenced blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut in_block = false;
    text.lines().filter(move |l| {
        if l.trim_start().starts_with("```") {
            in_block = !in_block;
            return false;
        }
        !in_block
    })
}

/// The anchor GitHub and mdBook give a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

/// Every `](target)` of the prose, inline code left out.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // Drop `code spans`: a `](` inside one is not a link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

fn broken_links(file: &Path) -> Vec<String> {
    let text = read(file);
    let mut broken = Vec::new();
    for link in links(&text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match link.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (link.as_str(), None),
        };
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        if !target.exists() {
            broken.push(format!("{}: `{link}`: no such file", file.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && target.extension().is_some_and(|x| x == "md")
            && !anchors(&read(&target)).contains(anchor)
        {
            broken.push(format!(
                "{}: `{link}`: no heading with that anchor",
                file.display()
            ));
        }
    }
    broken
}

#[test]
fn every_link_of_the_readme_and_the_book_resolves() {
    let mut files = vec![root().join("README.md")];
    files.extend(book_files());
    let broken: Vec<String> = files.iter().flat_map(|f| broken_links(f)).collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_summary_lists_every_chapter_once_and_the_book_builds_from_docs() {
    let summary = read(&root().join("docs/SUMMARY.md"));
    assert!(summary.starts_with("# Summary\n"), "mdBook's SUMMARY.md");
    let listed: Vec<String> = links(&summary);
    let unique: BTreeSet<&String> = listed.iter().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a chapter listed twice: {listed:?}"
    );
    let chapters: BTreeSet<String> = book_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "SUMMARY.md")
        .collect();
    let listed: BTreeSet<String> = listed.into_iter().collect();
    assert_eq!(listed, chapters, "SUMMARY.md and docs/*.md differ");
    let book = read(&root().join("docs/book.toml"));
    assert!(
        book.contains("src = \".\""),
        "the chapters sit in docs/ itself"
    );
}

#[test]
fn the_readme_is_a_newcomers_page_with_two_set_up_commands() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the rest belongs in docs/"
    );
    let setup = readme
        .split("## Set up")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a Set up section with a sh block");
    let commands: Vec<&str> = setup
        .lines()
        .map(|l| l.split("  #").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(commands, ["cargo run --release -- run", "cargo test"]);
    // Each user's part links to its chapter.
    for chapter in [
        "docs/running.md",
        "docs/debugging.md",
        "docs/submissions.md",
        "docs/class.md",
    ] {
        assert!(readme.contains(&format!("]({chapter}")), "{chapter}");
    }
}

#[test]
fn anchors_are_github_slugs() {
    assert_eq!(
        slug("Memory errors and leaks (`--memcheck`)"),
        "memory-errors-and-leaks---memcheck"
    );
    assert_eq!(
        slug("Hundreds of submissions: a class in shards"),
        "hundreds-of-submissions-a-class-in-shards"
    );
    assert_eq!(links("see [a](b.md#c) and `[x](y)`"), ["b.md#c"]);
}
