//! The README's and the book's (docs/*.md) excerpts come from real runs:
//! every deterministic `$ chessgrade ...` excerpt is run again and its lines
//! must appear in order in the real output (`...` skips any lines; `/...`
//! stands for a path prefix; times are ignored). Also: completions and the
//! man page are generated from the real command line.

use crate::helpers::{bin, command, root};
use std::process::Command;

/// `(command, expected lines)` for each excerpt worth rerunning here.
fn excerpts(doc: &str) -> Vec<(String, Vec<String>)> {
    every_excerpt(doc)
        .into_iter()
        .filter(|(cmd, _)| rerunnable(cmd))
        .collect()
}

/// `(command, expected lines)` for each `$ ` line of `doc`'s fenced blocks
/// (the command after the prompt, the lines under it).
pub(crate) fn every_excerpt(doc: &str) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let mut out = Vec::new();
    let mut in_block = false;
    let mut current: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            out.extend(current.take());
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some((cmd.to_string(), Vec::new()));
        } else if let Some((cmd, lines)) = current.as_mut() {
            // A command continued with `\` on the next line.
            if lines.is_empty() && cmd.ends_with('\\') {
                cmd.pop();
                cmd.push_str(line.trim_start());
            } else {
                lines.push(line.to_string());
            }
        }
    }
    out
}

pub(crate) fn rerunnable(cmd: &str) -> bool {
    let Some(rest) = cmd.strip_prefix("chessgrade ") else {
        return false;
    };
    // Shell syntax (pipes, variables, brace lists) needs a shell: not rerun here.
    let plain = !rest.contains(['|', ';', '>', '$', '{']);
    let kind = [
        "trace ",
        "perft ",
        "explain ",
        "run --list",
        "run --filter",
        "grade --submission tests/fixtures",
    ]
    .iter()
    .any(|k| rest.starts_with(k));
    plain && kind
}

/// Splits a command line on spaces, keeping "double quoted" and 'single
/// quoted' words whole.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in cmd.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// Drops `[0.012s]`, a trailing `; 0.01s` and a compile time, which differ
/// run to run.
/// A real run's lines as an excerpt is matched against them: untimed,
/// and without the note of a console build an earlier test left in the
/// shared build cache (an excerpt comes from a first run, which built it).
pub(crate) fn actual_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| *l != "note: build: from the build cache")
        .map(untimed)
        .collect()
}

pub(crate) fn untimed(line: &str) -> String {
    let mut s = line.trim_end().to_string();
    if let Some(i) = s.rfind(" [")
        && s.ends_with("s]")
        && s[i + 2..s.len() - 2].parse::<f64>().is_ok()
    {
        s.truncate(i);
    }
    // `note: compile: 2.39s (g++ ...)`: the build's time, or
    // `from the build cache` when an earlier test built the same upload.
    if let Some(rest) = s.strip_prefix("note: compile: ") {
        if let Some(flags) = rest.strip_prefix("from the build cache ") {
            s = format!("note: compile: {flags}");
        } else if let Some((time, flags)) = rest.split_once(' ')
            && time
                .strip_suffix('s')
                .is_some_and(|t| t.parse::<f64>().is_ok())
        {
            s = format!("note: compile: {flags}");
        }
    }
    // A class's `graded in 8.3s`, and how many of its builds an earlier
    // run left in the build cache (`(3 of 4 builds from the build cache)`).
    if let Some(rest) = s.strip_prefix("graded in ") {
        let time = rest.split_once(" (").map_or(rest, |(t, _)| t);
        let cache = rest
            .split_once(" (")
            .is_none_or(|(_, c)| c.ends_with(" builds from the build cache)"));
        if cache
            && time
                .strip_suffix('s')
                .is_some_and(|t| t.parse::<f64>().is_ok())
        {
            s = "graded in".to_string();
        }
    }
    if let Some(i) = s.rfind("; ")
        && s.ends_with('s')
        && s[i + 2..s.len() - 1].parse::<f64>().is_ok()
    {
        s.truncate(i);
    }
    s
}

fn line_matches(expected: &str, actual: &str) -> bool {
    match expected.split_once("/.../") {
        Some((head, tail)) => actual.starts_with(head) && actual.ends_with(tail),
        None => expected == actual,
    }
}

/// Whether `expected` (with `...` lines skipping any lines) matches the
/// start of `actual`.
pub(crate) fn matches(expected: &[String], actual: &[String]) -> Result<(), String> {
    let mut a = 0;
    let mut skipping = false;
    for e in expected {
        let e = untimed(e);
        if e.trim() == "..." {
            skipping = true;
            continue;
        }
        loop {
            let Some(line) = actual.get(a) else {
                return Err(format!("`{e}` not found"));
            };
            a += 1;
            if line_matches(&e, line) {
                break;
            }
            if !skipping {
                return Err(format!("expected `{e}`, found `{line}`"));
            }
        }
        skipping = false;
    }
    // An excerpt may stop before the output does.
    Ok(())
}

fn check(doc: &str) -> usize {
    let list = excerpts(doc);
    let mut failures = Vec::new();
    for (cmd, expected) in &list {
        let args = words(cmd);
        let out = command(root())
            .args(&args[1..])
            .env("LANG", "C.UTF-8")
            .env("COLUMNS", "100")
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let actual = actual_lines(&text);
        if let Err(why) = matches(expected, &actual) {
            failures.push(format!("{doc}: `$ {cmd}`: {why}\n--- real output:\n{text}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    list.len()
}

#[test]
fn readme_excerpts_match_real_runs() {
    // The debugging excerpt: a grade on one scenario.
    assert!(check("README.md") >= 1);
}

/// Every chapter of the book is checked; the chapters that hold the
/// README's former excerpts must still hold them (a chapter that loses
/// its excerpts, or stops being checked, fails here).
#[test]
fn the_books_excerpts_match_real_runs() {
    let docs = crate::helpers::book_chapters();
    let counts: Vec<(String, usize)> = docs.iter().map(|d| (d.clone(), check(d))).collect();
    let count = |doc: &str| counts.iter().find(|(d, _)| d == doc).map_or(0, |(_, n)| *n);
    // grade, explain x2, trace.
    assert!(count("docs/debugging.md") >= 4, "{counts:?}");
    // run --list, run --filter.
    assert!(count("docs/running.md") >= 2, "{counts:?}");
    // trace, perft x2.
    assert!(count("docs/other-programs.md") >= 3, "{counts:?}");
    // grade on a course config; memcheck x2.
    assert!(count("docs/submissions.md") >= 1, "{counts:?}");
    assert!(count("docs/memcheck.md") >= 2, "{counts:?}");
    assert_eq!(count("docs/perft.md"), 1, "{counts:?}");
}

#[test]
fn the_matcher_skips_and_refuses() {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches(&v(&["a", "...", "d"]), &v(&["a", "b", "c", "d"])).is_ok());
    assert!(matches(&v(&["a", "d"]), &v(&["a", "b", "d"])).is_err());
    assert!(matches(&v(&["b"]), &v(&["a", "b"])).is_err());
    assert!(matches(&v(&["a", "..."]), &v(&["a", "b"])).is_ok());
    assert!(matches(&v(&["PASS x [0.001s]"]), &v(&["PASS x"])).is_ok());
    assert!(matches(&v(&["note: /.../m.cc"]), &v(&["note: /home/u/m.cc"])).is_ok());
    assert_eq!(untimed("graded in 8.3s"), "graded in");
    assert_eq!(
        untimed("graded in 0.4s (3 of 4 builds from the build cache)"),
        "graded in"
    );
    assert_eq!(untimed("graded in class/"), "graded in class/");
    // Actual lines are untimed before matching, as `check` does.
    let built = v(&["note: compile: 6.51s (g++ -g)"]);
    let actual = |line: &str| vec![untimed(line)];
    assert!(matches(&built, &actual("note: compile: 0.2s (g++ -g)")).is_ok());
    assert!(
        matches(
            &built,
            &actual("note: compile: from the build cache (g++ -g)")
        )
        .is_ok()
    );
    assert!(matches(&built, &actual("note: compile: from the build cache (g++)")).is_err());
    assert_eq!(
        words("perft --fen \"a b\" --x 'c*'"),
        ["perft", "--fen", "a b", "--x", "c*"]
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line() {
    let run = |args: &[&str]| {
        let out = Command::new(bin()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = run(&["completions", "bash"]);
    for flag in ["--filter", "--fail-fast", "--class", "--output-dir"] {
        assert!(bash.contains(flag), "{flag}");
    }
    assert!(run(&["completions", "fish"]).contains("complete -c chessgrade"));
    let man = run(&["man"]);
    assert!(
        man.starts_with(".ie") && man.contains(".TH chessgrade 1"),
        "{man}"
    );
    assert!(man.contains("explain"), "subcommands are listed");
}
